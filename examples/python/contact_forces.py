"""Contact forces of a Menagerie robot standing on its floor, plotted: the ANYmal C, loaded with MuJoCo's Python
bindings, stepped with TAMSI for 1 s from rest; each foot's normal force and their sum against the robot's weight.

    python examples/python/contact_forces.py [OUTPUT.png]      # default: contact_forces.png in the working folder

`tamsi.Simulator(model)` runs TAMSI's defaults on a copy of the model; `contacts()` gives, for each contact of the last
step, its geoms, position, normal, penetration, normal force fn (N) and friction ft (N, two tangent components).
Prints the summed normal force and the weight at the end. Needs matplotlib and the models folder: TAMSI_MODELS_DIR
(README, "Models").
"""
import os
import sys

import matplotlib
import mujoco
import numpy as np

import tamsi

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402  (after the backend)

models = os.environ.get("TAMSI_MODELS_DIR")
if not models:
    sys.exit("contact_forces.py: set TAMSI_MODELS_DIR to the models folder (README, 'Models')")
output = sys.argv[1] if len(sys.argv) > 1 else "contact_forces.png"
model = mujoco.MjModel.from_xml_path(os.path.join(models, "menagerie_current", "anybotics_anymal_c", "scene.xml"))
weight = float(model.body_mass.sum()) * -float(model.opt.gravity[2])  # N

sim = tamsi.Simulator(model)
times, per_body = [], []  # per step: {body name: its normal force (N)}
while sim.time < 1.0:
    sim.step()
    contacts = sim.contacts()
    forces: dict = {}
    for geom1, geom2, fn in zip(contacts["geom1"], contacts["geom2"], contacts["fn"]):
        body = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, int(model.geom_bodyid[max(geom1, geom2)]))
        forces[body] = forces.get(body, 0.0) + float(fn)  # the floor is body 0; the other geom is the robot's
    times.append(sim.time)
    per_body.append(forces)

bodies = sorted({body for forces in per_body for body in forces})
fn = np.array([[forces.get(body, 0.0) for body in bodies] for forces in per_body])  # steps × bodies
figure, axes = plt.subplots(figsize=(7, 4))
for column, body in enumerate(bodies):
    axes.plot(times, fn[:, column], label=body)
axes.plot(times, fn.sum(axis=1), "k", label="sum")
axes.axhline(weight, color="gray", linestyle="--", label="weight m g")
axes.set_xlabel("time (s)")
axes.set_ylabel("normal force (N)")
axes.set_title("ANYmal C on its floor under TAMSI")
axes.legend()
figure.tight_layout()
figure.savefig(output, dpi=100)
print(f"summed normal force at t = {times[-1]:.3f} s: {fn[-1].sum():.1f} N; weight {weight:.1f} N; plot: {output}")
