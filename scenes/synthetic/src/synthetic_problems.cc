#include <tamsi/synthetic/synthetic_problems.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace tamsi::synthetic {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// Uniform doubles from a 64-bit Mersenne Twister, mapped by hand so that values do not depend on the standard
/// library's distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  /// Uniform in [0, 1).
  double Uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// Uniform in [lo, hi).
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform01(); }
  /// A uniformly distributed rotation (Shoemake's method).
  Eigen::Matrix3d Rotation() {
    const double u1 = Uniform01(), u2 = Uniform01(), u3 = Uniform01();
    const double a = std::sqrt(1.0 - u1), b = std::sqrt(u1);
    const Eigen::Quaterniond q(b * std::cos(2 * kPi * u3), a * std::sin(2 * kPi * u2), a * std::cos(2 * kPi * u2),
                               b * std::sin(2 * kPi * u3));
    return q.normalized().toRotationMatrix();
  }

 private:
  std::mt19937_64 engine_;
};

void CheckRange(const char* name, double lo, double hi, bool allow_zero) {
  const bool ok = std::isfinite(lo) && std::isfinite(hi) && lo <= hi && (allow_zero ? lo >= 0.0 : lo > 0.0);
  if (!ok)
    throw std::invalid_argument(std::string("SyntheticOptions.") + name + ": need finite " +
                                (allow_zero ? "0 ≤ min ≤ max" : "0 < min ≤ max") + ", got [" + std::to_string(lo) +
                                ", " + std::to_string(hi) + "]");
}

void CheckInputs(int num_bodies, const SyntheticOptions& o) {
  if (num_bodies < 0) throw std::invalid_argument("num_bodies must be ≥ 0, got " + std::to_string(num_bodies));
  if (!(o.time_step > 0.0) || !std::isfinite(o.time_step))
    throw std::invalid_argument("SyntheticOptions.time_step: must be finite and > 0");
  if (!(o.gravity >= 0.0) || !std::isfinite(o.gravity))
    throw std::invalid_argument("SyntheticOptions.gravity: must be finite and ≥ 0");
  CheckRange("size", o.min_size, o.max_size, false);
  CheckRange("mass", o.min_mass, o.max_mass, false);
  CheckRange("stiffness", o.min_stiffness, o.max_stiffness, false);
  CheckRange("dissipation", o.min_dissipation, o.max_dissipation, true);
  CheckRange("friction", o.min_friction, o.max_friction, true);
  if (!(o.max_sliding_speed >= 0.0) || !std::isfinite(o.max_sliding_speed))
    throw std::invalid_argument("SyntheticOptions.max_sliding_speed: must be finite and ≥ 0");
  if (!(o.inertia_anisotropy >= 0.0 && o.inertia_anisotropy < 1.0))
    throw std::invalid_argument("SyntheticOptions.inertia_anisotropy: must be in [0, 1)");
  if (!(o.max_penetration > 0.0) || !std::isfinite(o.max_penetration))
    throw std::invalid_argument("SyntheticOptions.max_penetration: must be finite and > 0");
  if (o.tower_height < 0) throw std::invalid_argument("SyntheticOptions.tower_height: must be ≥ 0");
}

/// Orthonormal tangents of a unit normal n with t1 × t2 = n.
void TangentBasis(const Eigen::Vector3d& n, Eigen::Vector3d* t1, Eigen::Vector3d* t2) {
  Eigen::Index axis;
  n.cwiseAbs().minCoeff(&axis);
  *t1 = n.cross(Eigen::Vector3d::Unit(axis)).normalized();
  *t2 = n.cross(*t1);
}

/// Per-contact material and penetration.
struct ContactData {
  double stiffness, dissipation, friction, delta0;
};

/// Sets δ0 = W / k for the static load W (N), stiffening the contact to W / max_penetration if δ0 would exceed it.
void Settle(double load, const SyntheticOptions& o, ContactData* c) {
  c->stiffness = std::max(c->stiffness, load / o.max_penetration);
  c->delta0 = load / c->stiffness;
}

ContactData DrawContact(Rng* rng, const SyntheticOptions& o) {
  ContactData c;
  c.stiffness = rng->Uniform(o.min_stiffness, o.max_stiffness);
  c.dissipation = rng->Uniform(o.min_dissipation, o.max_dissipation);
  c.friction = rng->Uniform(o.min_friction, o.max_friction);
  c.delta0 = 0.0;
  return c;
}

/// A sphere (radius, mass, orientation, inertia; position left at the origin): principal moments
/// 2/5 m r² (1 + a ξ) about random axes.
Body DrawSphere(Rng* rng, const SyntheticOptions& o) {
  Body b;
  const double r = rng->Uniform(o.min_size, o.max_size);
  b.mass = rng->Uniform(o.min_mass, o.max_mass);
  b.size = Eigen::Vector3d::Constant(r);
  b.rotation = rng->Rotation();
  Eigen::Vector3d moments;
  for (int k = 0; k < 3; ++k) moments[k] = 0.4 * b.mass * r * r * (1.0 + o.inertia_anisotropy * rng->Uniform(-1, 1));
  b.inertia = b.rotation * moments.asDiagonal() * b.rotation.transpose();
  b.inertia = 0.5 * (b.inertia + b.inertia.transpose()).eval();
  b.position.setZero();
  return b;
}

/// Horizontal grid position of item `index` of `count`, spaced `pitch` apart, centered on the origin.
Eigen::Vector2d GridPosition(int index, int count, double pitch) {
  const int side = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(count)))));
  const double offset = 0.5 * (side - 1) * pitch;
  return {(index % side) * pitch - offset, (index / side) * pitch - offset};
}

/// v0: zero, or random horizontal linear velocities of speed ≤ max_sliding_speed (uniform in the disk).
Eigen::VectorXd DrawInitialVelocities(Rng* rng, int num_bodies, const SyntheticOptions& o) {
  Eigen::VectorXd v0 = Eigen::VectorXd::Zero(6 * num_bodies);
  if (o.motion == InitialMotion::kSliding) {
    for (int b = 0; b < num_bodies; ++b) {
      const double speed = o.max_sliding_speed * std::sqrt(rng->Uniform01());
      const double angle = 2 * kPi * rng->Uniform01();
      v0[6 * b] = speed * std::cos(angle);
      v0[6 * b + 1] = speed * std::sin(angle);
    }
  }
  return v0;
}

/// Adds the 1 × 6 row uᵀ[I, −[r]×] = [uᵀ, (r × u)ᵀ] times `sign` on the columns of `body`; exact zeros are skipped.
void AddRow(std::vector<Eigen::Triplet<double>>* triplets, int row, int body, const Eigen::Vector3d& u,
            const Eigen::Vector3d& r, double sign) {
  const Eigen::Vector3d angular = r.cross(u);
  for (int k = 0; k < 3; ++k) {
    if (u[k] != 0.0) triplets->emplace_back(row, 6 * body + k, sign * u[k]);
    if (angular[k] != 0.0) triplets->emplace_back(row, 6 * body + 3 + k, sign * angular[k]);
  }
}

/// Builds the ContactProblem of the bodies and contacts (see the header for the conventions).
SyntheticProblem Build(std::vector<Body> bodies, std::vector<Contact> contacts, const std::vector<ContactData>& data,
                       const Eigen::VectorXd& v0, const SyntheticOptions& o) {
  const int nb = static_cast<int>(bodies.size());
  const int nc = static_cast<int>(contacts.size());
  const int nv = 6 * nb;
  SyntheticProblem out;
  ContactProblem& p = out.problem;
  p.time_step = o.time_step;

  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(12 * nb);
  for (int b = 0; b < nb; ++b) {
    for (int k = 0; k < 3; ++k) triplets.emplace_back(6 * b + k, 6 * b + k, bodies[b].mass);
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) triplets.emplace_back(6 * b + 3 + i, 6 * b + 3 + j, bodies[b].inertia(i, j));
  }
  p.M.resize(nv, nv);
  p.M.setFromTriplets(triplets.begin(), triplets.end());
  p.M.makeCompressed();

  std::vector<Eigen::Triplet<double>> jn, jt;
  jn.reserve(12 * nc);
  jt.reserve(24 * nc);
  for (int i = 0; i < nc; ++i) {
    Contact& c = contacts[i];
    TangentBasis(c.normal, &c.tangent1, &c.tangent2);
    const Eigen::Vector3d* directions[3] = {&c.normal, &c.tangent1, &c.tangent2};
    for (int side = 0; side < 2; ++side) {
      const int body = side == 0 ? c.body_b : c.body_a;
      if (body < 0) continue;
      const double sign = side == 0 ? 1.0 : -1.0;
      const Eigen::Vector3d r = c.point - bodies[body].position;
      AddRow(&jn, i, body, *directions[0], r, sign);
      AddRow(&jt, 2 * i, body, *directions[1], r, sign);
      AddRow(&jt, 2 * i + 1, body, *directions[2], r, sign);
    }
  }
  p.Jn.resize(nc, nv);
  p.Jn.setFromTriplets(jn.begin(), jn.end());
  p.Jn.makeCompressed();
  p.Jt.resize(2 * nc, nv);
  p.Jt.setFromTriplets(jt.begin(), jt.end());
  p.Jt.makeCompressed();

  Eigen::VectorXd tau = Eigen::VectorXd::Zero(nv);
  for (int b = 0; b < nb; ++b) tau[6 * b + 2] = -bodies[b].mass * o.gravity;
  p.p_star = p.M * v0 + o.time_step * tau;
  p.v0 = v0;
  p.delta0.resize(nc);
  p.stiffness.resize(nc);
  p.dissipation.resize(nc);
  p.friction.resize(nc);
  for (int i = 0; i < nc; ++i) {
    p.delta0[i] = data[i].delta0;
    p.stiffness[i] = data[i].stiffness;
    p.dissipation[i] = data[i].dissipation;
    p.friction[i] = data[i].friction;
  }
  out.bodies = std::move(bodies);
  out.contacts = std::move(contacts);
  return out;
}

}  // namespace

SyntheticProblem SpheresOnPlane(int num_bodies, std::uint64_t seed, const SyntheticOptions& options) {
  CheckInputs(num_bodies, options);
  Rng rng(seed);
  const double pitch = 2.5 * options.max_size;
  std::vector<Body> bodies(num_bodies);
  std::vector<Contact> contacts(num_bodies);
  std::vector<ContactData> data(num_bodies);
  for (int b = 0; b < num_bodies; ++b) {
    bodies[b] = DrawSphere(&rng, options);
    data[b] = DrawContact(&rng, options);
    const double r = bodies[b].size[0];
    Settle(bodies[b].mass * options.gravity, options, &data[b]);
    const Eigen::Vector2d xy = GridPosition(b, num_bodies, pitch);
    bodies[b].position = {xy.x(), xy.y(), r - data[b].delta0};
    contacts[b].body_a = -1;
    contacts[b].body_b = b;
    contacts[b].normal = Eigen::Vector3d::UnitZ();
    contacts[b].point = {xy.x(), xy.y(), -0.5 * data[b].delta0};
  }
  const Eigen::VectorXd v0 = DrawInitialVelocities(&rng, num_bodies, options);
  return Build(std::move(bodies), std::move(contacts), data, v0, options);
}

SyntheticProblem SphereStack(int num_bodies, std::uint64_t seed, const SyntheticOptions& options) {
  CheckInputs(num_bodies, options);
  Rng rng(seed);
  const int height = options.tower_height > 0 ? options.tower_height : std::max(num_bodies, 1);
  const int num_towers = (num_bodies + height - 1) / height;
  const double pitch = 2.5 * options.max_size;
  std::vector<Body> bodies(num_bodies);
  std::vector<Contact> contacts(num_bodies);
  std::vector<ContactData> data(num_bodies);
  for (int b = 0; b < num_bodies; ++b) {
    bodies[b] = DrawSphere(&rng, options);
    data[b] = DrawContact(&rng, options);
  }
  for (int tower = 0; tower < num_towers; ++tower) {
    const int first = tower * height;
    const int last = std::min(first + height, num_bodies);  // one past the top sphere
    const Eigen::Vector2d xy = GridPosition(tower, num_towers, pitch);
    // Load on contact b: the weight of spheres b … last − 1.
    double load = 0.0;
    for (int b = last - 1; b >= first; --b) {
      load += bodies[b].mass * options.gravity;
      Settle(load, options, &data[b]);
    }
    double z_bottom = 0.0;  // top of the body below (the ground's surface first)
    for (int b = first; b < last; ++b) {
      const double r = bodies[b].size[0];
      const double delta = data[b].delta0;
      bodies[b].position = {xy.x(), xy.y(), z_bottom + r - delta};
      contacts[b].body_a = b == first ? -1 : b - 1;
      contacts[b].body_b = b;
      contacts[b].normal = Eigen::Vector3d::UnitZ();
      contacts[b].point = {xy.x(), xy.y(), z_bottom - 0.5 * delta};
      z_bottom = bodies[b].position.z() + r;
    }
  }
  const Eigen::VectorXd v0 = DrawInitialVelocities(&rng, num_bodies, options);
  return Build(std::move(bodies), std::move(contacts), data, v0, options);
}

SyntheticProblem BoxGrid(int num_bodies, std::uint64_t seed, const SyntheticOptions& options) {
  CheckInputs(num_bodies, options);
  Rng rng(seed);
  const double pitch = 2.0 * std::sqrt(2.0) * options.max_size * 1.25;
  std::vector<Body> bodies(num_bodies);
  std::vector<Contact> contacts(4 * num_bodies);
  std::vector<ContactData> data(4 * num_bodies);
  for (int b = 0; b < num_bodies; ++b) {
    Body& body = bodies[b];
    for (int k = 0; k < 3; ++k) body.size[k] = rng.Uniform(options.min_size, options.max_size);
    body.mass = rng.Uniform(options.min_mass, options.max_mass);
    body.rotation = Eigen::AngleAxisd(2 * kPi * rng.Uniform01(), Eigen::Vector3d::UnitZ()).toRotationMatrix();
    const Eigen::Vector3d e2 = body.size.cwiseAbs2();
    const Eigen::Vector3d moments =
        body.mass / 3.0 * Eigen::Vector3d(e2.y() + e2.z(), e2.x() + e2.z(), e2.x() + e2.y());
    body.inertia = body.rotation * moments.asDiagonal() * body.rotation.transpose();
    body.inertia = 0.5 * (body.inertia + body.inertia.transpose()).eval();

    ContactData corner = DrawContact(&rng, options);
    Settle(0.25 * body.mass * options.gravity, options, &corner);
    const Eigen::Vector2d xy = GridPosition(b, num_bodies, pitch);
    body.position = {xy.x(), xy.y(), body.size.z() - corner.delta0};
    for (int j = 0; j < 4; ++j) {
      const Eigen::Vector3d local((j & 1) ? body.size.x() : -body.size.x(), (j & 2) ? body.size.y() : -body.size.y(),
                                  -body.size.z());
      Contact& c = contacts[4 * b + j];
      c.body_a = -1;
      c.body_b = b;
      c.normal = Eigen::Vector3d::UnitZ();
      c.point = body.position + body.rotation * local + 0.5 * corner.delta0 * c.normal;
      data[4 * b + j] = corner;
    }
  }
  const Eigen::VectorXd v0 = DrawInitialVelocities(&rng, num_bodies, options);
  return Build(std::move(bodies), std::move(contacts), data, v0, options);
}

}  // namespace tamsi::synthetic
