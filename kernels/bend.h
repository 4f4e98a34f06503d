// Dihedral bend constraint (spec section 2, "Bending"; Mueller et al. 2006, appendix A), on the
// two triangles sharing edge (p1, p2) with wing vertices p3, p4, and p1 taken as origin:
//   n1 = (p2 x p3) / |p2 x p3|,  n2 = (p2 x p4) / |p2 x p4|,  d = n1 . n2,
//   C = arccos(d) - phi0,
//   q3 = (p2 x n2 + (n1 x p2) d) / |p2 x p3|,  q4 = (p2 x n1 + (n2 x p2) d) / |p2 x p4|,
//   q2 = -(p3 x n2 + (n1 x p3) d) / |p2 x p3| - (p4 x n1 + (n2 x p4) d) / |p2 x p4|,
//   q1 = -q2 - q3 - q4,   (q_i = -dd/dp_i, so grad_i C = q_i / sqrt(1 - d^2))
//   dp_i = -w_i sqrt(1 - d^2) C / (sum_j w_j |q_j|^2) q_i k'.
// d is clamped to [-1, 1] before arccos and the square root.
#pragma once

#include <math.h>

#include <glm/geometric.hpp>

#include "kernels/distance.h"
#include "kernels/hd.h"
#include "kernels/views.h"

namespace drape::kernels {

DRAPE_HD inline bool bend_correction(const glm::vec3 p[4], const float w[4], float rest_angle,
                                     float k_prime, glm::vec3 dp[4]) {
  const glm::vec3 e2 = p[1] - p[0], e3 = p[2] - p[0], e4 = p[3] - p[0];
  const glm::vec3 c23 = glm::cross(e2, e3), c24 = glm::cross(e2, e4);
  const float inv23 = 1.0f / (glm::length(c23) + kEpsilon);
  const float inv24 = 1.0f / (glm::length(c24) + kEpsilon);
  const glm::vec3 n1 = c23 * inv23, n2 = c24 * inv24;
  const float d = glm::dot(n1, n2);
  glm::vec3 q[4];
  q[2] = (glm::cross(e2, n2) + d * glm::cross(n1, e2)) * inv23;
  q[3] = (glm::cross(e2, n1) + d * glm::cross(n2, e2)) * inv24;
  q[1] = -(glm::cross(e3, n2) + d * glm::cross(n1, e3)) * inv23 -
         (glm::cross(e4, n1) + d * glm::cross(n2, e4)) * inv24;
  q[0] = -q[1] - q[2] - q[3];
  float denom = 0.0f;
  for (int i = 0; i < 4; ++i) denom += w[i] * glm::dot(q[i], q[i]);
  if (denom < kEpsilon) return false;
  const float dc = fminf(fmaxf(d, -1.0f), 1.0f);
  const float coeff = sqrtf(1.0f - dc * dc) * (acosf(dc) - rest_angle) / denom * k_prime;
  for (int i = 0; i < 4; ++i) dp[i] = (-w[i] * coeff) * q[i];
  return true;
}

// Projects bend pair k of a colour batch in place.
DRAPE_HD inline void project_bend(std::uint32_t k, ParticleView s, BendView c, float k_prime) {
  const std::uint32_t idx[4] = {c.v1[k], c.v2[k], c.v3[k], c.v4[k]};
  const glm::vec3 p[4] = {s.p[idx[0]], s.p[idx[1]], s.p[idx[2]], s.p[idx[3]]};
  const float w[4] = {s.w[idx[0]], s.w[idx[1]], s.w[idx[2]], s.w[idx[3]]};
  glm::vec3 dp[4];
  if (!bend_correction(p, w, c.rest_angle[k], k_prime, dp)) return;
  for (int i = 0; i < 4; ++i) s.p[idx[i]] += dp[i];
}

}  // namespace drape::kernels
