// Reusing the self-collision pairs of an earlier search (SelfCollision::gather_pairs). A full
// search gathers, into kept rows, the pairs within the search radius plus a skin s, and records
// every vertex's position then (the base). Later, a pair's distance (point-triangle or segment-
// segment) has shrunk by at most the largest difference between its vertices' displacements since
// the base: the closest points are convex combinations of the vertices, so they move apart or
// together by at most that much. So while the displacements of v's group and of every group within
// the radius of it span a box whose diagonal stays under s, v's pairs within the radius are among
// its kept pairs, and testing those exactly finds the same row a full query would. A vertex whose
// neighbourhood has moved more (a fold sliding over itself, not a cloth falling or resting as one
// piece) queries the grid again.
//
// The same bound spares most of those exact tests: a kept pair whose distance at the base exceeded
// the radius by more than its two groups' displacements have spread since cannot be within the
// radius now. A cloth at rest keeps many pairs just beyond the radius (a layer's own elements a
// little farther apart than its rest pairs), and tests almost none of them.
#pragma once

#include <cstdint>

#include <glm/common.hpp>
#include <glm/geometric.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "kernels/hash_grid.h"
#include "kernels/hd.h"
#include "kernels/pair_keys.h"
#include "kernels/self_candidates.h"

namespace drape::kernels {

// The box spanned by some displacements.
struct MotionBox {
  glm::vec3 lo{3.0e38f}, hi{-3.0e38f};

  DRAPE_HD void add(const glm::vec3& u) {
    lo = glm::min(lo, u);
    hi = glm::max(hi, u);
  }
  DRAPE_HD void add(const MotionBox& b) {
    lo = glm::min(lo, b.lo);
    hi = glm::max(hi, b.hi);
  }
  // Whether any two displacements in the box differ by `limit` or more (an empty box: no).
  DRAPE_HD bool spread_reaches(float limit) const { return spread_squared() >= limit * limit; }
  // The square of the largest difference two displacements in the box can have (0 when empty).
  DRAPE_HD float spread_squared() const {
    const glm::vec3 d = glm::max(hi - lo, glm::vec3(0.0f));
    return glm::dot(d, d);
  }
};

// The displacements since `base` of v's group: v and the far ends of its edges (its triangles'
// vertices are among them).
DRAPE_HD inline MotionBox group_motion(const glm::vec3* p, const glm::vec3* base, std::uint32_t v,
                                       std::uint32_t first_edge, std::uint32_t last_edge,
                                       const std::uint32_t* edge_v1) {
  MotionBox box;
  box.add(p[v] - base[v]);
  for (std::uint32_t e = first_edge; e < last_edge; ++e) box.add(p[edge_v1[e]] - base[edge_v1[e]]);
  return box;
}

// How far along any axis the displacements in `box` reach from `origin`. When no group's reach
// from a common origin exceeds d, every displacement lies in a cube of side 2d, so no union of
// boxes needs_query takes spans more than the cube's diagonal, 2 sqrt(3) d: a cloth moving as one
// piece (falling, or at rest) needs no query anywhere, and no grid.
DRAPE_HD inline float reach_from(const MotionBox& box, const glm::vec3& origin) {
  const glm::vec3 d = glm::max(box.hi - origin, origin - box.lo);
  return glm::max(d.x, glm::max(d.y, d.z));
}
constexpr float kCubeDiagonal = 3.4641017f;  // 2 sqrt(3)

// Vertex v must query the grid again: the displacements of the groups in the buckets a query
// within `radius` reads (`run_motion`: per bucket, at its run's first entry) span `limit` or more.
DRAPE_HD inline bool needs_query(const HashGridView& grid, const glm::vec4& group, float radius,
                                 float group_radius, const MotionBox* run_motion, float limit) {
  MotionBox box;
  for_each_bucket_near<false>(grid, group, radius, group_radius,
                              [&](const glm::uvec2& run) { box.add(run_motion[run.x]); });
  return box.spread_reaches(limit);
}

// How far beyond `clear` (the radius and a margin for rounding) each pair of v's kept row lies at
// positions p (the base), written to v's row of `gaps` (the kept rows' layout); negative within it.
DRAPE_HD inline void kept_gaps(std::uint32_t v, const PairRows<std::uint64_t>& kept,
                               const std::uint32_t* owned_edges,
                               const std::uint32_t* owned_triangles, const glm::vec3* p,
                               const SelfView& sv, float clear, float* gaps) {
  const std::uint64_t* in = kept.row(v);
  float* out = gaps + static_cast<std::size_t>(v) * kept.capacity;
  for (std::uint32_t i = 0; i < kept.counts[v]; ++i) {
    const PairIds ids = decode_pair(v, in[i], owned_edges, owned_triangles);
    out[i] = sqrtf(pair_distance_squared(ids, p, sv)) - clear;
  }
}

// The rows of the next contacts: a vertex marked `fresh` (its buckets failed needs_query) runs
// `query`, unless its own group's displacements and those of each group it meets there (those
// above it whose spheres come within the radius of its own: any pair of its row is with one of
// them) span less than `limit`, group by group: whole buckets pass at once where the box of their
// displacements does (`run_motion`), and only the others are scanned. Any other vertex, and such a
// one, tests its kept pairs exactly at the query's radius, in their (ascending) order, except those
// whose gap at the base (`gaps`, kept_gaps) exceeds the spread of their two groups' displacements
// since (`moved`: null at the base itself, where nothing moved). Such a vertex's `fresh` is cleared
// (running the rows again gives the same), so that afterwards it marks the vertices that visited
// the groups they met.
template <class Query>
struct ReuseRows {
  Query query;
  PairRows<std::uint64_t> kept;
  std::uint32_t* fresh;
  const std::uint32_t* owned_edges;
  const std::uint32_t* owned_triangles;
  const MotionBox* motion;      // each group's displacements since the full search
  const MotionBox* run_motion;  // each bucket's, at its run's first entry
  float limit;
  const float* gaps;       // each kept pair's, in the kept rows' layout (kept_gaps)
  const MotionBox* moved;  // `motion` where the kept pairs' groups may have moved; null at the base

  // The groups a fresh vertex need not visit: those that moved with it.
  struct Spare {
    MotionBox own;
    const MotionBox* motion;
    const MotionBox* run_motion;
    float limit;

    DRAPE_HD bool spares() const { return true; }
    DRAPE_HD bool with(const MotionBox& other) const {
      MotionBox both = own;
      both.add(other);
      return !both.spread_reaches(limit);
    }
    DRAPE_HD bool bucket(const glm::uvec2& run) const { return with(run_motion[run.x]); }
    DRAPE_HD bool group(std::uint32_t u) const { return with(motion[u]); }
  };

  DRAPE_HD std::uint32_t operator()(std::uint32_t v, std::uint64_t* row,
                                    std::uint32_t capacity) const {
    if (fresh[v] != 0) {
      const std::uint32_t n =
          query.search(v, row, capacity, Spare{motion[v], motion, run_motion, limit});
      if (n != kNone) return n;
      fresh[v] = 0;
    }
    const std::uint64_t* in = kept.row(v);
    const float* gap = gaps + static_cast<std::size_t>(v) * kept.capacity;
    std::uint32_t n = 0, group = kNone;
    float spread = 0.0f;  // squared, of v's and the group's displacements
    for (std::uint32_t i = 0; i < kept.counts[v]; ++i) {
      const std::uint32_t u = static_cast<std::uint32_t>(in[i] >> 32);
      if (moved != nullptr && u != group) {
        MotionBox both = moved[v];
        both.add(moved[u]);
        spread = both.spread_squared();
        group = u;
      }
      if (gap[i] > 0.0f && gap[i] * gap[i] > spread) continue;
      const PairIds ids = decode_pair(v, in[i], owned_edges, owned_triangles);
      const bool near =
          ids.edge_edge
              ? edge_edge_candidate(ids.first, ids.second, query.p, query.w, query.sv)
              : point_triangle_candidate(ids.first, ids.second, query.p, query.w, query.sv);
      if (!near) continue;
      if (n < capacity) row[n] = in[i];
      ++n;
    }
    return n;
  }
};

}  // namespace drape::kernels
