// Packs of four and eight floats for the cpu backend's lane-templated kernels (kernels/lanes.h),
// built on GCC/Clang vector extensions: F4 is one SSE register on x86-64 (NEON on AArch64), F8 one
// AVX register, used only inside functions compiled for AVX (CpuExec::for_each_pack). Each
// operation is the lane-wise IEEE float operation, so lane i computes bit for bit what the float
// kernel computes. Everything is forced inline, so that an AVX caller compiles it for AVX and no
// pack crosses a call (an eight-float vector is passed differently with and without AVX).
#pragma once

#include <math.h>

#include <cstdint>
#include <utility>

#include "kernels/hd.h"
#include "kernels/lanes.h"

namespace drape::kernels {

// The vector types (an attribute's size may not depend on a template parameter).
template <int N>
struct PackTypes;
template <>
struct PackTypes<4> {
  typedef float Float __attribute__((vector_size(16)));
  typedef std::int32_t Mask __attribute__((vector_size(16)));
};
template <>
struct PackTypes<8> {
  typedef float Float __attribute__((vector_size(32)));
  typedef std::int32_t Mask __attribute__((vector_size(32)));
};

template <int N>
struct FloatPack {
  static constexpr int lanes = N;
  using Raw = typename PackTypes<N>::Float;
  Raw v;

  DRAPE_INLINE static FloatPack splat(float x) {
    return splat(x, std::make_integer_sequence<int, N>{});
  }
  // base[stride * index[i]] for the N lanes.
  DRAPE_INLINE static FloatPack gather(const float* base, const std::uint32_t* index,
                                       std::uint32_t stride) {
    return gather(base, index, stride, std::make_integer_sequence<int, N>{});
  }
  DRAPE_INLINE float operator[](int i) const { return v[i]; }

 private:
  template <int... I>
  DRAPE_INLINE static FloatPack splat(float x, std::integer_sequence<int, I...>) {
    return {Raw{(static_cast<void>(I), x)...}};
  }
  template <int... I>
  DRAPE_INLINE static FloatPack gather(const float* base, const std::uint32_t* index,
                                       std::uint32_t stride, std::integer_sequence<int, I...>) {
    return {Raw{base[stride * index[I]]...}};
  }
};

template <int N>
struct MaskPack {
  typename PackTypes<N>::Mask v;
};

// 0, 1, ..., 7: gathers lanes from consecutive entries.
inline constexpr std::uint32_t kLaneIndex[8] = {0, 1, 2, 3, 4, 5, 6, 7};

using F4 = FloatPack<4>;
using F8 = FloatPack<8>;

template <int N>
DRAPE_INLINE FloatPack<N> operator+(FloatPack<N> a, FloatPack<N> b) {
  return {a.v + b.v};
}
template <int N>
DRAPE_INLINE FloatPack<N> operator-(FloatPack<N> a, FloatPack<N> b) {
  return {a.v - b.v};
}
template <int N>
DRAPE_INLINE FloatPack<N> operator*(FloatPack<N> a, FloatPack<N> b) {
  return {a.v * b.v};
}
template <int N>
DRAPE_INLINE FloatPack<N> operator/(FloatPack<N> a, FloatPack<N> b) {
  return {a.v / b.v};
}
template <int N>
DRAPE_INLINE FloatPack<N> operator-(FloatPack<N> a) {
  return {-a.v};
}
template <int N>
DRAPE_INLINE FloatPack<N> operator+(FloatPack<N> a, float b) {
  return a + FloatPack<N>::splat(b);
}
template <int N>
DRAPE_INLINE FloatPack<N> operator*(FloatPack<N> a, float b) {
  return a * FloatPack<N>::splat(b);
}
template <int N>
DRAPE_INLINE FloatPack<N> operator*(float a, FloatPack<N> b) {
  return FloatPack<N>::splat(a) * b;
}
template <int N>
DRAPE_INLINE FloatPack<N> operator/(float a, FloatPack<N> b) {
  return FloatPack<N>::splat(a) / b;
}

template <int N, int... I>
DRAPE_INLINE FloatPack<N> lane_sqrt(FloatPack<N> x, std::integer_sequence<int, I...>) {
  return {typename FloatPack<N>::Raw{sqrtf(x.v[I])...}};
}
template <int N>
DRAPE_INLINE FloatPack<N> lane_sqrt(FloatPack<N> x) {
  return lane_sqrt(x, std::make_integer_sequence<int, N>{});
}
template <int N>
DRAPE_INLINE MaskPack<N> lane_less(FloatPack<N> a, FloatPack<N> b) {
  return {a.v < b.v};
}
template <int N>
DRAPE_INLINE bool lane_all(MaskPack<N> mask) {
  std::int32_t all = mask.v[0];
  for (int i = 1; i < N; ++i) all &= mask.v[i];
  return all != 0;
}
template <int N>
DRAPE_INLINE FloatPack<N> lane_where(MaskPack<N> mask, FloatPack<N> a, FloatPack<N> b) {
  return {mask.v ? a.v : b.v};
}

}  // namespace drape::kernels
