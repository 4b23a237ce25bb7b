#pragma once
/// @file
/// Seeded synthetic contact problems of free rigid bodies (no MuJoCo): spheres on a plane, sphere towers and boxes
/// on a plane. Each generator returns one TAMSI time step (positions frozen at q0) together with the geometry it was
/// built from, so tests can check the Jacobians against rigid-body kinematics and benchmarks can sweep N.
///
/// Conventions (world frame, SI units, gravity along −z, the ground is the plane z = 0):
/// - Body b owns the six generalized velocities v[6b .. 6b+5] = [linear velocity of its center of mass (m/s);
///   angular velocity (rad/s)], both in world coordinates. M is block diagonal: m I₃ and the world inertia about the
///   center of mass R I_body Rᵀ (kg·m²), both triangles stored.
/// - Contact i is between body A = contacts[i].body_a (−1: the ground) and body B = contacts[i].body_b, at the world
///   point p with unit normal n̂ pointing from A to B. Its Jacobian rows are uᵀ[I₃, −[r_B]×] on body B's columns minus
///   uᵀ[I₃, −[r_A]×] on body A's columns, r = p − (center of mass), for u = n̂ (row i of Jn) and the tangents t̂₁, t̂₂
///   (rows 2i, 2i+1 of Jt; t̂₁ × t̂₂ = n̂). So vn = Jn v is the separation velocity (positive when the bodies move
///   apart) and the generalized contact force Jnᵀ fn + Jtᵀ ft applies +fn n̂ + ft to B and the opposite to A.
/// - p is the midpoint of the overlap: B's deepest point into A moved by δ0/2 along n̂.
/// - p* = M v0 + h τ with τ = gravity only (gyroscopic terms are omitted); problem.v0 is always set.
/// - "Settled" penetrations: each contact's δ0 is the static load W it carries divided by its stiffness (capped by
///   SyntheticOptions::max_penetration, which raises k), so v = 0 is an exact equilibrium of the two-way residual
///   (eq. 21) for resting bodies: π = k δ0 = W.
///
/// Every random quantity comes from one std::mt19937_64 seeded with `seed`, mapped to doubles without the
/// implementation-defined std distributions: the same (N, seed, options) gives bitwise-identical problems.

#include <tamsi/contact_problem.h>

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace tamsi::synthetic {

/// Initial velocities v0 of the bodies.
enum class InitialMotion {
  /// v0 = 0: bodies at rest in their settled penetrations.
  kResting,
  /// Each body starts with a random horizontal linear velocity of speed ≤ SyntheticOptions::max_sliding_speed and
  /// zero angular velocity, so its contacts slide.
  kSliding,
};

/// Physical ranges of the generators. Each body draws its size and mass uniformly from the ranges; each contact
/// draws k, d and μ uniformly (boxes: one draw per box, shared by its four corners). Defaults are plausible
/// for small hard objects (a few cm, tens to hundreds of grams).
struct SyntheticOptions {
  /// Time step h (s), > 0.
  double time_step{1e-3};
  /// Magnitude of gravity g (m/s²), acting along −z.
  double gravity{9.81};
  /// Sphere radius, or box half-extent along each body axis (m).
  double min_size{0.02}, max_size{0.06};
  /// Body mass (kg).
  double min_mass{0.05}, max_mass{0.3};
  /// Hunt–Crossley stiffness k (N/m) and dissipation d (s/m) per contact (eq. 5).
  double min_stiffness{1e4}, max_stiffness{1e5};
  double min_dissipation{1.0}, max_dissipation{10.0};
  /// Coulomb friction coefficient μ per contact.
  double min_friction{0.3}, max_friction{1.0};
  /// Largest settled penetration δ0 (m), > 0: a contact whose load W would sink deeper gets the stiffness
  /// k = W / max_penetration instead of its draw (contacts deep in a tall tower are stiffer, as a real tower's would
  /// have to be), so δ0 = min(W / k_drawn, max_penetration).
  double max_penetration{2e-3};
  InitialMotion motion{InitialMotion::kResting};
  /// Largest initial horizontal speed for InitialMotion::kSliding (m/s).
  double max_sliding_speed{0.5};
  /// Spheres: principal moments 2/5 m r² (1 + a ξ) with ξ uniform in [−1, 1] per axis (a sphere of uneven density),
  /// about randomly oriented principal axes, so M's 3 × 3 rotational blocks are full. In [0, 1).
  double inertia_anisotropy{0.2};
  /// SphereStack: spheres per tower; 0 puts all N spheres in one tower (one chain of N contacts).
  int tower_height{0};
};

/// A free rigid body at q0.
struct Body {
  /// Center of mass (m), world.
  Eigen::Vector3d position;
  /// Orientation: world-from-body rotation.
  Eigen::Matrix3d rotation;
  /// Mass (kg).
  double mass;
  /// Inertia about the center of mass in world coordinates (kg·m²): R I_body Rᵀ.
  Eigen::Matrix3d inertia;
  /// Spheres: (r, r, r); boxes: the half-extents along the body axes (m).
  Eigen::Vector3d size;
};

/// One contact point; see the file comment for the Jacobian it defines.
struct Contact {
  /// Body indices; body_a = −1 is the ground. body_b ≥ 0.
  int body_a;
  int body_b;
  /// Contact point p (m), world.
  Eigen::Vector3d point;
  /// Unit normal n̂ from A to B and tangents t̂₁, t̂₂ with t̂₁ × t̂₂ = n̂.
  Eigen::Vector3d normal, tangent1, tangent2;
};

/// A generated step: the solver input and the geometry behind it (contacts[i] is row i of Jn).
struct SyntheticProblem {
  ContactProblem problem;
  std::vector<Body> bodies;
  std::vector<Contact> contacts;
};

/// N spheres on the ground on a square grid, spaced so that no two touch: N independent contacts (nv = 6N, nc = N).
/// Sphere b rests on contact b with the settled penetration δ0 = m g / k (see max_penetration). Throws
/// std::invalid_argument if num_bodies < 0 or the options are out of range.
SyntheticProblem SpheresOnPlane(int num_bodies, std::uint64_t seed, const SyntheticOptions& options = {});

/// N spheres in vertical towers of SyntheticOptions::tower_height (0: one tower), towers on a square grid. In a tower
/// of spheres b₀ … b_{H−1} (bottom to top), contact b₀ is with the ground and contact b_j (j ≥ 1) is between b_{j−1}
/// (A) and b_j (B), normal +z: a chain, so the Newton matrix is block tridiagonal per tower (nv = 6N, nc = N). The
/// settled penetration of each contact carries the weight W of the spheres above it: δ0 = W / k, capped at
/// max_penetration by stiffening the contact (at the default ranges, contacts more than ~10–60 spheres below the
/// top of a tower are stiffened; the base contact of a 10,000-sphere tower gets k ≈ 9e6 N/m). With
/// InitialMotion::kSliding the spheres of a tower also slide over each other. Throws std::invalid_argument if
/// num_bodies < 0 or the options are out of range.
SyntheticProblem SphereStack(int num_bodies, std::uint64_t seed, const SyntheticOptions& options = {});

/// N boxes (half-extents drawn per axis from the size range), each rotated by a random angle about z, resting on
/// the ground on a square grid with four corner contacts each (nv = 6N, nc = 4N, contacts 4b … 4b+3 belong to
/// box b). The settled penetration of each corner is δ0 = m g / (4 k) (see max_penetration). Throws
/// std::invalid_argument if num_bodies < 0 or the options are out of range.
SyntheticProblem BoxGrid(int num_bodies, std::uint64_t seed, const SyntheticOptions& options = {});

}  // namespace tamsi::synthetic
