#pragma once
/// @file
/// MuJoCo models and data as the front end uses them: loading MJCF (errors as exceptions, warnings kept), owning
/// pointers, and the arena that holds MuJoCo's contacts, sized for TAMSI stepping and grown on demand.

#include <mujoco/mujoco.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tamsi::scenes {

/// Thrown when an MJCF model cannot be loaded (missing file, malformed XML, invalid model); what() holds MuJoCo's
/// own message.
class ModelLoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown when MuJoCo reports an error while computing (its mju_user_error hook is routed here).
class MujocoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A MuJoCo error for an arena (mjData's contacts, constraint rows and stack) too small for the computation; the
/// caller grows it (GrowArena) and computes again.
class ArenaFullError : public MujocoError {
 public:
  using MujocoError::MujocoError;
};

struct ModelDeleter {
  void operator()(mjModel* model) const { mj_deleteModel(model); }
};
struct DataDeleter {
  void operator()(mjData* data) const { mj_deleteData(data); }
};
using ModelPtr = std::unique_ptr<mjModel, ModelDeleter>;
using DataPtr = std::unique_ptr<mjData, DataDeleter>;

/// Routes MuJoCo's errors to MujocoError exceptions and its warnings to LastMujocoWarning() instead of stdout and
/// MUJOCO_LOG.TXT. Idempotent; called by the loaders.
void InstallMujocoHandlers();
/// The text of the most recent MuJoCo warning in this process ("" if none).
std::string LastMujocoWarning();

/// Loads an MJCF (or URDF) file, or a file whose name ends in .mjb (any case) as MuJoCo's binary model (ModelBinary,
/// `tamsi compile`), read without MuJoCo's compiler: the compiler's cost grows as bodies × velocities (about 20 s for
/// a 10,000-body pile, 3.5 min for 30,000 bodies on one core), a binary model's load as its size (0.3 s for 10,000). A
/// binary model must come from the same MuJoCo version (mj_versionString()). Throws ModelLoadError naming the file and
/// MuJoCo's reason, or the element whose friction, mass or inertia is negative or not finite, or a gravity that is
/// not finite (MuJoCo's compiler takes them; checked for binary models too).
ModelPtr LoadModelFromFile(const std::string& path);
/// Whether LoadModelFromFile reads `path` as a binary model: its extension is .mjb, in any case.
bool IsBinaryModelPath(const std::string& path);
/// MuJoCo's binary model of `model` (mj_saveModel: mj_sizeModel(model) bytes), as LoadModelFromFile reads from a
/// .mjb file. It holds the compiled model whole (meshes, sizes, options, keyframes), not the MJCF it came from.
std::vector<char> ModelBinary(const mjModel& model);
/// Compiles MJCF text held in memory (the built-in scenes). `name` is used in error messages; with `directory`, the
/// text is compiled as if it were the file `directory`/`name`.xml, so its includes and mesh files resolve there.
/// Throws ModelLoadError.
ModelPtr LoadModelFromString(const std::string& xml, const std::string& name, const std::string& directory = "");

/// A new mjData for `model` (e.g. after its buffer sizes grew) holding `data`'s state: qpos, qvel, act, ctrl, applied
/// forces, mocap poses, userdata, MuJoCo's warm start and the time.
DataPtr RemakeData(const mjModel& model, const mjData& data);
/// Doubles model->narena, the mjData arena that holds MuJoCo's contact list, constraint rows and stack, and remakes
/// *data for it (RemakeData). Throws MujocoError when the arena would exceed 64 GiB.
void GrowArena(mjModel* model, DataPtr* data);

/// Sizes a model for TAMSI stepping before mj_makeData: the arena (model->narena, bytes) holds at least
/// max(`min_contacts`, 8 ngeom + 100) contacts besides the collision's stack. TAMSI's steps never build MuJoCo's
/// constraint rows; a contact list that still fills grows through GrowArena.
void ConfigureModelForTamsi(mjModel* model, int min_contacts);

}  // namespace tamsi::scenes
