#include <tamsi/scenes/narrow_phase.h>

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

namespace tamsi::scenes {
namespace {

// The narrow phase of the calls to Collide on this thread; MuJoCo's own everywhere else (its own engine included).
thread_local NarrowPhase active_narrow_phase = NarrowPhase::kMujoco;
// MuJoCo's entry for plane–mesh pairs (its convex collider: GJK/EPA with multi-point contact), before ours.
mjfCollision mujoco_plane_mesh = nullptr;

// The vertices of mesh geom g2's convex hull (every mesh vertex without one: mesh_graphadr = −1) over plane geom g1.
class HullOverPlane {
 public:
  HullOverPlane(const mjModel* m, const mjData* d, int g1, int g2) : d_(d), g1_(g1), g2_(g2) {
    const int mesh = m->geom_dataid[g2];
    vertices_ = m->mesh_vert + 3 * m->mesh_vertadr[mesh];
    const int* graph = m->mesh_graphadr[mesh] >= 0 ? m->mesh_graph + m->mesh_graphadr[mesh] : nullptr;
    count_ = graph ? graph[0] : m->mesh_vertnum[mesh];
    hull_ = graph ? graph + 2 + count_ : nullptr;  // the hull vertices' ids in the mesh
    const mjtNum* plane = d->geom_xmat + 9 * g1;
    normal_[0] = plane[2];  // the plane's z axis
    normal_[1] = plane[5];
    normal_[2] = plane[8];
  }
  int count() const { return count_; }
  const mjtNum* normal() const { return normal_; }
  /// Vertex i's world position p (m); returns its signed height above the plane (m).
  mjtNum Height(int i, mjtNum p[3]) const {
    const float* v = vertices_ + 3 * (hull_ ? hull_[i] : i);
    const mjtNum local[3] = {v[0], v[1], v[2]};
    mjtNum offset[3];
    mju_mulMatVec3(p, d_->geom_xmat + 9 * g2_, local);
    mju_addTo3(p, d_->geom_xpos + 3 * g2_);
    mju_sub3(offset, p, d_->geom_xpos + 3 * g1_);
    return mju_dot3(offset, normal_);
  }
  /// The contact at vertex i: dist its height, pos midway between it and the plane, normal the plane's z axis.
  void Emit(int i, mjPreContact* con) const {
    mjtNum p[3];
    con->dist = Height(i, p);
    mju_copy3(con->normal, normal_);
    mju_zero3(con->tangent);  // no tangent given: mj_collision picks one
    mju_addScl3(con->pos, p, normal_, -0.5 * con->dist);
  }

 private:
  const mjData* d_;
  int g1_, g2_;
  const float* vertices_;
  const int* hull_;
  int count_;
  mjtNum normal_[3];
};

/// The deepest vertex and its height (m).
std::pair<int, mjtNum> Deepest(const HullOverPlane& hull) {
  std::pair<int, mjtNum> deepest{-1, 0.0};
  for (int i = 0; i < hull.count(); ++i) {
    mjtNum p[3];
    const mjtNum height = hull.Height(i, p);
    if (deepest.first < 0 || height < deepest.second) deepest = {i, height};
  }
  return deepest;
}

// A plane–mesh pair the support collider found touching on this thread: its detection margin (m) and the hull
// vertex it gave MuJoCo.
struct TouchingPair {
  int plane, mesh;
  mjtNum margin;
  int deepest;
};
thread_local std::vector<TouchingPair> touching_pairs;

// Plane geom g1 against the convex hull of mesh geom g2, the part inside MuJoCo's collision: the deepest vertex, if
// closer to the plane than `margin`, is the pair's one contact there (MuJoCo fills its frame, friction and solver
// parameters) and the pair is recorded; AddSupportContacts then adds the pair's other touching vertices.
int SupportPlaneMesh(const mjModel* m, mjData* d, mjPreContact* con, int g1, int g2, mjtNum margin) {
  if (m->geom_dataid[g2] < 0) return 0;
  const HullOverPlane hull(m, d, g1, g2);
  const auto [deepest, height] = Deepest(hull);
  if (deepest < 0 || height >= margin) return 0;
  hull.Emit(deepest, con);
  touching_pairs.push_back({g1, g2, margin, deepest});
  return 1;
}

// Every other hull vertex of each recorded pair that is closer to the plane than the pair's margin becomes a contact,
// a copy of the pair's contact with the vertex's dist and pos, so a hull resting on a face is held at every corner of
// that face, as a box is, and each contact's force starts from zero as its vertex reaches the plane. (MuJoCo's
// collision function contract leaves a plane–mesh pair room for four contacts, mj_maxContact: too few for a face of
// many vertices, on which the deepest four rock.) Stops when the contact list is full (mjWARN_CONTACTFULL).
void AddSupportContacts(const mjModel& model, mjData* data) {
  const int ncon = data->ncon;
  int cursor = 0;
  for (const TouchingPair& pair : touching_pairs) {
    while (cursor < ncon && (data->contact[cursor].geom[0] != pair.plane || data->contact[cursor].geom[1] != pair.mesh))
      ++cursor;
    if (cursor == ncon) return;
    mjContact contact = data->contact[cursor];
    const HullOverPlane hull(&model, data, pair.plane, pair.mesh);
    for (int i = 0; i < hull.count(); ++i) {
      mjtNum p[3];
      if (i == pair.deepest || hull.Height(i, p) >= pair.margin) continue;
      mjPreContact vertex;
      hull.Emit(i, &vertex);
      contact.dist = vertex.dist;
      mju_copy3(contact.pos, vertex.pos);
      if (mj_addContact(&model, data, &contact) != 0) return;
    }
  }
}

int PlaneMesh(const mjModel* m, mjData* d, mjPreContact* con, int g1, int g2, mjtNum margin) {
  if (active_narrow_phase == NarrowPhase::kAnalytic) return SupportPlaneMesh(m, d, con, g1, g2, margin);
  return mujoco_plane_mesh(m, d, con, g1, g2, margin);
}

// Routes MuJoCo's plane–mesh entry through PlaneMesh, once per process. The
// table is MuJoCo's documented hook for custom colliders; the entry keeps MuJoCo's collider for every thread outside
// Collide.
void InstallNarrowPhase() {
  static std::once_flag once;
  std::call_once(once, [] {
    mujoco_plane_mesh = mjCOLLISIONFUNC[mjGEOM_PLANE][mjGEOM_MESH];
    mjCOLLISIONFUNC[mjGEOM_PLANE][mjGEOM_MESH] = &PlaneMesh;
  });
}

// Sets this thread's narrow phase for one scope.
class NarrowPhaseScope {
 public:
  explicit NarrowPhaseScope(NarrowPhase narrow_phase) : previous_(active_narrow_phase) {
    active_narrow_phase = narrow_phase;
  }
  ~NarrowPhaseScope() { active_narrow_phase = previous_; }
  NarrowPhaseScope(const NarrowPhaseScope&) = delete;
  NarrowPhaseScope& operator=(const NarrowPhaseScope&) = delete;

 private:
  NarrowPhase previous_;
};

// Whether two contacts are one point reported twice: the same geoms, depth, position and frame, bit for bit.
bool SamePoint(const mjContact& a, const mjContact& b) {
  return a.geom[0] == b.geom[0] && a.geom[1] == b.geom[1] && a.dist == b.dist && std::equal(a.pos, a.pos + 3, b.pos) &&
         std::equal(a.frame, a.frame + 9, b.frame);
}

// MuJoCo 4.0's capsule–box and cylinder–box colliders (and a few others) sometimes write one point twice, one copy
// right after the other (in the settled N = 500 pile, 23 of 1,955 contacts). A compliant contact at each copy would
// push with the point's whole force, doubling its stiffness there, so each repeated copy is dropped.
void DropRepeatedPoints(mjData* data) {
  int kept = 0;
  for (int i = 0; i < data->ncon; ++i) {
    if (kept > 0 && SamePoint(data->contact[kept - 1], data->contact[i])) continue;
    if (kept != i) data->contact[kept] = data->contact[i];
    ++kept;
  }
  data->ncon = kept;
}

}  // namespace

void Collide(const mjModel& model, mjData* data, NarrowPhase narrow_phase) {
  InstallNarrowPhase();
  NarrowPhaseScope scope(narrow_phase);
  touching_pairs.clear();
  mj_collision(&model, data);
  if (narrow_phase == NarrowPhase::kAnalytic) AddSupportContacts(model, data);
  DropRepeatedPoints(data);
}

}  // namespace tamsi::scenes
