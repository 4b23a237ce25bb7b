#include <tamsi/scenes/mujoco_frontend.h>

#include <cmath>
#include <mutex>

namespace tamsi::scenes {
namespace {

// The narrow phase of the calls to Collide on this thread; MuJoCo's own everywhere else (its own engine included).
thread_local NarrowPhase active_narrow_phase = NarrowPhase::kMujoco;
// MuJoCo's entry for sphere–cylinder pairs (2.2.2: its general convex collider, libccd's MPR), before ours.
mjfCollision mujoco_sphere_cylinder = nullptr;

// Sphere geom g1 against cylinder geom g2 in closed form, under MuJoCo's collision-function contract: one contact
// when the surfaces are closer than `margin` (m), with dist (m, < 0 in penetration), pos (world, m; midway between
// the two surfaces along the normal) and frame[0..2] (unit normal from the sphere toward the cylinder; mj_collision
// completes the frame from the normal, frame[3..5] zero, and fills the rest). The cylinder's signed distance field is
// exact: outside, the distance to the nearest point of its side, cap or rim; inside, the depth below the nearest of its
// side and caps.
int AnalyticSphereCylinder(const mjModel* m, const mjData* d, mjContact* con, int g1, int g2, mjtNum margin) {
  const mjtNum* center = d->geom_xpos + 3 * g1;
  const mjtNum sphere_radius = m->geom_size[3 * g1];
  const mjtNum* rotation = d->geom_xmat + 9 * g2;
  const mjtNum radius = m->geom_size[3 * g2], half_height = m->geom_size[3 * g2 + 1];
  mjtNum offset[3], local[3];
  mju_sub3(offset, center, d->geom_xpos + 3 * g2);
  mju_rotVecMatT(local, offset, rotation);  // the sphere's centre in the cylinder's frame (axis z)
  const mjtNum rho = std::sqrt(local[0] * local[0] + local[1] * local[1]);
  // How far the centre lies outside the side's and the caps' slabs (m, < 0 inside).
  const mjtNum radial_gap = rho - radius, axial_gap = std::abs(local[2]) - half_height;
  const mjtNum radial[2] = {rho > 0 ? local[0] / rho : 1.0, rho > 0 ? local[1] / rho : 0.0};
  const mjtNum axial = local[2] >= 0 ? 1.0 : -1.0;
  // The centre's signed distance from the surface (m) and the cylinder's outward normal there (cylinder frame).
  mjtNum distance, normal_local[3];
  if (radial_gap > 0 && axial_gap > 0) {  // beyond the rim
    distance = std::sqrt(radial_gap * radial_gap + axial_gap * axial_gap);
    normal_local[0] = radial[0] * radial_gap / distance;
    normal_local[1] = radial[1] * radial_gap / distance;
    normal_local[2] = axial * axial_gap / distance;
  } else if (axial_gap > radial_gap) {  // over a cap, or inside and nearer a cap than the side
    distance = axial_gap;
    normal_local[0] = normal_local[1] = 0.0;
    normal_local[2] = axial;
  } else {  // beside the side, or inside and nearer the side
    distance = radial_gap;
    normal_local[0] = radial[0];
    normal_local[1] = radial[1];
    normal_local[2] = 0.0;
  }
  const mjtNum dist = distance - sphere_radius;
  if (dist >= margin) return 0;
  mjtNum outward[3];
  mju_rotVecMat(outward, normal_local, rotation);
  con->dist = dist;
  mju_scl3(con->frame, outward, -1.0);
  mju_zero3(con->frame + 3);  // no tangent given: mj_collision picks one (the array is its uninitialized stack)
  mju_addScl3(con->pos, center, outward, -0.5 * (distance + sphere_radius));
  return 1;
}

// MuJoCo's entry for plane–mesh pairs (2.2.2: its deepest hull vertex and up to a few more), before ours.
mjfCollision mujoco_plane_mesh = nullptr;

// Plane geom g1 against the convex hull of mesh geom g2: every hull vertex closer to the plane than `margin` is a
// contact (dist its signed height above the plane, pos midway between it and the plane, normal the plane's z axis
// toward the mesh), so a hull resting on a face is held at every corner of that face, as a box is, and each contact's
// force starts from zero as its vertex reaches the plane. Beyond mjMAXCONPAIR candidates the deepest are kept.
// Without a hull (mesh_graphadr = −1) every vertex of the mesh is a candidate.
int SupportPlaneMesh(const mjModel* m, const mjData* d, mjContact* con, int g1, int g2, mjtNum margin) {
  const int mesh = m->geom_dataid[g2];
  if (mesh < 0) return 0;
  const mjtNum* plane = d->geom_xmat + 9 * g1;
  const mjtNum normal[3] = {plane[2], plane[5], plane[8]};  // the plane's z axis
  const mjtNum* rotation = d->geom_xmat + 9 * g2;
  const float* vertices = m->mesh_vert + 3 * m->mesh_vertadr[mesh];
  const int* graph = m->mesh_graphadr[mesh] >= 0 ? m->mesh_graph + m->mesh_graphadr[mesh] : nullptr;
  const int count = graph ? graph[0] : m->mesh_vertnum[mesh];
  const int* hull = graph ? graph + 2 + count : nullptr;  // the hull vertices' ids in the mesh
  int n = 0;
  for (int i = 0; i < count; ++i) {
    const float* v = vertices + 3 * (hull ? hull[i] : i);
    const mjtNum local[3] = {v[0], v[1], v[2]};
    mjtNum p[3], offset[3];
    mju_rotVecMat(p, local, rotation);
    mju_addTo3(p, d->geom_xpos + 3 * g2);
    mju_sub3(offset, p, d->geom_xpos + 3 * g1);
    const mjtNum dist = mju_dot3(offset, normal);
    if (dist >= margin) continue;
    int slot = n;
    if (n == mjMAXCONPAIR) {  // full: replace the shallowest if this one is deeper
      slot = 0;
      for (int j = 1; j < n; ++j)
        if (con[j].dist > con[slot].dist) slot = j;
      if (dist >= con[slot].dist) continue;
    } else {
      ++n;
    }
    con[slot].dist = dist;
    mju_copy3(con[slot].frame, normal);
    mju_zero3(con[slot].frame + 3);  // no tangent given: mj_collision picks one
    mju_addScl3(con[slot].pos, p, normal, -0.5 * dist);
  }
  return n;
}

int SphereCylinder(const mjModel* m, const mjData* d, mjContact* con, int g1, int g2, mjtNum margin) {
  if (active_narrow_phase == NarrowPhase::kAnalytic) return AnalyticSphereCylinder(m, d, con, g1, g2, margin);
  return mujoco_sphere_cylinder(m, d, con, g1, g2, margin);
}

int PlaneMesh(const mjModel* m, const mjData* d, mjContact* con, int g1, int g2, mjtNum margin) {
  if (active_narrow_phase == NarrowPhase::kAnalytic) return SupportPlaneMesh(m, d, con, g1, g2, margin);
  return mujoco_plane_mesh(m, d, con, g1, g2, margin);
}

// Routes MuJoCo's sphere–cylinder and plane–mesh entries through SphereCylinder and PlaneMesh, once per process. The
// table is MuJoCo's documented hook for custom colliders; the entry keeps MuJoCo's collider for every thread outside
// Collide.
void InstallNarrowPhase() {
  static std::once_flag once;
  std::call_once(once, [] {
    mujoco_sphere_cylinder = mjCOLLISIONFUNC[mjGEOM_SPHERE][mjGEOM_CYLINDER];
    mjCOLLISIONFUNC[mjGEOM_SPHERE][mjGEOM_CYLINDER] = &SphereCylinder;
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

}  // namespace

void Collide(const mjModel& model, mjData* data, NarrowPhase narrow_phase) {
  InstallNarrowPhase();
  NarrowPhaseScope scope(narrow_phase);
  mj_collision(&model, data);
}

}  // namespace tamsi::scenes
