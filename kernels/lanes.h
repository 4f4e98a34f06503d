// Lane types for kernels written once for several widths. A kernel templated on a lane type S
// computes one constraint when S is float (CUDA threads, scalar host loops) and several at once
// when S is a SIMD pack of floats (the cpu backend, kernels/simd_pack.h). The pack type provides
// the same few functions as the float overloads below; every operation is lane-wise IEEE float, so
// a lane of a pack computes exactly what the float version computes.
#pragma once

#include <math.h>

#include "kernels/hd.h"

namespace drape::kernels {

DRAPE_HD inline float lane_sqrt(float x) {
  return sqrtf(x);
}
// where(mask, a, b): a where the mask holds, else b.
DRAPE_HD inline float lane_where(bool mask, float a, float b) {
  return mask ? a : b;
}
DRAPE_HD inline bool lane_less(float a, float b) {
  return a < b;
}
// Whether the mask holds in every lane: lets a kernel skip work that no lane needs.
DRAPE_HD inline bool lane_all(bool mask) {
  return mask;
}

// The same in double, for the reference backend's use of the templated kernels.
DRAPE_HD inline double lane_sqrt(double x) {
  return sqrt(x);
}
DRAPE_HD inline double lane_where(bool mask, double a, double b) {
  return mask ? a : b;
}
DRAPE_HD inline bool lane_less(double a, double b) {
  return a < b;
}

template <class S>
struct Vec3 {
  S x, y, z;
};

template <class S>
DRAPE_HD DRAPE_INLINE Vec3<S> operator+(const Vec3<S>& a, const Vec3<S>& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class S>
DRAPE_HD DRAPE_INLINE Vec3<S> operator-(const Vec3<S>& a, const Vec3<S>& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class S>
DRAPE_HD DRAPE_INLINE Vec3<S> operator-(const Vec3<S>& a) {
  return {-a.x, -a.y, -a.z};
}
template <class S>
DRAPE_HD DRAPE_INLINE Vec3<S> operator*(const Vec3<S>& a, S s) {
  return {a.x * s, a.y * s, a.z * s};
}
template <class S>
DRAPE_HD DRAPE_INLINE Vec3<S> operator*(S s, const Vec3<S>& a) {
  return {s * a.x, s * a.y, s * a.z};
}
template <class S>
DRAPE_HD DRAPE_INLINE S dot(const Vec3<S>& a, const Vec3<S>& b) {
  return (a.x * b.x + a.y * b.y) + a.z * b.z;
}
template <class S>
DRAPE_HD DRAPE_INLINE Vec3<S> cross(const Vec3<S>& a, const Vec3<S>& b) {
  return {a.y * b.z - b.y * a.z, a.z * b.x - b.z * a.x, a.x * b.y - b.x * a.y};
}
template <class S>
DRAPE_HD DRAPE_INLINE S length(const Vec3<S>& a) {
  return lane_sqrt(dot(a, a));
}

}  // namespace drape::kernels
