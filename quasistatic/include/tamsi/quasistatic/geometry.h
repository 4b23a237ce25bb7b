#pragma once
/// @file
/// Planar geometry of the quasi-static model (spec quasistatic.md §7): shapes in their body frame, and the signed
/// gap, normal and witness points of each contact candidate between two posed shapes. Poses are (x, y, θ) in m and
/// rad; a body-frame point p is at (x, y) + Rot(θ) p in the world.

#include <Eigen/Dense>
#include <variant>
#include <vector>

namespace tamsi::quasistatic {

/// A point (a point finger). Its pose's θ is irrelevant.
struct PointShape {};

/// A disk of the given radius (m), centred at the body origin.
struct DiskShape {
  double radius = 1.0;
};

/// A convex polygon, vertices counter-clockwise in the body frame (m).
struct PolygonShape {
  std::vector<Eigen::Vector2d> vertices;
};

/// A solid half-plane {p : nᵀp ≤ offset} in the body frame (a wall or floor). `normal` is the unit outward normal.
struct HalfPlaneShape {
  Eigen::Vector2d normal = Eigen::Vector2d::UnitY();
  double offset = 0.0;
};

using Shape = std::variant<PointShape, DiskShape, PolygonShape, HalfPlaneShape>;

/// Checks a shape: radius > 0; polygon with ≥ 3 vertices, strictly convex and counter-clockwise; unit half-plane
/// normal. @throws std::invalid_argument naming the offending field.
void ValidateShape(const Shape& shape);

/// Builds an axis-aligned rectangle [x_min, x_max] × [y_min, y_max] as a counter-clockwise polygon.
PolygonShape Rectangle(double x_min, double x_max, double y_min, double y_max);

/// One contact candidate between body a and body b.
struct ContactPoint {
  double phi = 0.0;                                   ///< Signed gap (m): > 0 apart, < 0 penetrating.
  Eigen::Vector2d normal = Eigen::Vector2d::UnitY();  ///< World unit normal from a toward b (the gap grows along it).
  Eigen::Vector2d point_a = Eigen::Vector2d::Zero();  ///< World witness point, a material point of a.
  Eigen::Vector2d point_b = Eigen::Vector2d::Zero();  ///< World witness point, a material point of b.
  bool swapped = false;  ///< True when the roles of the pair's bodies were exchanged (a is the pair's second body).
};

/// Number of candidates a pair of shapes generates (fixed for the pair, independent of the poses):
/// disk–point 1; polygon–point 1; polygon–polygon (vertices of each against the other) n_a + n_b;
/// half-plane–point 1, half-plane–disk 1, half-plane–polygon n. Disk–disk 1.
/// @throws std::invalid_argument for an unsupported pair (point–point, disk–polygon, half-plane–half-plane).
int NumContactCandidates(const Shape& first, const Shape& second);

/// Appends the candidates between `first` at `pose_first` and `second` at `pose_second` (poses (x, y, θ)).
/// Gaps: disk–point ‖p − c‖ − r; vertex against a polygon max_k(n̂_kᵀ v − b_k) over the polygon's edges k (the
/// negative penetration depth inside, a lower bound on the distance outside) with the normal of the maximizing
/// edge; half-plane nᵀp − offset. Orientation: the normal points from the body that owns the edge (or the disk or
/// half-plane) toward the other; `swapped` says whether that body is `second`.
void AppendContacts(const Shape& first, const Eigen::Vector3d& pose_first, const Shape& second,
                    const Eigen::Vector3d& pose_second, std::vector<ContactPoint>* out);

/// Rot(θ), 2 × 2.
Eigen::Matrix2d Rotation(double theta);

}  // namespace tamsi::quasistatic
