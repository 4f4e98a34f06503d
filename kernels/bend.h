// Dihedral bend constraint (spec section 2, "Bending"; Mueller et al. 2006, appendix A), on the
// two triangles sharing edge (p1, p2) with wing vertices p3, p4, and p1 taken as origin:
//   n1 = (p2 x p3) / |p2 x p3|,  n2 = (p2 x p4) / |p2 x p4|,  d = n1 . n2,
//   C = arccos(d) - phi0,
//   q3 = (p2 x n2 + (n1 x p2) d) / |p2 x p3|,  q4 = (p2 x n1 + (n2 x p2) d) / |p2 x p4|,
//   q2 = -(p3 x n2 + (n1 x p3) d) / |p2 x p3| - (p4 x n1 + (n2 x p4) d) / |p2 x p4|,
//   q1 = -q2 - q3 - q4,   (q_i = -dd/dp_i, so grad_i C = q_i / sqrt(1 - d^2))
//   dp_i = -w_i sqrt(1 - d^2) C / (sum_j w_j |q_j|^2) q_i k'.
// In float32, arccos(d) and sqrt(1 - d^2) lose half their digits near a flat pair (d = -1, where
// cloth rests): a rounding of 6e-8 in d moves arccos by 3.5e-4 rad. So the kernel takes
// sin = |n1 x n2| and the angle atan2(sin, d) (kernels/angle.h), which equal sqrt(1 - d^2) and
// arccos(d) for unit normals and stay accurate to float precision. Since n1 x p = -(p x n1), the
// q's are evaluated as q3 = p2 x a, q4 = p2 x b, q2 = -(p3 x a) - (p4 x b) with a = (n2 - d n1) /
// |p2 x p3| and b = (n1 - d n2) / |p2 x p4|: four cross products, not eight.
#pragma once

#include <math.h>

#include <glm/geometric.hpp>

#include "kernels/angle.h"
#include "kernels/distance.h"
#include "kernels/hd.h"
#include "kernels/lanes.h"
#include "kernels/views.h"

namespace drape::kernels {

// What both bend models need of a pair, for one lane type S (see kernels/lanes.h): the q's,
// denom = sum w|q|^2, sine = sqrt(1 - d^2) and the angle arccos(d).
template <class S>
struct BendGeometry {
  S denom, sine, angle;
};

template <class S>
DRAPE_HD DRAPE_INLINE BendGeometry<S> bend_geometry(const Vec3<S> p[4], const S w[4],
                                                    Vec3<S> q[4]) {
  const Vec3<S> e2 = p[1] - p[0], e3 = p[2] - p[0], e4 = p[3] - p[0];
  const Vec3<S> c23 = cross(e2, e3), c24 = cross(e2, e4);
  const S inv23 = 1.0f / (length(c23) + kEpsilon);
  const S inv24 = 1.0f / (length(c24) + kEpsilon);
  const Vec3<S> n1 = c23 * inv23, n2 = c24 * inv24;
  const S d = dot(n1, n2);
  const Vec3<S> a = (n2 - d * n1) * inv23, b = (n1 - d * n2) * inv24;
  q[2] = cross(e2, a);
  q[3] = cross(e2, b);
  q[1] = -cross(e3, a) - cross(e4, b);
  q[0] = -q[1] - q[2] - q[3];
  const S denom = ((w[0] * dot(q[0], q[0]) + w[1] * dot(q[1], q[1])) + w[2] * dot(q[2], q[2])) +
                  w[3] * dot(q[3], q[3]);
  const S sine = length(cross(n1, n2));
  return {denom, sine, lane_angle(sine, d)};
}

// PBD: returns the coefficient -sqrt(1 - d^2) C / sum w|q|^2 k' and the q's; the correction of
// vertex i is w_i coeff q_i, and coeff is 0 where the spec skips the pair (sum w|q|^2 < EPSILON).
template <class S>
DRAPE_HD DRAPE_INLINE S bend_coefficient(const Vec3<S> p[4], const S w[4], S rest_angle, S k_prime,
                                         Vec3<S> q[4]) {
  const BendGeometry<S> g = bend_geometry(p, w, q);
  const S coeff = -(g.sine * (g.angle - rest_angle) / g.denom * k_prime);
  const S zero = rest_angle * 0.0f;
  return lane_where(lane_less(g.denom, zero + kEpsilon), zero, coeff);
}

// XPBD (kernels/xpbd.h) with grad_i C = q_i / sine: the correction of vertex i is w_i c q_i and
// the multiplier grows by sine c, where c = sine (-C - alpha lambda) / (sum w|q|^2 +
// alpha sine^2) -- the PBD form multiplied through by sine^2, so that it stays finite at a flat
// pair. alpha is the compliance over dt^2.
template <class S>
DRAPE_HD DRAPE_INLINE S xpbd_bend_coefficient(const Vec3<S> p[4], const S w[4], S rest_angle,
                                              S alpha, S lambda, Vec3<S> q[4], S& dlambda) {
  const BendGeometry<S> g = bend_geometry(p, w, q);
  const S c =
      g.sine * (-(g.angle - rest_angle) - alpha * lambda) / (g.denom + alpha * (g.sine * g.sine));
  const S zero = rest_angle * 0.0f;
  const S coeff = lane_where(lane_less(g.denom, zero + kEpsilon), zero, c);
  dlambda = g.sine * coeff;
  return coeff;
}

DRAPE_HD DRAPE_INLINE bool bend_correction(const glm::vec3 p[4], const float w[4], float rest_angle,
                                           float k_prime, glm::vec3 dp[4]) {
  const Vec3<float> pv[4] = {{p[0].x, p[0].y, p[0].z},
                             {p[1].x, p[1].y, p[1].z},
                             {p[2].x, p[2].y, p[2].z},
                             {p[3].x, p[3].y, p[3].z}};
  Vec3<float> q[4];
  const float coeff = bend_coefficient(pv, w, rest_angle, k_prime, q);
  for (int i = 0; i < 4; ++i) {
    const float s = w[i] * coeff;
    dp[i] = glm::vec3(q[i].x * s, q[i].y * s, q[i].z * s);
  }
  return coeff != 0.0f;
}

// Projects bend pair k of a colour batch in place.
DRAPE_HD inline void project(std::uint32_t k, ParticleView s, BendView c, float k_prime) {
  const std::uint32_t idx[4] = {c.v1[k], c.v2[k], c.v3[k], c.v4[k]};
  const glm::vec3 p[4] = {s.p[idx[0]], s.p[idx[1]], s.p[idx[2]], s.p[idx[3]]};
  const float w[4] = {s.w[idx[0]], s.w[idx[1]], s.w[idx[2]], s.w[idx[3]]};
  glm::vec3 dp[4];
  if (!bend_correction(p, w, c.rest_angle[k], k_prime, dp)) return;
  for (int i = 0; i < 4; ++i) s.p[idx[i]] += dp[i];
}

}  // namespace drape::kernels
