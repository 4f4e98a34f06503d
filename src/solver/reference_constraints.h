// Double-precision constraint projections of the reference backend, written as the spec's
// Python writes them (spec section 2, "Constraint Projections"), including where EPSILON enters.
// Each function is stateless: positions, inverse masses, rest value and scaled stiffness k' in,
// position corrections out. It returns false when the constraint is skipped.
#pragma once

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

namespace drape::reference {

constexpr double kEpsilon = 1e-9;

// Distance constraint C(p0, p1) = |p0 - p1| - d0, gradient +-(p0 - p1)/|p0 - p1|.
// Used for stretch (mesh edges) and shear (wing vertices of a bend pair).
inline bool distance_correction(const glm::dvec3& p0, double w0, const glm::dvec3& p1, double w1,
                                double rest_length, double k_prime, glm::dvec3& dp0,
                                glm::dvec3& dp1) {
  if (w0 + w1 < kEpsilon) return false;
  const double length = glm::length(p0 - p1);
  const double diff = length - rest_length;
  const glm::dvec3 n = (p0 - p1) / (length + kEpsilon);
  dp0 = -w0 / (w0 + w1) * diff * n * k_prime;
  dp1 = w1 / (w0 + w1) * diff * n * k_prime;
  return true;
}

// The bend directions q_i of Mueller et al. 2006, appendix A, with p1 as origin:
// q_i = -d(n1 . n2)/dp_i, so grad C_bend = q_i / sqrt(1 - d^2). Also returns d = n1 . n2.
inline double bend_directions(const glm::dvec3& p1, const glm::dvec3& p2, const glm::dvec3& p3,
                              const glm::dvec3& p4, glm::dvec3 q[4]) {
  const glm::dvec3 e2 = p2 - p1, e3 = p3 - p1, e4 = p4 - p1;
  const double len23 = glm::length(glm::cross(e2, e3));
  const double len24 = glm::length(glm::cross(e2, e4));
  const glm::dvec3 n1 = glm::cross(e2, e3) / (len23 + kEpsilon);
  const glm::dvec3 n2 = glm::cross(e2, e4) / (len24 + kEpsilon);
  const double d = glm::dot(n1, n2);
  q[2] = (glm::cross(e2, n2) + d * glm::cross(n1, e2)) / (len23 + kEpsilon);
  q[3] = (glm::cross(e2, n1) + d * glm::cross(n2, e2)) / (len24 + kEpsilon);
  q[1] = -(glm::cross(e3, n2) + d * glm::cross(n1, e3)) / (len23 + kEpsilon) -
         (glm::cross(e4, n1) + d * glm::cross(n2, e4)) / (len24 + kEpsilon);
  q[0] = -q[1] - q[2] - q[3];
  return d;
}

// Bend constraint C(p1..p4) = arccos(n1 . n2) - phi0 on the pair sharing edge (p1, p2);
// dp_i = -w_i sqrt(1 - d^2) (arccos d - phi0) / sum_j w_j |q_j|^2 * q_i * k'.
// d is clamped to [-1, 1] before arccos and the square root, so rounding never yields NaN.
inline bool bend_correction(const glm::dvec3 p[4], const double w[4], double rest_angle,
                            double k_prime, glm::dvec3 dp[4]) {
  glm::dvec3 q[4];
  const double d = bend_directions(p[0], p[1], p[2], p[3], q);
  const double dc = std::clamp(d, -1.0, 1.0);
  const double diff_angle = std::acos(dc) - rest_angle;
  double denom = 0.0;
  for (int i = 0; i < 4; ++i) denom += w[i] * glm::dot(q[i], q[i]);
  if (denom < kEpsilon) return false;
  const double coeff = (std::sqrt(1.0 - dc * dc) * diff_angle / denom) * k_prime;
  for (int i = 0; i < 4; ++i) dp[i] = -w[i] * q[i] * coeff;
  return true;
}

// Barycentric weights (u, v, w) of a, b, c for a point q of the triangle's plane.
inline void barycentric(const glm::dvec3& q, const glm::dvec3& a, const glm::dvec3& b,
                        const glm::dvec3& c, double& u, double& v, double& w) {
  const glm::dvec3 e0 = b - a, e1 = c - a, e2 = q - a;
  const double d00 = glm::dot(e0, e0), d01 = glm::dot(e0, e1), d11 = glm::dot(e1, e1);
  const double d20 = glm::dot(e2, e0), d21 = glm::dot(e2, e1);
  const double denom = d00 * d11 - d01 * d01;
  v = (d11 * d20 - d01 * d21) / denom;
  w = (d00 * d21 - d01 * d20) / denom;
  u = 1.0 - v - w;
}

// Point-triangle self-collision, resolve_point_triangle_collision of spec section 3: a point
// within `thickness` of the plane of triangle abc (corners a, b, c) and projecting inside it is
// pushed by (thickness - d) along the normal turned towards it, scaled by w_p / (w_p + w_abc);
// the corners move the opposite way, scaled by w_abc / (w_p + w_abc) and their barycentric weights
// (w_abc = w_a + w_b + w_c). Kept as written, including the push for a point below the plane
// (d < 0), which is thickness + |d| and so overshoots the thickness by 2|d|. A triangle of zero
// area (where the spec would divide by zero) is skipped. dp = {point, a, b, c}.
inline bool point_triangle_correction(const glm::dvec3& p, double w_p, const glm::dvec3 abc[3],
                                      const double w_abc[3], double thickness, glm::dvec3 dp[4]) {
  const double w_tri = w_abc[0] + w_abc[1] + w_abc[2];
  const double total_w = w_p + w_tri;
  if (total_w < kEpsilon) return false;
  const glm::dvec3 normal = glm::cross(abc[1] - abc[0], abc[2] - abc[0]);
  const double length = glm::length(normal);
  if (!(length > 0.0)) return false;
  const glm::dvec3 unit = normal / length;
  const double distance = glm::dot(p - abc[0], unit);
  if (!(std::abs(distance) < thickness)) return false;
  double u, v, w;
  barycentric(p - distance * unit, abc[0], abc[1], abc[2], u, v, w);
  if (!(u >= 0.0 && v >= 0.0 && w >= 0.0)) return false;
  const glm::dvec3 push = (thickness - distance) * (distance > 0.0 ? unit : -unit);
  dp[0] = push * (w_p / total_w);
  const glm::dvec3 back = push * (w_tri / total_w);
  dp[1] = -back * u;
  dp[2] = -back * v;
  dp[3] = -back * w;
  return true;
}

}  // namespace drape::reference
