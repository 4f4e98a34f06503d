#include "model/material.h"

#include <array>

namespace drape {

namespace {

// Kawabata (KES-FB) low-stress measurements converted to SI:
//   stretch = 490.3 N/m / EMT  (the secant stiffness at KES's 500 gf/cm tensile load),
//   shear   = G x 56.19 (N/m per radian; G in gf/cm/degree),
//   bend    = B x 9.80665e-5 (N m; B in gf cm^2/cm).
// Denim: sample A of Table 5 in Hossain et al., "Regenerated cellulose-based denim fabric for
// tropical regions", Journal of Textiles 2016 (EMT 5.5%, B 0.172, G 2.18). The others: values
// typical of the class in Kawabata's KES-FB tables (Kawabata, The Standardization and Analysis of
// Hand Evaluation, 2nd ed., 1980), rounded; weights are typical of the class. Damping is not a
// fabric measurement: a velocity decay rate of 1/s, roughly the air drag of a garment at rest.
const std::array<Material, 7> kPresets{{
    {"cotton", 120.0, 490.3 / 0.050, 0.8 * 56.19, 0.080 * 9.80665e-5, 1.0},
    {"denim", 400.0, 490.3 / 0.055, 2.18 * 56.19, 0.172 * 9.80665e-5, 1.0},
    {"silk", 60.0, 490.3 / 0.080, 0.4 * 56.19, 0.030 * 9.80665e-5, 1.0},
    {"jersey", 180.0, 490.3 / 0.250, 0.3 * 56.19, 0.030 * 9.80665e-5, 1.0},
    {"polyester", 100.0, 490.3 / 0.040, 0.6 * 56.19, 0.060 * 9.80665e-5, 1.0},
    {"wool", 250.0, 490.3 / 0.070, 0.5 * 56.19, 0.100 * 9.80665e-5, 1.0},
    {"leather", 800.0, 490.3 / 0.030, 5.0 * 56.19, 2.000 * 9.80665e-5, 1.0},
}};

}  // namespace

std::optional<Material> find_material(const std::string& name) {
  for (const Material& m : kPresets) {
    if (m.name == name) return m;
  }
  return std::nullopt;
}

std::string material_names() {
  std::string names;
  for (const Material& m : kPresets) names += (names.empty() ? "" : ", ") + m.name;
  return names;
}

}  // namespace drape
