// Distance constraint (spec section 2, "Stretch" and "Shear"):
//   C(p0, p1) = |p0 - p1| - d0,   grad_p0 C = (p0 - p1) / |p0 - p1| = -grad_p1 C,
//   dp0 = -w0 / (w0 + w1) C n k',  dp1 = +w1 / (w0 + w1) C n k'.
#pragma once

#include <glm/geometric.hpp>

#include "kernels/hd.h"
#include "kernels/views.h"

namespace drape::kernels {

constexpr float kEpsilon = 1e-9f;

DRAPE_HD inline bool distance_correction(glm::vec3 p0, float w0, glm::vec3 p1, float w1,
                                         float rest_length, float k_prime, glm::vec3& dp0,
                                         glm::vec3& dp1) {
  const float w_sum = w0 + w1;
  if (w_sum < kEpsilon) return false;
  const glm::vec3 d = p0 - p1;
  const float length = glm::length(d);
  const glm::vec3 step = ((length - rest_length) * k_prime / (w_sum * (length + kEpsilon))) * d;
  dp0 = -w0 * step;
  dp1 = w1 * step;
  return true;
}

// Projects constraint k of a colour batch in place.
DRAPE_HD inline void project(std::uint32_t k, ParticleView s, DistanceView c, float k_prime) {
  const std::uint32_t a = c.v0[k], b = c.v1[k];
  glm::vec3 da, db;
  if (distance_correction(s.p[a], s.w[a], s.p[b], s.w[b], c.rest_length[k], k_prime, da, db)) {
    s.p[a] += da;
    s.p[b] += db;
  }
}

}  // namespace drape::kernels
