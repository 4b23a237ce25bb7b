"""Step MuJoCo's own MjData with TAMSI: the Menagerie Franka panda loaded with MuJoCo's Python bindings, its joints
driven through data.ctrl, and `tamsi.step(model, data)` where a MuJoCo loop has `mujoco.mj_step(model, data)`.

The panda's actuators are PD servos (force = kp (ctrl − q) − kd q̇, kp and kd from the model): the loop writes each
joint's set-point, a smooth swing about the home pose. Prints the largest tracking error of the last second (rad).
Needs the models folder: TAMSI_MODELS_DIR (README, "Models").
"""
import math
import os
import sys

import mujoco
import numpy as np

import tamsi

models = os.environ.get("TAMSI_MODELS_DIR")
if not models:
    sys.exit("step_mjdata.py: set TAMSI_MODELS_DIR to the models folder (README, 'Models')")
model = mujoco.MjModel.from_xml_path(os.path.join(models, "menagerie_current", "franka_emika_panda", "scene.xml"))
data = mujoco.MjData(model)
mujoco.mj_resetDataKeyframe(model, data, 0)  # "home"
home = data.qpos[:7].copy()
amplitude = np.array([0.4, 0.3, 0.3, 0.3, 0.3, 0.3, 0.4])  # rad
period = 2.0  # s


def reference(t: float) -> np.ndarray:
    return home + amplitude * math.sin(2 * math.pi * t / period) * min(1.0, t)  # ramped in over the first second


error = 0.0
while data.time < 3.0:
    data.ctrl[:7] = reference(data.time)  # the servos' set-points; ctrl[7] keeps the gripper's
    tamsi.step(model, data)  # was: mujoco.mj_step(model, data)
    if data.time > 2.0:
        error = max(error, float(np.abs(data.qpos[:7] - reference(data.time)).max()))
print(f"max tracking error over the last second: {error:.4f} rad ({round(data.time / model.opt.timestep)} steps)")
