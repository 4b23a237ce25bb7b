#include <tamsi/scenes/scene_library.h>

#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "html_replay.h"
#include "run_outputs.h"
#include "video_recorder.h"
#include "view_options.h"

namespace tamsi::cli {
namespace {

struct RenderArgs {
  std::string scene;
  std::string trajectory;
  int bodies{200};
  std::uint32_t seed{1};
  bool quiet{false};
  ViewOptions views;
};

void RenderTrajectory(const RenderArgs& args) {
  if (args.views.video.empty() && args.views.html.empty())
    throw CLI::RuntimeError("render: nothing to write (give --video and/or --html)", 2);
  if (args.views.contact_points || args.views.contact_forces)
    throw CLI::RuntimeError("render: --contact-points and --contact-forces need a run (a trajectory holds no contacts)",
                            2);
  scenes::SceneOptions scene_options;
  scene_options.clutter_bodies = args.bodies;
  scene_options.clutter_seed = args.seed;
  scenes::Scene scene;
  try {
    scene = scenes::LoadScene(args.scene, scene_options);
  } catch (const std::exception& e) {
    throw CLI::RuntimeError(e.what(), 2);
  }
  const mjModel& model = *scene.model;
  const std::vector<TrajectoryState> states = ReadTrajectory(args.trajectory, model);
  const double start = states.front().time, end = states.back().time;
  const double h = states.size() > 1 ? (end - start) / static_cast<double>(states.size() - 1) : 0.0;
  std::unique_ptr<mjData, scenes::DataDeleter> data(mj_makeData(&model));
  std::unique_ptr<VideoRecorder> video;
  if (!args.views.video.empty())
    video = std::make_unique<VideoRecorder>(model, args.views, scene.camera, start, end, h, !args.quiet);
  std::unique_ptr<HtmlReplay> html;
  if (!args.views.html.empty()) html = std::make_unique<HtmlReplay>(model, args.views, scene.name, start, h);
  for (const TrajectoryState& state : states) {
    std::copy(state.qpos.begin(), state.qpos.end(), data->qpos);
    data->time = state.time;
    if (video) video->Observe(*data, {});
    if (html && html->Due(state.time)) html->AddFrame(*data, {});
  }
  if (video) video->Finish();
  if (html) html->Finish();
}

}  // namespace

void AddRenderCommand(CLI::App& app) {
  auto args = std::make_shared<RenderArgs>();
  CLI::App* cmd = app.add_subcommand("render", "Draw a saved trajectory (tamsi run --output) as a video or a replay");
  cmd->add_option("scene", args->scene, "The run's built-in scene name or model file (MJCF or .mjb)")->required();
  cmd->add_option("trajectory", args->trajectory, "Trajectory CSV written by tamsi run --output")->required();
  cmd->add_option("--bodies", args->bodies, "clutter_bin: number of bodies of the run (default 200)")
      ->check(Positive());
  cmd->add_option("--seed", args->seed, "clutter_bin: random seed of the run (default 1)");
  cmd->add_flag("--quiet", args->quiet, "No progress lines");
  AddViewOptions(cmd, &args->views, /*plots=*/false);
  cmd->callback([args] { RenderTrajectory(*args); });
}

}  // namespace tamsi::cli
