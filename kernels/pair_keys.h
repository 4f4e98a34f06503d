// Candidate pairs of self-collision as 64-bit keys in per-vertex rows: what a key holds, how it
// decodes to mesh elements, and the rows that hold them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/hd.h"

namespace drape::kernels {

// Partners of queries [0, n): row i holds counts[i] entries at rows + i * capacity.
template <class T>
struct PairRows {
  const T* rows = nullptr;
  const std::uint32_t* counts = nullptr;
  std::uint32_t capacity = 0;

  DRAPE_HD const T* row(std::uint32_t i) const {
    return rows + static_cast<std::size_t>(i) * capacity;
  }
};

// A candidate pair as one 64-bit entry of the row of vertex v, the lower of the two groups it
// joins: u << 32 (u the other group) | kind << 30 | b << 15 | a, where a and b count from the start
// of a group's run of triangles or edges (below 2^15). Kinds: point u on v's triangle a, point v on
// u's triangle a, v's edge a against u's edge b. Rows are sorted: the pairs of one group pair are
// adjacent, in the order the query tests them. Near-group rows (see SelfView) also hold one
// `header` entry per group, first in its run.
enum class PairKind : std::uint32_t {
  header = 0,
  point_on_mine = 1,
  point_on_theirs = 2,
  edges = 3
};
constexpr std::uint32_t kMaxGroupItems = 1u << 15;
// A header's a: what follows it in a near-group row (see SelfView).
constexpr std::uint32_t kOpenPairs = 0, kRestPairs = 1;

DRAPE_HD inline std::uint64_t group_pair(std::uint32_t u, PairKind kind, std::uint32_t a,
                                         std::uint32_t b = 0) {
  return (static_cast<std::uint64_t>(u) << 32) | (static_cast<std::uint64_t>(kind) << 30) |
         (static_cast<std::uint64_t>(b) << 15) | a;
}

// A pair in mesh terms: point-triangle (point, triangle) or edge-edge (first, second edge).
struct PairIds {
  bool edge_edge;
  std::uint32_t first, second;
};

// The fields of a pair key.
struct PairKey {
  std::uint32_t u;
  PairKind kind;
  std::uint32_t a, b;
};

DRAPE_HD inline PairKey split_pair(std::uint64_t pair) {
  return {static_cast<std::uint32_t>(pair >> 32), static_cast<PairKind>((pair >> 30) & 3u),
          static_cast<std::uint32_t>(pair & (kMaxGroupItems - 1)),
          static_cast<std::uint32_t>((pair >> 15) & (kMaxGroupItems - 1))};
}

// Decodes entry `pair` of vertex v's row; owned_edges and owned_triangles are the groups' runs.
DRAPE_HD inline PairIds decode_pair(std::uint32_t v, std::uint64_t pair,
                                    const std::uint32_t* owned_edges,
                                    const std::uint32_t* owned_triangles) {
  const PairKey k = split_pair(pair);
  if (k.kind == PairKind::point_on_mine) return {false, k.u, owned_triangles[v] + k.a};
  if (k.kind == PairKind::point_on_theirs) return {false, v, owned_triangles[k.u] + k.a};
  return {true, owned_edges[v] + k.a, owned_edges[k.u] + k.b};
}

// Groups a query sorts at a time.
constexpr std::uint32_t kMetBatch = 64;

// Sorts a short row in place, ascending (insertion sort: rows hold tens of ids).
template <class T>
DRAPE_HD void sort_row(T* row, std::uint32_t n) {
  for (std::uint32_t i = 1; i < n; ++i) {
    const T id = row[i];
    std::uint32_t k = i;
    for (; k > 0 && row[k - 1] > id; --k) row[k] = row[k - 1];
    row[k] = id;
  }
}

// Calls f(pair) for every pair of v's group and u's group (u > v), in ascending order.
template <class F>
DRAPE_HD void for_each_group_pair(std::uint32_t v, std::uint32_t u,
                                  const std::uint32_t* owned_edges,
                                  const std::uint32_t* owned_triangles, F f) {
  for (std::uint32_t a = 0; a < owned_triangles[v + 1] - owned_triangles[v]; ++a) {
    f(group_pair(u, PairKind::point_on_mine, a));
  }
  for (std::uint32_t a = 0; a < owned_triangles[u + 1] - owned_triangles[u]; ++a) {
    f(group_pair(u, PairKind::point_on_theirs, a));
  }
  for (std::uint32_t b = 0; b < owned_edges[u + 1] - owned_edges[u]; ++b) {
    for (std::uint32_t a = 0; a < owned_edges[v + 1] - owned_edges[v]; ++a) {
      f(group_pair(u, PairKind::edges, a, b));
    }
  }
}

}  // namespace drape::kernels
