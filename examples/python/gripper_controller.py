"""Drive the paper's gripper (gripper_mug_shake, Sec. VI-A) with a Python controller. The scene shakes the gripper
along z (actuator "shake"); from 0.25 s on, this controller replaces the shake with a PD hold of the gripper at
z = 0 (m), and the mug, held by friction alone (μ = 0.1, grip 10 N), comes to rest with it."""
import tamsi

KP, KD = 400.0, 40.0  # N/m, N·s/m


def controller(sim):
    if sim.time >= 0.25:
        z, vz = sim.joint_qpos("translate_joint")[0], sim.joint_qvel("translate_joint")[0]
        sim.set_control("shake", -KP * z - KD * vz)  # N, replaces the scene's shaking force


sim = tamsi.Simulator("gripper_mug_shake", controller=controller)
print("joints:", ", ".join(sim.joint_names), "| actuators:", ", ".join(sim.actuator_names))
for _ in range(8):
    sim.run(0.125)
    contacts = sim.contacts()
    on_mug = [k == "geoms" for k in contacts["kind"]]
    print(f"t = {sim.time:.3f} s: gripper z = {sim.joint_qpos('translate_joint')[0]:+.4f} m, "
          f"mug z = {sim.body_pose('mug')[0][2]:+.4f} m, {sum(on_mug)} contacts, "
          f"normal force {contacts['fn'][on_mug].sum():.2f} N")
print(sim.statistics)
