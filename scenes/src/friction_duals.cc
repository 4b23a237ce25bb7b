#include <tamsi/kernels/contact_kernels.h>
#include <tamsi/scenes/friction_duals.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace tamsi::scenes {

void FrictionDuals(const Eigen::VectorXd& vt, double stiction_tolerance, Eigen::VectorXd* w) {
  w->resize(vt.size());
  for (Eigen::Index i = 0; 2 * i < vt.size(); ++i)
    w->segment<2>(2 * i) = kernels::PrimalDualAt(vt.segment<2>(2 * i), stiction_tolerance);
}

std::uint64_t FrictionDualCarry::PairKey(int geom1, int geom2) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(geom1)) << 32) | static_cast<std::uint32_t>(geom2);
}

void FrictionDualCarry::Forget() {
  previous_.clear();
  by_pair_.clear();
}

void FrictionDualCarry::Add(const Remembered& contact) {
  by_pair_.emplace_back(PairKey(contact.geom1, contact.geom2), static_cast<int>(previous_.size()));
  previous_.push_back(contact);
}

void FrictionDualCarry::Remember(const std::vector<ContactInfo>& contacts, const Eigen::VectorXd& vt) {
  Forget();
  for (size_t i = 0; i < contacts.size(); ++i) {
    const ContactInfo& c = contacts[i];
    if (c.kind == ContactInfo::Kind::kGeoms)
      Add({c.geom1, c.geom2, c.position, c.tangent1, c.tangent2, vt.segment<2>(2 * i)});
  }
  std::sort(by_pair_.begin(), by_pair_.end());
}

std::vector<double> FrictionDualCarry::Save() const {
  std::vector<double> record;
  record.reserve(kRecordSize * previous_.size());
  for (const Remembered& r : previous_) {
    record.push_back(r.geom1);
    record.push_back(r.geom2);
    for (const auto* x : {&r.position, &r.tangent1, &r.tangent2}) record.insert(record.end(), x->data(), x->data() + 3);
    record.insert(record.end(), r.vt.data(), r.vt.data() + 2);
  }
  return record;
}

void FrictionDualCarry::Load(const std::vector<double>& record) {
  if (record.size() % kRecordSize != 0) {
    throw std::invalid_argument("friction duals: " + std::to_string(record.size()) +
                                " numbers is not a whole number of contacts of " + std::to_string(kRecordSize));
  }
  Forget();
  for (size_t k = 0; k < record.size(); k += kRecordSize) {
    const double* x = record.data() + k;
    Add({static_cast<int>(x[0]), static_cast<int>(x[1]), Eigen::Vector3d(x + 2), Eigen::Vector3d(x + 5),
         Eigen::Vector3d(x + 8), Eigen::Vector2d(x + 11)});
  }
  std::sort(by_pair_.begin(), by_pair_.end());
}

void FrictionDualCarry::Carry(const std::vector<ContactInfo>& contacts,
                              const std::function<const Eigen::VectorXd&()>& vt_guess, double stiction_tolerance,
                              Eigen::VectorXd* w) const {
  w->resize(2 * static_cast<Eigen::Index>(contacts.size()));
  const Eigen::VectorXd* guess = nullptr;
  for (size_t i = 0; i < contacts.size(); ++i) {
    const ContactInfo& c = contacts[i];
    const Remembered* nearest = nullptr;
    if (c.kind == ContactInfo::Kind::kGeoms) {
      const std::uint64_t key = PairKey(c.geom1, c.geom2);
      double best = std::numeric_limits<double>::infinity();
      for (auto it = std::lower_bound(by_pair_.begin(), by_pair_.end(), std::make_pair(key, -1));
           it != by_pair_.end() && it->first == key; ++it) {
        const Remembered& r = previous_[it->second];
        const double distance = (r.position - c.position).squaredNorm();
        if (distance < best) {
          best = distance;
          nearest = &r;
        }
      }
    }
    if (nearest == nullptr) {
      if (guess == nullptr) guess = &vt_guess();
      w->segment<2>(2 * i) = kernels::PrimalDualAt(guess->segment<2>(2 * i), stiction_tolerance);
      continue;
    }
    const Eigen::Vector2d dual = kernels::PrimalDualAt(nearest->vt, stiction_tolerance);
    const Eigen::Vector3d world = dual[0] * nearest->tangent1 + dual[1] * nearest->tangent2;
    Eigen::Vector2d carried(c.tangent1.dot(world), c.tangent2.dot(world));
    if (carried.norm() > 1.0) carried.normalize();
    w->segment<2>(2 * i) = carried;
  }
}

}  // namespace tamsi::scenes
