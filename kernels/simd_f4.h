// A pack of four floats for the cpu backend's lane-templated kernels (kernels/lanes.h), built on
// GCC/Clang vector extensions (SSE on x86-64, NEON on AArch64). Each operation is the lane-wise
// IEEE float operation, so lane i computes bit for bit what the float kernel computes.
#pragma once

#include <math.h>

#include <cstdint>

#include "kernels/lanes.h"

namespace drape::kernels {

struct F4 {
  typedef float Raw __attribute__((vector_size(16)));
  Raw v;

  static F4 splat(float x) { return {Raw{x, x, x, x}}; }
  // base[stride * index[i]] for the four lanes.
  static F4 gather(const float* base, const std::uint32_t index[4], std::uint32_t stride) {
    return {Raw{base[stride * index[0]], base[stride * index[1]], base[stride * index[2]],
                base[stride * index[3]]}};
  }
  float operator[](int i) const { return v[i]; }
};

struct M4 {
  typedef std::int32_t Raw __attribute__((vector_size(16)));
  Raw v;
};

inline F4 operator+(F4 a, F4 b) {
  return {a.v + b.v};
}
inline F4 operator-(F4 a, F4 b) {
  return {a.v - b.v};
}
inline F4 operator*(F4 a, F4 b) {
  return {a.v * b.v};
}
inline F4 operator/(F4 a, F4 b) {
  return {a.v / b.v};
}
inline F4 operator-(F4 a) {
  return {-a.v};
}
inline F4 operator+(F4 a, float b) {
  return a + F4::splat(b);
}
inline F4 operator*(F4 a, float b) {
  return a * F4::splat(b);
}
inline F4 operator*(float a, F4 b) {
  return F4::splat(a) * b;
}
inline F4 operator/(float a, F4 b) {
  return F4::splat(a) / b;
}

inline F4 lane_sqrt(F4 x) {
  return {F4::Raw{sqrtf(x.v[0]), sqrtf(x.v[1]), sqrtf(x.v[2]), sqrtf(x.v[3])}};
}
inline M4 lane_less(F4 a, F4 b) {
  return {a.v < b.v};
}
inline bool lane_all(M4 mask) {
  return (mask.v[0] & mask.v[1] & mask.v[2] & mask.v[3]) != 0;
}
inline F4 lane_where(M4 mask, F4 a, F4 b) {
  return {mask.v ? a.v : b.v};
}

}  // namespace drape::kernels
