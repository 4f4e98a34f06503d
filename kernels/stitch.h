// Stitch constraint (sewing): vertex v is drawn to the point q = (1 - t) a + t b of edge a-b,
//   C = |p_v - q| - L,   grad_v C = n = (p_v - q) / |p_v - q|,   grad_a C = -(1 - t) n,
//   grad_b C = -t n,     W = w_v + (1 - t)^2 w_a + t^2 w_b,
// with L shrinking from the start distance to 0 over the sew time. Solved in the XPBD form
//   dlambda = (-C - at lambda) / (W + at),   dp_i = w_i grad_i C dlambda,
// which with at = 0 and dlambda scaled by k' is the PBD projection. The corrections sum to zero
// when weighted by mass (grad_v + grad_a + grad_b = 0), so a stitch conserves momentum; pinned
// vertices (w = 0) never move. Templated on the scalar, so the reference backend runs it in double.
#pragma once

#include <cstdint>

#include "kernels/hd.h"
#include "kernels/lanes.h"
#include "kernels/views.h"
#include "kernels/xpbd.h"

namespace drape::kernels {

// dlambda of one stitch and the unit direction n; 0 where nothing can move or v already sits on
// its point.
template <class S>
DRAPE_HD DRAPE_INLINE S stitch_dlambda(const Vec3<S>& pv, S wv, const Vec3<S>& pa, S wa,
                                       const Vec3<S>& pb, S wb, S t, S rest, S alpha, S lambda,
                                       Vec3<S>& n) {
  const Vec3<S> d = pv - (pa * (S(1) - t) + pb * t);
  const S len = length(d);
  const S w = wv + (S(1) - t) * (S(1) - t) * wa + t * t * wb;
  if (!(w > S(kEpsilon)) || !(len > S(kEpsilon))) return S(0);
  n = d * (S(1) / len);
  return (-(len - rest) - alpha * lambda) / (w + alpha);
}

// The stitches in colour order: current lengths `rest`, XPBD multipliers `lambda` (unused by PBD).
struct StitchView {
  const std::uint32_t* v;
  const std::uint32_t* a;
  const std::uint32_t* b;
  const float* t;
  const float* rest;
  float* lambda;
};

// Projects stitch k of a colour batch: XPBD with alpha = compliance / dt^2 (k_prime 1), or PBD
// with alpha 0 and the scaled stiffness k_prime.
struct StitchBatch {
  ParticleView s;
  StitchView c;
  float alpha, k_prime;
  bool xpbd;
  DRAPE_HD void operator()(std::uint32_t k) const {
    const std::uint32_t v = c.v[k], a = c.a[k], b = c.b[k];
    const float t = c.t[k];
    Vec3<float> n{0.0f, 0.0f, 0.0f};
    const float dl =
        stitch_dlambda(vec<float>(s.p[v]), s.w[v], vec<float>(s.p[a]), s.w[a], vec<float>(s.p[b]),
                       s.w[b], t, c.rest[k], alpha, xpbd ? c.lambda[k] : 0.0f, n);
    if (xpbd) c.lambda[k] += dl;
    const Vec3<float> step = n * (dl * k_prime);
    s.p[v] += to_glm(step * s.w[v]);
    s.p[a] -= to_glm(step * ((1.0f - t) * s.w[a]));
    s.p[b] -= to_glm(step * (t * s.w[b]));
  }
};

// Current stitch lengths: the start lengths times the fraction left at this substep.
struct StitchLengths {
  const float* start;
  float* rest;
  float fraction;
  DRAPE_HD void operator()(std::uint32_t k) const { rest[k] = start[k] * fraction; }
};

}  // namespace drape::kernels
