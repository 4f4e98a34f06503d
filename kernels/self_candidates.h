// Which pairs of self-collision are candidates (spec section 3, "Self-Collision", with the
// edge-edge contacts its future work names): the cloth as self-collision sees it, the pairs that
// never are, the exact tests within the search radius, and the near-group rows that spare a query
// the pairs that were neighbours at rest.
#pragma once

#include <cstdint>

#include <glm/vec3.hpp>

#include "kernels/geometry.h"
#include "kernels/hd.h"
#include "kernels/pair_keys.h"

namespace drape::kernels {

// The cloth as self-collision sees it. Contacts are sought within `radius` (thickness plus a
// margin for motion during the iterations) and pushed out to `thickness`. Pairs closer than
// `radius` in the rest mesh (rest pairs) are neighbours of one surface, never contacts. Every
// vertex owns a group: its edges to higher-numbered vertices (edges are ordered by (edge_v0,
// edge_v1), edge_v0 < edge_v1, so a group's edges are contiguous) and the triangles whose lowest
// vertex it is (triangles are ordered by that vertex). Vertex v's row in `near` (ascending) covers
// each group u that holds a rest pair with v: a header group_pair(u, header, kOpenPairs) followed
// by the only pairs of v and u a query needs to test, or a header with kRestPairs followed by the
// rest pairs, which a query skips.
struct SelfView {
  const glm::uvec3* triangles = nullptr;
  const std::uint32_t* edge_v0 = nullptr;
  const std::uint32_t* edge_v1 = nullptr;
  PairRows<std::uint64_t> near;
  float thickness = 0.0f, radius = 0.0f, friction = 0.0f;
};

DRAPE_HD inline bool shares_vertex(std::uint32_t v, const glm::uvec3& t) {
  return v == t.x || v == t.y || v == t.z;
}

// Pairs that are never candidates, at any positions: the two elements share a vertex, or all four
// vertices are pinned.
DRAPE_HD inline bool never_point_triangle(std::uint32_t v, const glm::uvec3& tri, const float* w) {
  return shares_vertex(v, tri) || w[v] + w[tri.x] + w[tri.y] + w[tri.z] <= 0.0f;
}

DRAPE_HD inline bool never_edge_edge(std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                     std::uint32_t d, const float* w) {
  return a == c || a == d || b == c || b == d || w[a] + w[b] + w[c] + w[d] <= 0.0f;
}

// The squared distance between the elements of pair `ids` (a point and a triangle, or two edges)
// at positions `pos`: that of their closest points.
DRAPE_HD inline float pair_distance_squared(const PairIds& ids, const glm::vec3* pos,
                                            const SelfView& sv) {
  float s, t, u;
  if (ids.edge_edge) {
    return closest_on_segments(pos[sv.edge_v0[ids.first]], pos[sv.edge_v1[ids.first]],
                               pos[sv.edge_v0[ids.second]], pos[sv.edge_v1[ids.second]], s, t);
  }
  const glm::uvec3 tri = sv.triangles[ids.second];
  return closest_on_triangle(pos[ids.first], pos[tri.x], pos[tri.y], pos[tri.z], s, t, u);
}

// Point-triangle candidate: vertex `v` and triangle `t` can be candidates and are within the
// search radius at positions `pos`; the caller has ruled out rest neighbours.
DRAPE_HD inline bool point_triangle_candidate(std::uint32_t v, std::uint32_t t,
                                              const glm::vec3* pos, const float* w,
                                              const SelfView& sv) {
  const glm::uvec3 tri = sv.triangles[t];
  if (never_point_triangle(v, tri, w)) return false;
  return pair_distance_squared({false, v, t}, pos, sv) < sv.radius * sv.radius;
}

// Edge-edge candidate, each unordered pair once (e < f); the caller has ruled out rest
// neighbours.
DRAPE_HD inline bool edge_edge_candidate(std::uint32_t e, std::uint32_t f, const glm::vec3* pos,
                                         const float* w, const SelfView& sv) {
  if (f <= e) return false;
  const std::uint32_t a = sv.edge_v0[e], b = sv.edge_v1[e], c = sv.edge_v0[f], d = sv.edge_v1[f];
  if (never_edge_edge(a, b, c, d, w)) return false;
  return pair_distance_squared({true, e, f}, pos, sv) < sv.radius * sv.radius;
}

DRAPE_HD inline bool never_candidate(const PairIds& ids, const float* w, const SelfView& sv) {
  if (ids.edge_edge) {
    return never_edge_edge(sv.edge_v0[ids.first], sv.edge_v1[ids.first], sv.edge_v0[ids.second],
                           sv.edge_v1[ids.second], w);
  }
  return never_point_triangle(ids.first, sv.triangles[ids.second], w);
}

// Vertex v's near-group row from its sorted rest pairs rest[0..n) (see SelfView): for each group
// u they name, a header and then whichever list is shorter, the open pairs of v and u (neither
// rest pairs nor never candidates) or the rest pairs. Writes at most `capacity` entries; returns
// how many the row needs.
DRAPE_HD inline std::uint32_t near_group_row(std::uint32_t v, const std::uint64_t* rest,
                                             std::uint32_t n, std::uint64_t* row,
                                             std::uint32_t capacity,
                                             const std::uint32_t* owned_edges,
                                             const std::uint32_t* owned_triangles, const float* w,
                                             const SelfView& sv) {
  std::uint32_t out = 0;
  const auto put = [&](std::uint64_t entry) {
    if (out < capacity) row[out] = entry;
    ++out;
  };
  for (std::uint32_t i = 0; i < n;) {
    const auto u = static_cast<std::uint32_t>(rest[i] >> 32);
    std::uint32_t end = i;
    while (end < n && static_cast<std::uint32_t>(rest[end] >> 32) == u) ++end;
    const auto each_open = [&](auto f) {
      std::uint32_t k = i;
      for_each_group_pair(v, u, owned_edges, owned_triangles, [&](std::uint64_t pair) {
        while (k < end && rest[k] < pair) ++k;
        if (k < end && rest[k] == pair) return;
        if (!never_candidate(decode_pair(v, pair, owned_edges, owned_triangles), w, sv)) f(pair);
      });
    };
    std::uint32_t open = 0;
    each_open([&](std::uint64_t) { ++open; });
    if (open <= end - i) {
      put(group_pair(u, PairKind::header, kOpenPairs));
      each_open(put);
    } else {
      put(group_pair(u, PairKind::header, kRestPairs));
      for (std::uint32_t k = i; k < end; ++k) put(rest[k]);
    }
    i = end;
  }
  return out;
}

}  // namespace drape::kernels
