// XPBD (Macklin, Mueller, Chentanez 2016, "XPBD: Position-Based Simulation of Compliant
// Constrained Dynamics"): each constraint j keeps a Lagrange multiplier lambda_j, reset to 0 at
// the start of every substep, and is projected with its compliance alpha_j (1 / stiffness) as
//   dlambda = (-C - at lambda) / (sum_i w_i |grad_i C|^2 + at),   at = alpha / dt^2,
//   dp_i = w_i grad_i C dlambda,   lambda += dlambda.
// With at = 0 a projection is the PBD one with k' = 1. The functions are templated on the scalar
// (float on the cpu and cuda backends, double on the reference backend), so all three run them.
// Also here: strain limiting after the iterations (Provot 1995), long-range attachments to pins
// (Kim, Chentanez, Mueller 2012) and per-triangle air forces.
#pragma once

#include <cstdint>

#include "kernels/bend.h"
#include "kernels/hd.h"
#include "kernels/lanes.h"
#include "kernels/views.h"

namespace drape::kernels {

template <class S>
DRAPE_HD DRAPE_INLINE Vec3<S> vec(const glm::vec3& v) {
  return {v.x, v.y, v.z};
}
template <class S>
DRAPE_HD DRAPE_INLINE glm::vec3 to_glm(const Vec3<S>& v) {
  return glm::vec3(v.x, v.y, v.z);
}

// Distance constraint C = |p0 - p1| - rest: returns dlambda and the unit direction n = grad_p0 C
// (grad_p1 C = -n). Nothing moves when both ends are pinned.
template <class S>
DRAPE_HD DRAPE_INLINE S xpbd_distance(const Vec3<S>& p0, S w0, const Vec3<S>& p1, S w1, S rest,
                                      S alpha, S lambda, Vec3<S>& n) {
  const Vec3<S> d = p0 - p1;
  const S len = length(d);
  n = d * (S(1) / (len + S(kEpsilon)));
  const S denom = w0 + w1 + alpha;
  if (!(w0 + w1 > S(kEpsilon))) return S(0);
  return (-(len - rest) - alpha * lambda) / denom;
}

// Strain limit: an edge longer than max_length is brought back to it, the ends moving in inverse
// proportion to their masses. False when the edge is short enough or both ends are pinned.
template <class S>
DRAPE_HD DRAPE_INLINE bool strain_limit(const Vec3<S>& p0, S w0, const Vec3<S>& p1, S w1,
                                        S max_length, Vec3<S>& dp0, Vec3<S>& dp1) {
  const S w_sum = w0 + w1;
  if (!(w_sum > S(kEpsilon))) return false;
  const Vec3<S> d = p0 - p1;
  const S len = length(d);
  if (!(len > max_length)) return false;
  const Vec3<S> step = d * ((len - max_length) / (w_sum * len));
  dp0 = -w0 * step;
  dp1 = w1 * step;
  return true;
}

// A vertex further than max_length from its pin is put back on that sphere (only it moves).
template <class S>
DRAPE_HD DRAPE_INLINE bool attach(const Vec3<S>& p, const Vec3<S>& pin, S max_length,
                                  Vec3<S>& out) {
  const Vec3<S> d = p - pin;
  const S len = length(d);
  if (!(len > max_length)) return false;
  out = pin + d * (max_length / len);
  return true;
}

// The air force on a triangle with corners x and velocities v in a wind of `wind` m/s: with the
// relative velocity u (of the centroid, against the wind), the unit normal n, vn = u . n and the
// area A,
//   drag = -1/2 rho c_d A vn |vn| n              (pressure on the plate, along its normal),
//   lift = -1/2 rho c_l A vn |u| (n - (vn / |u|^2) u)
// (perpendicular to u, of size 1/2 rho c_l A |u|^2 cos sin of the angle between n and u).
template <class S>
DRAPE_HD DRAPE_INLINE Vec3<S> air_force(const Vec3<S> x[3], const Vec3<S> v[3], const Vec3<S>& wind,
                                        S density, S drag, S lift) {
  const Vec3<S> c = cross(x[1] - x[0], x[2] - x[0]);
  const S twice_area = length(c);
  const Vec3<S> zero{S(0), S(0), S(0)};
  if (!(twice_area > S(0))) return zero;
  const Vec3<S> n = c * (S(1) / twice_area);
  const Vec3<S> u = (v[0] + v[1] + v[2]) * S(1.0 / 3.0) - wind;
  const S speed2 = dot(u, u);
  if (!(speed2 > S(0))) return zero;
  const S vn = dot(u, n);
  const S half_rho_area = S(0.25) * density * twice_area;
  const S abs_vn = vn < S(0) ? -vn : vn;
  const Vec3<S> f_drag = n * (-half_rho_area * drag * vn * abs_vn);
  const Vec3<S> across = n - u * (vn / speed2);
  return f_drag + across * (-half_rho_area * lift * vn * lane_sqrt(speed2));
}

// Views of the XPBD constraint arrays (colour order): alpha is compliance / dt^2.
struct XpbdDistanceView {
  const std::uint32_t* v0;
  const std::uint32_t* v1;
  const float* rest_length;
  const float* alpha;
  float* lambda;
};

struct XpbdBendView {
  BendView geometry;
  const float* alpha;
  float* lambda;
};

DRAPE_HD inline void project_xpbd(std::uint32_t k, ParticleView s, XpbdDistanceView c) {
  const std::uint32_t a = c.v0[k], b = c.v1[k];
  Vec3<float> n;
  const float dl = xpbd_distance(vec<float>(s.p[a]), s.w[a], vec<float>(s.p[b]), s.w[b],
                                 c.rest_length[k], c.alpha[k], c.lambda[k], n);
  c.lambda[k] += dl;
  s.p[a] += to_glm(n * (s.w[a] * dl));
  s.p[b] -= to_glm(n * (s.w[b] * dl));
}

DRAPE_HD inline void project_xpbd(std::uint32_t k, ParticleView s, XpbdBendView c) {
  const BendView& g = c.geometry;
  const std::uint32_t idx[4] = {g.v1[k], g.v2[k], g.v3[k], g.v4[k]};
  Vec3<float> p[4], q[4];
  float w[4];
  for (int i = 0; i < 4; ++i) {
    p[i] = vec<float>(s.p[idx[i]]);
    w[i] = s.w[idx[i]];
  }
  float dl;
  const float coeff = xpbd_bend_coefficient(p, w, g.rest_angle[k], c.alpha[k], c.lambda[k], q, dl);
  c.lambda[k] += dl;
  for (int i = 0; i < 4; ++i) s.p[idx[i]] += to_glm(q[i] * (w[i] * coeff));
}

// A colour batch of XPBD constraints for a launch layer's for_each (bends: for_each_pack).
template <class View>
struct XpbdBatch {
  ParticleView s;
  View c;
  DRAPE_HD void operator()(std::uint32_t k) const { project_xpbd(k, s, c); }
};

// lambda = 0 for every constraint, at the start of a substep.
struct ZeroLambda {
  float* lambda;
  DRAPE_HD void operator()(std::uint32_t k) const { lambda[k] = 0.0f; }
};

// Strain limiting over a colour batch of stretch edges (rest lengths of the view).
struct StrainLimitBatch {
  ParticleView s;
  DistanceView c;
  float ratio;  // 1 + max_strain
  DRAPE_HD void operator()(std::uint32_t k) const {
    const std::uint32_t a = c.v0[k], b = c.v1[k];
    Vec3<float> da, db;
    if (strain_limit(vec<float>(s.p[a]), s.w[a], vec<float>(s.p[b]), s.w[b],
                     c.rest_length[k] * ratio, da, db)) {
      s.p[a] += to_glm(da);
      s.p[b] += to_glm(db);
    }
  }
};

// Long-range attachments, one vertex each (they move only themselves).
struct AttachToPins {
  ParticleView s;
  const std::uint32_t* pin;  // kNone: no attachment
  const float* length;       // geodesic rest distance to the pin
  float ratio;               // 1 + max_strain
  DRAPE_HD void operator()(std::uint32_t i) const {
    if (pin[i] == kNone) return;
    Vec3<float> out;
    if (attach(vec<float>(s.p[i]), vec<float>(s.p[pin[i]]), length[i] * ratio, out)) {
      s.p[i] = to_glm(out);
    }
  }
};

// The acceleration of vertex i from the air: w_i times a third of the force on each of its
// triangles (a gather, so no two threads write one vertex).
struct AirAcceleration {
  ParticleView s;
  const std::uint32_t* triangles;  // 3 per triangle
  const std::uint32_t* offsets;    // vertex i's triangles: ids[offsets[i], offsets[i + 1])
  const std::uint32_t* ids;
  glm::vec3 wind;
  float density, drag, lift;
  glm::vec3* out;
  DRAPE_HD void operator()(std::uint32_t i) const {
    Vec3<float> sum{0.0f, 0.0f, 0.0f};
    for (std::uint32_t j = offsets[i]; j < offsets[i + 1]; ++j) {
      const std::uint32_t* t = triangles + 3 * ids[j];
      const Vec3<float> x[3] = {vec<float>(s.x[t[0]]), vec<float>(s.x[t[1]]),
                                vec<float>(s.x[t[2]])};
      const Vec3<float> v[3] = {vec<float>(s.v[t[0]]), vec<float>(s.v[t[1]]),
                                vec<float>(s.v[t[2]])};
      sum = sum + air_force(x, v, vec<float>(wind), density, drag, lift);
    }
    out[i] = to_glm(sum * (s.w[i] * (1.0f / 3.0f)));
  }
};

}  // namespace drape::kernels
