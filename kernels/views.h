// Views over the solver state and the colour-sorted constraint arrays: raw pointers and counts,
// passed to kernels by value. Constraint k of a view is the k-th in colour order.
#pragma once

#include <cstdint>

#include <glm/vec3.hpp>

#include "kernels/hd.h"

namespace drape::kernels {

// No index: an empty bucket, an unassigned colour.
constexpr std::uint32_t kNone = 0xffffffffu;

struct ParticleView {
  glm::vec3* x;    // positions at the start of the substep
  glm::vec3* p;    // predicted positions, projected in place
  glm::vec3* v;    // velocities
  const float* w;  // inverse masses, 0 for pins
  std::uint32_t count;
};

// Stretch (mesh edges) and shear (wing vertices of a bend pair) share the distance constraint.
struct DistanceView {
  const std::uint32_t* v0;
  const std::uint32_t* v1;
  const float* rest_length;
};

struct BendView {
  const std::uint32_t* v1;  // shared edge
  const std::uint32_t* v2;
  const std::uint32_t* v3;  // wing vertices
  const std::uint32_t* v4;
  const float* rest_angle;
};

// A colour batch of one constraint kind, for a launch layer's for_each: constraint k is projected
// in place by that kind's project(k, s, c, k_prime) (kernels/distance.h, kernels/bend.h; on the
// cpu backend, four or eight bend pairs at once by project_pack, kernels/bend_pack.h).
template <class View>
struct ProjectBatch {
  ParticleView s;
  View c;
  float k_prime;
  DRAPE_HD void operator()(std::uint32_t k) const { project(k, s, c, k_prime); }
};

}  // namespace drape::kernels
