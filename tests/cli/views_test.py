#!/usr/bin/python3
"""ctest driver for the views of a run (apps/tamsi/view_options.h): `views_test.py TAMSI CASE`, CASE one of

  video       tamsi run --video: the requested frame count and size (ffprobe), frames that are not blank and that
              change over the run; the trajectory CSV is bitwise identical with and without --video; tamsi render of
              the saved trajectory draws the same pictures
  plots       tamsi run --plots on a scene with checks (robotiq_grasp, so it needs the models folder
              TAMSI_MODELS_DIR, README "Models"; skipped with exit status 77 without it): every PNG written and
              readable, steps.csv holds every step
  html        tamsi run --html and tamsi render --html, loaded in headless Chromium at a given time: no page errors,
              the bodies where the trajectory puts them, a screenshot that is not empty with the mug drawn where the
              page projects it

Runs in a fresh temporary directory. Needs ffmpeg, matplotlib (with numpy) and chromium (Debian packages).
"""

import csv
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

SKIPPED = 77  # the exit status ctest counts as skipped (SKIP_RETURN_CODE)


def run(*args):
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit status {result.returncode}\n{result.stdout}\n{result.stderr}")
    return result.stdout


def check(condition, message):
    if not condition:
        sys.exit("FAILED: " + message)
    print("ok:", message)


def read_frames(path, width, height):
    raw = subprocess.run(["ffmpeg", "-loglevel", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, height, width, 3).astype(float)


def trajectory(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {float(row["time"]): row for row in rows}


def video(tamsi):
    # gripper_mug_shake, h = 3 ms: 167 steps end at 0.501 s; at 20 frames per second, frames at 0, 0.05, ..., 0.5.
    width, height, frames = 320, 240, 11
    run(tamsi, "run", "--duration", "0.5", "--quiet", "--output", "plain.csv")
    run(tamsi, "run", "--duration", "0.5", "--quiet", "--output", "with_video.csv", "--plots", "plots",
        "--video", "run.mp4", "--video-size", f"{width}x{height}", "--video-fps", "20", "--contact-points",
        "--contact-forces")
    with open("plain.csv", "rb") as a, open("with_video.csv", "rb") as b:
        check(a.read() == b.read(), "the trajectory is bitwise the same with and without --video and --plots")
    probe = json.loads(run("ffprobe", "-v", "error", "-count_frames", "-show_entries",
                           "stream=width,height,nb_read_frames", "-of", "json", "run.mp4"))["streams"][0]
    check((probe["width"], probe["height"]) == (width, height), f"video size {probe['width']}x{probe['height']}")
    check(int(probe["nb_read_frames"]) == frames, f"{probe['nb_read_frames']} frames, expected {frames}")
    pictures = read_frames("run.mp4", width, height)
    spread = [p.std() for p in pictures]
    check(min(spread) > 10, f"no blank frame (smallest pixel standard deviation {min(spread):.1f})")
    changes = [np.abs(pictures[k + 1] - pictures[k]).mean() for k in range(frames - 1)]
    check(min(changes) > 0.05, f"every frame differs from the one before (smallest mean change {min(changes):.2f})")
    # Half a shake period (0.25 s) apart, the picture has changed (the camera tracks the gripper; the mug swings).
    check(np.abs(pictures[5] - pictures[0]).mean() > 2, "the picture changes over the run")
    # The scene's camera follows the gripper, which the shake carries 0.8 m away in 5 s: the last frame still shows
    # it (a fixed camera's frames were empty from 3.5 s on).
    run(tamsi, "run", "--quiet", "--video", "last.png", "--video-size", f"{width}x{height}")
    below_time = read_frames("last.png", width, height)[-1][height // 5:]  # the time stamp is in the top fifth
    check(below_time.std() > 10, f"the gripper is in the last frame (pixel standard deviation {below_time.std():.1f})")

    # --slow-motion 2 doubles the frames; tamsi render of the saved run draws what the run drew.
    run(tamsi, "run", "--duration", "0.5", "--quiet", "--video", "slow.mp4", "--video-size", f"{width}x{height}",
        "--video-fps", "20", "--slow-motion", "2")
    slow = read_frames("slow.mp4", width, height)
    check(len(slow) == 2 * frames - 1, f"--slow-motion 2: {len(slow)} frames, expected {2 * frames - 1}")
    run(tamsi, "render", "gripper_mug_shake", "plain.csv", "--quiet", "--video", "render.mp4", "--video-size",
        f"{width}x{height}", "--video-fps", "20")
    rendered = read_frames("render.mp4", width, height)
    check(len(rendered) == frames, f"tamsi render: {len(rendered)} frames, expected {frames}")
    difference = max(np.abs(a - b).mean() for a, b in zip(rendered, slow[::2]))
    check(difference < 0.5, f"tamsi render draws the run's pictures (largest mean difference {difference:.3f})")


def plots(tamsi):
    if not os.environ.get("TAMSI_MODELS_DIR"):
        print("skipped: needs third-party models: TAMSI_MODELS_DIR is unset "
              "(a folder holding menagerie_current/ and ycb_sim/; README, \"Models\")")
        sys.exit(SKIPPED)
    out = run(tamsi, "run", "robotiq_grasp", "--duration", "0.8", "--quiet", "--plots", "plots")
    steps = int(re.search(r"steps +(\d+)", out).group(1))
    import matplotlib.image
    for name in ["iterations", "contacts", "wall_time", "phases", "checks"]:
        path = os.path.join("plots", name + ".png")
        check(os.path.exists(path), f"{path} written")
        image = matplotlib.image.imread(path)
        check(image.shape[0] > 100 and image.shape[1] > 100 and image.std() > 0.01, f"{path} is a picture")
    with open(os.path.join("plots", "steps.csv")) as f:
        rows = list(csv.DictReader(f))
    check(len(rows) == steps, f"steps.csv holds {len(rows)} of {steps} steps")
    check(all(int(r["iterations"]) >= 1 for r in rows), "every step has its Newton iterations")
    wall = float(re.search(r"wall time +([0-9.e+-]+) s", out).group(1))
    total = sum(float(r["wall_ms"]) for r in rows) / 1e3
    check(abs(total - wall) <= 1e-3 * wall, f"steps.csv's wall times sum to the summary's ({total:.4g} s, {wall:.4g} s)")
    check(all(float(r["wall_ms"]) >= float(r["frontend_ms"]) + float(r["solve_ms"]) for r in rows),
          "each step's wall time holds its front end and solve")
    with open(os.path.join("plots", "checks.csv")) as f:
        checks = list(csv.DictReader(f))
    slip = float(checks[-1]["box slip along gravity while held (m)"])
    check(f"{slip:.3g}" in out, f"checks.csv ends at the summary's checked value ({slip:.3g})")


VIEW = (640, 480)  # the replay's view in pixels, fixed: --dump-dom and --screenshot windows differ in height


def chromium(page, time, *flags):
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--use-angle=swiftshader",
             "--enable-unsafe-swiftshader", f"--user-data-dir={profile}", "--window-size=1000,700",
             "--virtual-time-budget=5000", *flags, f"file://{os.path.abspath(page)}#t={time}&size={VIEW[0]}x{VIEW[1]}"],
            capture_output=True, text=True, timeout=120).stdout


def html(tamsi):
    run(tamsi, "run", "--duration", "1", "--quiet", "--output", "run.csv", "--html", "run.html")
    run(tamsi, "render", "gripper_mug_shake", "run.csv", "--quiet", "--html", "render.html")
    states = trajectory("run.csv")
    for page in ["run.html", "render.html"]:
        with open(page) as f:
            check("<script src=" not in f.read(), f"{page} loads nothing from elsewhere")
        match = re.search(r'<pre id="probe">(.*?)</pre>', chromium(page, 0.7, "--dump-dom"), re.S)
        check(match is not None and match.group(1).strip(), f"{page}: the page wrote its probe")
        probe = json.loads(match.group(1))
        check(probe["ready"] and probe["errors"] == [], f"{page}: no errors ({probe['errors']})")
        check(abs(probe["time"] - 0.7) < 1 / 60 + 1e-9, f"{page}: shows t = {probe['time']:.4f} s for t = 0.7 s")
        state = min(states.items(), key=lambda item: abs(item[0] - probe["time"]))[1]
        for body in ["mug", "gripper"]:
            expected = np.array([float(state[f"{body}_{axis}"]) for axis in "xyz"])
            error = np.abs(np.array(probe["bodies"][body]["world"]) - expected).max()
            check(error < 1e-6, f"{page}: {body} at its trajectory position (error {error:.1e} m)")
    chromium("run.html", 0.7, "--screenshot=shot.png")
    import matplotlib.image
    shot = matplotlib.image.imread("shot.png")[..., :3]
    view = shot[:VIEW[1], :VIEW[0]]
    background = view[5, 5]
    drawn = np.abs(view - background).sum(axis=2) > 0.05
    check(drawn.mean() > 0.02, f"the view is not empty ({100 * drawn.mean():.1f} % of it drawn)")
    x, y = (int(round(v)) for v in probe["bodies"]["mug"]["pixel"])
    check(0 <= x < VIEW[0] and 0 <= y < VIEW[1] and drawn[y - 2:y + 3, x - 2:x + 3].all(),
          f"the mug is drawn where the page projects it ({x}, {y})")


def main():
    tamsi, case = os.path.abspath(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)
        {"video": video, "plots": plots, "html": html}[case](tamsi)


if __name__ == "__main__":
    main()
