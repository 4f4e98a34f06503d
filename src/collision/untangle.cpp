#include "collision/untangle.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <glm/geometric.hpp>

namespace drape {

CrossingSides crossing_sides(const SelfIntersections& found,
                             const std::vector<glm::dvec3>& positions,
                             const std::vector<glm::uvec3>& triangles) {
  CrossingSides out;
  if (found.pairs.empty()) return out;
  const std::size_t n = positions.size();
  out.crossed.assign(n, 0);
  for (const auto& [a, b] : found.pairs) {
    for (int k = 0; k < 3; ++k) {
      out.crossed[triangles[a][k]] = 1;
      out.crossed[triangles[b][k]] = 1;
    }
  }
  struct Entry {
    std::uint32_t vertex, triangle;
    float side;
  };
  std::vector<Entry> entries;
  for (const Piercing& p : found.piercings) {
    const glm::uvec3 t = triangles[p.triangle];
    const glm::dvec3 normal =
        glm::cross(positions[t.y] - positions[t.x], positions[t.z] - positions[t.x]);
    const double hu = glm::dot(positions[p.u] - positions[t.x], normal);
    const double hw = glm::dot(positions[p.w] - positions[t.x], normal);
    const bool u_shallower = std::abs(hu) <= std::abs(hw);
    const double deeper = u_shallower ? hw : hu;
    if (deeper == 0.0) continue;  // the edge lies in the plane: no side to restore
    entries.push_back({u_shallower ? p.u : p.w, p.triangle, deeper > 0.0 ? 1.0f : -1.0f});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.vertex, a.triangle, a.side) < std::tie(b.vertex, b.triangle, b.side);
  });
  out.offsets.assign(n + 1, 0);
  for (std::size_t i = 0; i < entries.size();) {
    std::size_t j = i;
    while (j < entries.size() && entries[j].vertex == entries[i].vertex &&
           entries[j].triangle == entries[i].triangle) {
      ++j;
    }
    // Two edges that disagree about a vertex's side of one triangle: neither is kept.
    if (entries[i].side == entries[j - 1].side) {
      out.triangles.push_back(triangles[entries[i].triangle]);
      out.sides.push_back(entries[i].side);
      ++out.offsets[entries[i].vertex + 1];
    }
    i = j;
  }
  for (std::size_t v = 0; v < n; ++v) out.offsets[v + 1] += out.offsets[v];
  return out;
}

}  // namespace drape
