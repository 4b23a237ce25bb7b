#include "tamsi/quasistatic/geometry.h"

#include <cmath>
#include <stdexcept>

namespace tamsi::quasistatic {
namespace {

Eigen::Vector2d ToWorld(const Eigen::Vector3d& pose, const Eigen::Vector2d& p) {
  return pose.head<2>() + Rotation(pose(2)) * p;
}

// Vertex `v` (world) against polygon `poly` at `pose`: the normal points out of the polygon.
ContactPoint VertexAgainstPolygon(const Eigen::Vector2d& v, const PolygonShape& poly, const Eigen::Vector3d& pose) {
  const int n = static_cast<int>(poly.vertices.size());
  ContactPoint c;
  c.phi = -INFINITY;
  for (int k = 0; k < n; ++k) {
    const Eigen::Vector2d p0 = ToWorld(pose, poly.vertices[k]);
    const Eigen::Vector2d p1 = ToWorld(pose, poly.vertices[(k + 1) % n]);
    const Eigen::Vector2d e = (p1 - p0).normalized();
    const Eigen::Vector2d outward(e.y(), -e.x());
    const double gap = outward.dot(v - p0);
    if (gap > c.phi) {
      c.phi = gap;
      c.normal = outward;
    }
  }
  c.point_b = v;
  c.point_a = v - c.phi * c.normal;
  return c;
}

ContactPoint DiskAgainstPoint(const DiskShape& disk, const Eigen::Vector3d& pose, const Eigen::Vector2d& p) {
  ContactPoint c;
  const Eigen::Vector2d d = p - pose.head<2>();
  const double distance = d.norm();
  c.normal = distance > 0.0 ? Eigen::Vector2d(d / distance) : Eigen::Vector2d::UnitY();
  c.phi = distance - disk.radius;
  c.point_a = pose.head<2>() + disk.radius * c.normal;
  c.point_b = p;
  return c;
}

ContactPoint HalfPlaneAgainstPoint(const HalfPlaneShape& plane, const Eigen::Vector3d& pose, const Eigen::Vector2d& p,
                                   double radius) {
  ContactPoint c;
  c.normal = Rotation(pose(2)) * plane.normal;
  const double offset = plane.offset + c.normal.dot(pose.head<2>());
  c.point_b = p - radius * c.normal;
  c.phi = c.normal.dot(c.point_b) - offset;
  c.point_a = c.point_b - c.phi * c.normal;
  return c;
}

// Candidates with `a` as the normal's origin body; the caller marks them swapped when needed.
void AppendOriented(const Shape& a, const Eigen::Vector3d& pose_a, const Shape& b, const Eigen::Vector3d& pose_b,
                    std::vector<ContactPoint>* out) {
  if (const auto* plane = std::get_if<HalfPlaneShape>(&a)) {
    if (std::holds_alternative<PointShape>(b)) {
      out->push_back(HalfPlaneAgainstPoint(*plane, pose_a, pose_b.head<2>(), 0.0));
    } else if (const auto* disk = std::get_if<DiskShape>(&b)) {
      out->push_back(HalfPlaneAgainstPoint(*plane, pose_a, pose_b.head<2>(), disk->radius));
    } else {
      for (const auto& v : std::get<PolygonShape>(b).vertices) {
        out->push_back(HalfPlaneAgainstPoint(*plane, pose_a, ToWorld(pose_b, v), 0.0));
      }
    }
  } else if (const auto* disk = std::get_if<DiskShape>(&a)) {
    if (const auto* other = std::get_if<DiskShape>(&b)) {
      ContactPoint c = DiskAgainstPoint(*disk, pose_a, pose_b.head<2>());
      c.phi -= other->radius;
      c.point_b -= other->radius * c.normal;
      out->push_back(c);
    } else {
      out->push_back(DiskAgainstPoint(*disk, pose_a, pose_b.head<2>()));
    }
  } else {
    const auto& poly = std::get<PolygonShape>(a);
    out->push_back(VertexAgainstPolygon(pose_b.head<2>(), poly, pose_a));
  }
}

// Rank used to orient a pair: the body with the higher rank owns the normal.
int Rank(const Shape& s) {
  if (std::holds_alternative<HalfPlaneShape>(s)) return 3;
  if (std::holds_alternative<DiskShape>(s)) return 2;
  if (std::holds_alternative<PolygonShape>(s)) return 1;
  return 0;
}

void CheckSupported(const Shape& first, const Shape& second) {
  const int r1 = Rank(first), r2 = Rank(second);
  const bool ok = !(r1 == 0 && r2 == 0) && !(r1 == 3 && r2 == 3) && !((r1 == 1 && r2 == 2) || (r1 == 2 && r2 == 1));
  if (!ok) {
    throw std::invalid_argument(
        "contact pair: unsupported shape combination (point-point, half-plane-half-plane and disk-polygon have no "
        "contact model)");
  }
}

}  // namespace

Eigen::Matrix2d Rotation(double theta) {
  const double c = std::cos(theta), s = std::sin(theta);
  Eigen::Matrix2d R;
  R << c, -s, s, c;
  return R;
}

void ValidateShape(const Shape& shape) {
  if (const auto* disk = std::get_if<DiskShape>(&shape)) {
    if (!(disk->radius > 0.0)) throw std::invalid_argument("DiskShape.radius must be positive");
  } else if (const auto* poly = std::get_if<PolygonShape>(&shape)) {
    const int n = static_cast<int>(poly->vertices.size());
    if (n < 3) throw std::invalid_argument("PolygonShape.vertices needs at least 3 vertices");
    for (int k = 0; k < n; ++k) {
      const Eigen::Vector2d e0 = poly->vertices[(k + 1) % n] - poly->vertices[k];
      const Eigen::Vector2d e1 = poly->vertices[(k + 2) % n] - poly->vertices[(k + 1) % n];
      if (!(e0.x() * e1.y() - e0.y() * e1.x() > 0.0)) {
        throw std::invalid_argument("PolygonShape.vertices must be strictly convex and counter-clockwise");
      }
    }
  } else if (const auto* plane = std::get_if<HalfPlaneShape>(&shape)) {
    if (!(std::abs(plane->normal.norm() - 1.0) < 1e-12)) {
      throw std::invalid_argument("HalfPlaneShape.normal must be a unit vector");
    }
  }
}

PolygonShape Rectangle(double x_min, double x_max, double y_min, double y_max) {
  if (!(x_max > x_min) || !(y_max > y_min)) throw std::invalid_argument("Rectangle: empty extent");
  return PolygonShape{{{x_min, y_min}, {x_max, y_min}, {x_max, y_max}, {x_min, y_max}}};
}

int NumContactCandidates(const Shape& first, const Shape& second) {
  CheckSupported(first, second);
  const auto* p1 = std::get_if<PolygonShape>(&first);
  const auto* p2 = std::get_if<PolygonShape>(&second);
  if (p1 != nullptr && p2 != nullptr) return static_cast<int>(p1->vertices.size() + p2->vertices.size());
  if (std::holds_alternative<HalfPlaneShape>(first) && p2 != nullptr) return static_cast<int>(p2->vertices.size());
  if (std::holds_alternative<HalfPlaneShape>(second) && p1 != nullptr) return static_cast<int>(p1->vertices.size());
  return 1;
}

void AppendContacts(const Shape& first, const Eigen::Vector3d& pose_first, const Shape& second,
                    const Eigen::Vector3d& pose_second, std::vector<ContactPoint>* out) {
  CheckSupported(first, second);
  const auto* p1 = std::get_if<PolygonShape>(&first);
  const auto* p2 = std::get_if<PolygonShape>(&second);
  if (p1 != nullptr && p2 != nullptr) {
    // Vertices of the first against the second polygon (the second owns the normal), then the reverse.
    for (const auto& v : p1->vertices) {
      ContactPoint c = VertexAgainstPolygon(ToWorld(pose_first, v), *p2, pose_second);
      c.swapped = true;
      out->push_back(c);
    }
    for (const auto& v : p2->vertices) out->push_back(VertexAgainstPolygon(ToWorld(pose_second, v), *p1, pose_first));
    return;
  }
  const bool swapped = Rank(second) > Rank(first);
  const size_t begin = out->size();
  if (swapped) {
    AppendOriented(second, pose_second, first, pose_first, out);
  } else {
    AppendOriented(first, pose_first, second, pose_second, out);
  }
  for (size_t i = begin; i < out->size(); ++i) (*out)[i].swapped = swapped;
}

}  // namespace tamsi::quasistatic
