#pragma once
/// @file
/// The primal–dual friction duals w (ContactProblem::w_guess) carried from one step's contacts to the next step's,
/// so that a contact that persists starts its Newton iteration where its friction ended (FrictionNewton::kPrimalDual).

#include <tamsi/scenes/mujoco_frontend.h>

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace tamsi::scenes {

/// The primal–dual iteration's duals at tangential velocities vt (2nc, m/s): wᵢ = vtᵢ/max(v_s, ‖vtᵢ‖), into `w`.
void FrictionDuals(const Eigen::VectorXd& vt, double stiction_tolerance, Eigen::VectorXd* w);

/// Carries friction duals between the contact lists of consecutive steps. Reuse one object: its scratch keeps its
/// capacity, so steady steps allocate nothing.
class FrictionDualCarry {
 public:
  /// Remembers the step just solved: its contacts (ContactProblemBuilder::contacts) and the final tangential
  /// velocities vt (2nc, m/s, in those contacts' frames). Its duals are w = vt/max(v_s, ‖vt‖), the primal–dual
  /// iteration's value at a solution (Options::friction_newton).
  void Remember(const std::vector<ContactInfo>& contacts, const Eigen::VectorXd& vt);
  /// Forgets the remembered step (a reset, or a state changed from outside).
  void Forget();

  /// The first duals of the next step's `contacts` (2nc into `w`). A geom contact takes the dual of the remembered
  /// contact of the same geom pair nearest to it, turned from that contact's tangent frame into its own (a vector in
  /// the tangent plane, projected; ‖w‖ ≤ 1 holds). Limits and contacts without a match take the first-iterate value
  /// vt/max(v_s, ‖vt‖) with vt = `vt_guess()` (2nc, m/s), as the solver would; `vt_guess` is called at most once, and
  /// only when such a contact is there (a product with Jt that steady contacts need not pay).
  void Carry(const std::vector<ContactInfo>& contacts, const std::function<const Eigen::VectorXd&()>& vt_guess,
             double stiction_tolerance, Eigen::VectorXd* w) const;

  /// The remembered step as numbers (a checkpoint's record): per geom contact geom1, geom2, position (3), t₁ (3),
  /// t₂ (3), vt (2).
  std::vector<double> Save() const;
  /// Remembers what Save wrote. Throws std::invalid_argument when its size is not a whole number of contacts.
  void Load(const std::vector<double>& record);

 private:
  struct Remembered {
    int geom1, geom2;
    Eigen::Vector3d position, tangent1, tangent2;
    Eigen::Vector2d vt;
  };
  static constexpr int kRecordSize = 13;  // Save's numbers per contact
  static std::uint64_t PairKey(int geom1, int geom2);
  void Add(const Remembered& contact);
  std::vector<Remembered> previous_;
  std::vector<std::pair<std::uint64_t, int>> by_pair_;  // (PairKey, index into previous_), sorted
};

}  // namespace tamsi::scenes
