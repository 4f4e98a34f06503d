// Timing helpers shared by the benchmark programs.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

#include "drape/scene.h"

namespace drape::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// An n x n grid cloth of `size` metres at `center`, in the XZ plane.
inline Scene grid_scene(int n, double size, const glm::dvec3& center) {
  Scene s;
  s.path = "bench";
  GridDesc g;
  g.nx = g.nz = n;
  g.size_x = g.size_z = size;
  g.center = center;
  s.cloth.grid = g;
  return s;
}

}  // namespace drape::bench
