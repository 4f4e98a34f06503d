// The angle in [0, pi] whose sine (>= 0) and cosine are given up to a common positive factor,
// i.e. atan2(sine, cosine) for sine >= 0, for the bend kernels (kernels/bend.h). The float lanes
// (CUDA threads, the cpu backend's F4 packs) evaluate it with lane operations only, so a pack
// computes four angles in a few vector instructions, where four calls of libm's atan2f took a
// fifth of the samples of a folded 256² frame; the reference's double lane keeps libm's atan2.
//
// With t = min(sine, |cosine|) / max(sine, |cosine|) in [0, 1], atan(t) = t + t^3 R(t^2), R of
// degree 7 fitted for the least largest error on [0, 1] (7e-9 in exact arithmetic; about 2 units
// in the last place at most in float, 0.3 on average, against atan2 in double). Then
// pi/2 - atan(t) where |cosine| < sine, and pi minus that where cosine < 0, each with pi split in
// two floats so that the result near pi (a flat pair) is rounded once.
#pragma once

#include <math.h>

#include "kernels/hd.h"
#include "kernels/lanes.h"

namespace drape::kernels {

template <class S>
DRAPE_HD DRAPE_INLINE S lane_angle(S sine, S cosine) {
  const S zero = sine * 0.0f;
  const auto obtuse = lane_less(cosine, zero);
  const S abs_cos = lane_where(obtuse, -cosine, cosine);
  const auto steep = lane_less(abs_cos, sine);
  const S big = lane_where(steep, sine, abs_cos);
  const S small = lane_where(steep, abs_cos, sine);
  const S tiny = zero + 1e-30f;
  const S t = small / lane_where(lane_less(big, tiny), tiny, big);
  // Below 1e-4 the terms after t change atan(t) by less than t^2 / 3, under a tenth of its last
  // place: add nothing there, and skip them where no lane needs them (a flat cloth at rest). The
  // terms are taken of t no smaller than 1e-4, as t^8 could be subnormal (an operation on one costs
  // a hundred cycles or more).
  const S least = zero + 1e-4f;
  const auto negligible = lane_less(t, least);
  S angle = t;
  if (!lane_all(negligible)) {
    const S tc = lane_where(negligible, least, t);
    const S s = tc * tc;
    // R(s) in Estrin's form, (c0 + c1 s) + s^2 (c2 + c3 s) + s^4 ((c4 + c5 s) + s^2 (c6 + c7 s)):
    // four steps deep where Horner's is fourteen, so the pair's projection waits less for its
    // angle.
    const S s2 = s * s;
    const S low = (s * 0.1999039649963379f + -0.33332985639572144f) +
                  s2 * (s * 0.10573931783437729f + -0.1418597549200058f);
    const S high = (s * 0.04112184792757034f + -0.07366704940795898f) +
                   s2 * (s * 0.002622242784127593f + -0.015132528729736805f);
    const S r = low + (s2 * s2) * high;
    angle = t + lane_where(negligible, zero, (tc * s) * r);
  }
  angle = lane_where(steep, (-angle + -4.371138828673793e-08f) + 1.5707963705062866f, angle);
  return lane_where(obtuse, (-angle + -8.742277657347586e-08f) + 3.1415927410125732f, angle);
}

DRAPE_HD inline double lane_angle(double sine, double cosine) {
  return atan2(sine, cosine);
}

}  // namespace drape::kernels
