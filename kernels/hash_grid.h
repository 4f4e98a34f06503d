// A uniform grid hashed to a power-of-two bucket table, built by sorting items by bucket (Thrust's
// sort_by_key, on the device or on host threads) and queried per item: the spatial-hash pipeline
// of cell ids, sort, run bounds, query. The self-collision broad phase hashes each vertex's group
// by its bounding sphere.
//
// Completeness: a query finds every item whose key point lies within one cell along each axis.
// The solver makes a cell at least as wide as the query's reach: two group radii plus the search
// radius, since two groups hold a pair within the search radius only if their spheres come that
// close. So no pair within the search radius is missed.
#pragma once

#include <cmath>
#include <cstdint>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "kernels/geometry.h"
#include "kernels/hd.h"
#include "kernels/views.h"

namespace drape::kernels {

// Cells are clamped to +-2^30 so that a vertex thrown far away cannot overflow the cell index.
DRAPE_HD inline glm::ivec3 cell_of(const glm::vec3& p, float inv_cell) {
  const auto axis = [inv_cell](float x) {
    return static_cast<int>(clampf(floorf(x * inv_cell), -1073741824.0f, 1073741824.0f));
  };
  return {axis(p.x), axis(p.y), axis(p.z)};
}

// A 32-bit mix of the three cell coordinates (MurmurHash3's finaliser over a linear combination).
DRAPE_HD inline std::uint32_t bucket_of(const glm::ivec3& c, std::uint32_t mask) {
  std::uint32_t h = static_cast<std::uint32_t>(c.x) * 73856093u ^
                    static_cast<std::uint32_t>(c.y) * 19349663u ^
                    static_cast<std::uint32_t>(c.z) * 83492791u;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h & mask;
}

// A bucket table over items sorted by bucket: bucket b holds sorted entries [runs[b].x, runs[b].y),
// runs[b].x = kNone when empty (start and end side by side: a query's lookup is one load). Each
// entry carries its item's bounding sphere (centre = the hashed point, radius).
struct HashGridView {
  float inv_cell = 1.0f;
  std::uint32_t mask = 0;
  const glm::uvec2* runs = nullptr;
  const std::uint32_t* keys = nullptr;   // each entry's bucket, in bucket order
  const std::uint32_t* items = nullptr;  // item ids in bucket order
  const glm::vec4* spheres = nullptr;    // in bucket order
};

// Sorted entry i marks where its run of equal keys starts and ends (run-length bounds after a
// sort) in the table of a hash grid.
DRAPE_HD inline void mark_run(std::uint32_t i, const std::uint32_t* sorted_keys, std::uint32_t n,
                              glm::uvec2* runs) {
  const std::uint32_t key = sorted_keys[i];
  if (i == 0 || sorted_keys[i - 1] != key) runs[key].x = i;
  if (i + 1 == n || sorted_keys[i + 1] != key) runs[key].y = i + 1;
}

// Calls f(run) once for every non-empty bucket a query for the sphere `q` within `reach` must
// read, given that no item's radius exceeds `item_radius` and cells are at least q.w + item_radius
// + reach wide: the buckets of the 27 cells around q's centre (only those of cells that the box of
// that half-width overlaps: the others hold nothing within reach), each bucket once, in a fixed
// order. A bucket may also hold items of other cells. With `once` false, a bucket that two of
// those cells share is given for each (for callers that only take a union, which it does not
// change: they skip the check).
template <bool once = true, class F>
DRAPE_HD void for_each_bucket_near(const HashGridView& g, const glm::vec4& q, float reach,
                                   float item_radius, F f) {
  const glm::vec3 centre(q.x, q.y, q.z);
  const glm::ivec3 cell = cell_of(centre, g.inv_cell);
  const glm::vec3 box(q.w + item_radius + reach);
  const glm::ivec3 lo = glm::max(cell_of(centre - box, g.inv_cell), cell - glm::ivec3(1));
  const glm::ivec3 hi = glm::min(cell_of(centre + box, g.inv_cell), cell + glm::ivec3(1));
  std::uint32_t seen[27];
  int visited = 0;
  for (int z = lo.z; z <= hi.z; ++z) {
    for (int y = lo.y; y <= hi.y; ++y) {
      for (int x = lo.x; x <= hi.x; ++x) {
        const std::uint32_t b = bucket_of(glm::ivec3(x, y, z), g.mask);
        const glm::uvec2 run = g.runs[b];
        if (run.x == kNone) continue;
        if constexpr (once) {
          bool again = false;
          for (int k = 0; k < visited; ++k) again = again || seen[k] == b;
          if (again) continue;
          seen[visited++] = b;
        }
        f(run);
      }
    }
  }
}

// Appends to out[n], out[n + 1], ... every item of the bucket run `run` above `after` whose
// bounding sphere comes within `reach` of the sphere `q`: over the runs for_each_bucket_near gives,
// each item within reach once. A bucket's items are in ascending id order (the sort is stable), so
// they are read from the top down until `after`. Whenever n reaches `capacity`, full() is called
// and must empty out (set n to 0). Each entry is written and n advances only where it is near: no
// branch on the sphere test, which most entries fail.
template <class Full>
DRAPE_HD void collect_in_run(const HashGridView& g, const glm::uvec2& run, const glm::vec4& q,
                             float reach, std::uint32_t after, std::uint32_t* out, std::uint32_t& n,
                             std::uint32_t capacity, Full full) {
  const glm::vec3 centre(q.x, q.y, q.z);
  for (std::uint32_t k = run.y; k-- > run.x;) {
    const std::uint32_t item = g.items[k];
    if (item <= after) break;
    const glm::vec4 sphere = g.spheres[k];
    const glm::vec3 d = glm::vec3(sphere.x, sphere.y, sphere.z) - centre;
    const float limit = sphere.w + q.w + reach;
    out[n] = item;
    n += glm::dot(d, d) < limit * limit ? 1u : 0u;
    if (n == capacity) full();
  }
}

}  // namespace drape::kernels
