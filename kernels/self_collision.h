// Self-collision (spec section 3, "Self-Collision", with the edge-edge contacts its future work
// names). Broad phase: items (every vertex's group: the vertex, its edges to higher vertices and
// the triangles whose lowest vertex it is, by their bounding sphere) hashed into a uniform grid
// whose cells are found through a power-of-two bucket table; a query visits the 27 cells around a
// point. Narrow phase: contacts found once per rebuild and projected every iteration as one-sided
// constraints that keep the side each pair had at the start of the substep.
//
// Completeness: a query finds every item whose key point lies within one cell along each axis.
// The solver makes a cell at least as wide as the query's reach: two group radii plus the search
// radius, since two groups hold a pair within the search radius only if their spheres come that
// close. So no pair within the search radius is missed.
#pragma once

#include <cmath>
#include <cstdint>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "kernels/hd.h"
#include "kernels/views.h"

namespace drape::kernels {

constexpr std::uint32_t kNone = 0xffffffffu;

// min/max without the NaN rules of fminf/fmaxf, which g++ calls out of line.
DRAPE_HD inline float clampf(float x, float lo, float hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

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

// Calls f(item, sphere) for every item whose bounding sphere comes within `reach` of the sphere
// `q`, given that no item's radius exceeds `item_radius` and cells are at least q.w + item_radius +
// reach wide. The buckets of the 27 cells around q's centre are visited (only those of cells that
// the box of that half-width overlaps: the others hold nothing within reach), each bucket once, in
// a fixed order. A bucket may also hold items of other cells; the sphere test decides, so each
// item within reach is reported exactly once. With `after` given, only items above it are
// reported: a bucket's items are in ascending id order (the sort is stable), so they are read from
// the top down until `after`.
template <class F>
DRAPE_HD void for_each_near(const HashGridView& g, const glm::vec4& q, float reach,
                            float item_radius, F f, std::uint32_t after = kNone) {
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
        bool again = false;
        for (int k = 0; k < visited; ++k) again = again || seen[k] == b;
        if (again) continue;
        seen[visited++] = b;
        for (std::uint32_t k = run.y; k-- > run.x;) {
          if (after != kNone && g.items[k] <= after) break;
          const glm::vec4 sphere = g.spheres[k];
          const glm::vec3 d = glm::vec3(sphere.x, sphere.y, sphere.z) - centre;
          const float limit = sphere.w + q.w + reach;
          if (glm::dot(d, d) < limit * limit) f(g.items[k], sphere);
        }
      }
    }
  }
}

// Closest point of triangle abc to p as barycentric weights (u, v, w) of a, b, c (Ericson,
// Real-Time Collision Detection, 5.1.5). Returns the squared distance.
DRAPE_HD inline float closest_on_triangle(const glm::vec3& p, const glm::vec3& a,
                                          const glm::vec3& b, const glm::vec3& c, float& u,
                                          float& v, float& w) {
  const glm::vec3 ab = b - a, ac = c - a, ap = p - a;
  const float d1 = glm::dot(ab, ap), d2 = glm::dot(ac, ap);
  if (d1 <= 0.0f && d2 <= 0.0f) {
    u = 1.0f, v = 0.0f, w = 0.0f;
  } else {
    const glm::vec3 bp = p - b;
    const float d3 = glm::dot(ab, bp), d4 = glm::dot(ac, bp);
    const glm::vec3 cp = p - c;
    const float d5 = glm::dot(ab, cp), d6 = glm::dot(ac, cp);
    const float vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    if (d3 >= 0.0f && d4 <= d3) {
      u = 0.0f, v = 1.0f, w = 0.0f;
    } else if (d6 >= 0.0f && d5 <= d6) {
      u = 0.0f, v = 0.0f, w = 1.0f;
    } else if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) {
      const float t = d1 / (d1 - d3);
      u = 1.0f - t, v = t, w = 0.0f;
    } else if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) {
      const float t = d2 / (d2 - d6);
      u = 1.0f - t, v = 0.0f, w = t;
    } else if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f) {
      const float t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
      u = 0.0f, v = 1.0f - t, w = t;
    } else {
      const float denom = 1.0f / (va + vb + vc);
      v = vb * denom;
      w = vc * denom;
      u = 1.0f - v - w;
    }
  }
  const glm::vec3 q = u * a + v * b + w * c;
  return glm::dot(p - q, p - q);
}

// True when two segments are provably at least `radius` apart: their projections onto the line
// through their midpoints (d = one midpoint minus the other, h1 and h2 their half vectors) leave a
// gap of at least `radius`, with a relative slack of 1e-3 for rounding, so that a pair this
// rejects never passes the exact test. Costs no vertex loads, unlike closest_on_segments.
DRAPE_HD inline bool segments_apart(const glm::vec3& d, const glm::vec3& h1, const glm::vec3& h2,
                                    float radius) {
  const float len = sqrtf(glm::dot(d, d));
  const float gap = len * len - fabsf(glm::dot(h1, d)) - fabsf(glm::dot(h2, d));
  return gap > radius * len * 1.001f;
}

// Closest points of segments p1q1 and p2q2 at parameters s, t in [0, 1] (Ericson 5.1.9).
// Returns the squared distance.
DRAPE_HD inline float closest_on_segments(const glm::vec3& p1, const glm::vec3& q1,
                                          const glm::vec3& p2, const glm::vec3& q2, float& s,
                                          float& t) {
  const glm::vec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  const float a = glm::dot(d1, d1), e = glm::dot(d2, d2), f = glm::dot(d2, r);
  const float tiny = 1e-20f;
  const auto clamp01 = [](float x) { return clampf(x, 0.0f, 1.0f); };
  if (a <= tiny && e <= tiny) {
    s = t = 0.0f;
  } else if (a <= tiny) {
    s = 0.0f;
    t = clamp01(f / e);
  } else {
    const float c = glm::dot(d1, r);
    if (e <= tiny) {
      t = 0.0f;
      s = clamp01(-c / a);
    } else {
      const float b = glm::dot(d1, d2), denom = a * e - b * b;
      s = denom > 0.0f ? clamp01((b * f - c * e) / denom) : 0.0f;
      t = (b * s + f) / e;
      if (t < 0.0f) {
        t = 0.0f;
        s = clamp01(-c / a);
      } else if (t > 1.0f) {
        t = 1.0f;
        s = clamp01((b - c) / a);
      }
    }
  }
  const glm::vec3 c1 = p1 + s * d1, c2 = p2 + t * d2;
  return glm::dot(c1 - c2, c1 - c2);
}

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

enum class ContactKind : std::uint32_t { point_triangle = 0, edge_edge = 1 };

// A contact of four vertices: point-triangle (point, a, b, c) or edge-edge (a, b, c, d). `side`
// is the unit direction the first element must stay on, taken at the start of the substep: the
// triangle's normal towards the point, or from edge cd to edge ab.
struct Contact {
  std::uint32_t v[4];
  ContactKind kind;
  glm::vec3 side;
};

// Bounding spheres (centre, radius): a triangle's about its centroid, an edge's about its midpoint.
DRAPE_HD inline glm::vec4 triangle_sphere(const glm::vec3* p, const glm::uvec3& t) {
  const glm::vec3 a = p[t.x], b = p[t.y], c = p[t.z];
  const glm::vec3 m = (a + b + c) / 3.0f;
  const float r2 =
      glm::max(glm::dot(a - m, a - m), glm::max(glm::dot(b - m, b - m), glm::dot(c - m, c - m)));
  return {m, sqrtf(r2)};
}

DRAPE_HD inline glm::vec4 edge_sphere(const glm::vec3* p, std::uint32_t a, std::uint32_t b) {
  return {0.5f * (p[a] + p[b]), 0.5f * glm::length(p[b] - p[a])};
}

// A sphere holding vertex v and the edges it owns (edges [first, last), v to edge_v1[e]), and so
// also the triangles it owns (their other corners end two of those edges): about the centre of
// their bounding box. Smaller than the sphere of radius "longest owned edge" about v when the
// edges fan out to one side, as a vertex's edges to higher-numbered vertices usually do.
DRAPE_HD inline glm::vec4 owned_sphere(const glm::vec3* p, std::uint32_t v, std::uint32_t first,
                                       std::uint32_t last, const std::uint32_t* edge_v1) {
  glm::vec3 lo = p[v], hi = p[v];
  for (std::uint32_t e = first; e < last; ++e) {
    lo = glm::min(lo, p[edge_v1[e]]);
    hi = glm::max(hi, p[edge_v1[e]]);
  }
  const glm::vec3 c = 0.5f * (lo + hi);
  float r2 = glm::dot(p[v] - c, p[v] - c);
  for (std::uint32_t e = first; e < last; ++e) {
    const glm::vec3 d = p[edge_v1[e]] - c;
    r2 = glm::max(r2, glm::dot(d, d));
  }
  return {c, sqrtf(r2) * 1.0001f};
}

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

// Point-triangle candidate: vertex `v` and triangle `t` can be candidates and are within the
// search radius at positions `pos`; the caller has ruled out rest neighbours.
DRAPE_HD inline bool point_triangle_candidate(std::uint32_t v, std::uint32_t t,
                                              const glm::vec3* pos, const float* w,
                                              const SelfView& sv) {
  const glm::uvec3 tri = sv.triangles[t];
  if (never_point_triangle(v, tri, w)) return false;
  float a, b, c;
  return closest_on_triangle(pos[v], pos[tri.x], pos[tri.y], pos[tri.z], a, b, c) <
         sv.radius * sv.radius;
}

// Edge-edge candidate, each unordered pair once (e < f); the caller has ruled out rest
// neighbours.
DRAPE_HD inline bool edge_edge_candidate(std::uint32_t e, std::uint32_t f, const glm::vec3* pos,
                                         const float* w, const SelfView& sv) {
  if (f <= e) return false;
  const std::uint32_t a = sv.edge_v0[e], b = sv.edge_v1[e], c = sv.edge_v0[f], d = sv.edge_v1[f];
  if (never_edge_edge(a, b, c, d, w)) return false;
  float s, t;
  return closest_on_segments(pos[a], pos[b], pos[c], pos[d], s, t) < sv.radius * sv.radius;
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

// The side of a point-triangle pair at positions x: the unit normal of abc turned towards the
// point. False when the triangle is degenerate.
DRAPE_HD inline bool point_triangle_side(const glm::vec3& p, const glm::vec3& a, const glm::vec3& b,
                                         const glm::vec3& c, glm::vec3& side) {
  const glm::vec3 n = glm::cross(b - a, c - a);
  const float len = glm::length(n);
  if (!(len > 1e-12f)) return false;
  side = glm::dot(p - a, n) >= 0.0f ? n / len : -n / len;
  return true;
}

// The side of an edge pair at positions x: from the closest point of cd to that of ab; where the
// edges touch, the normal of the plane they span, turned towards fallback() (the same at
// positions p), which is called only then.
template <class Fallback>
DRAPE_HD bool edge_edge_side(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c,
                             const glm::vec3& d, Fallback fallback, glm::vec3& side) {
  float s, t;
  closest_on_segments(a, b, c, d, s, t);
  glm::vec3 n = (a + s * (b - a)) - (c + t * (d - c));
  float len = glm::length(n);
  if (!(len > 1e-9f)) {
    n = glm::cross(b - a, d - c);
    len = glm::length(n);
    if (!(len > 1e-12f)) return false;
    if (glm::dot(n, fallback()) < 0.0f) n = -n;
  }
  side = n / len;
  return true;
}

// A candidate pair as a contact, its side taken at the start positions (at the current ones when
// the start is degenerate).
DRAPE_HD inline Contact make_point_triangle(std::uint32_t v, std::uint32_t t, ParticleView s,
                                            const SelfView& sv) {
  const glm::uvec3 tri = sv.triangles[t];
  Contact c{{v, tri.x, tri.y, tri.z}, ContactKind::point_triangle, glm::vec3(0.0f)};
  if (!point_triangle_side(s.x[v], s.x[tri.x], s.x[tri.y], s.x[tri.z], c.side)) {
    point_triangle_side(s.p[v], s.p[tri.x], s.p[tri.y], s.p[tri.z], c.side);
  }
  return c;
}

DRAPE_HD inline Contact make_edge_edge(std::uint32_t e, std::uint32_t f, ParticleView s,
                                       const SelfView& sv) {
  const std::uint32_t a = sv.edge_v0[e], b = sv.edge_v1[e], c = sv.edge_v0[f], d = sv.edge_v1[f];
  Contact k{{a, b, c, d}, ContactKind::edge_edge, glm::vec3(0.0f)};
  // The side at the current positions, needed only where the start is degenerate or touching.
  const auto now = [&] {
    glm::vec3 side(0.0f);
    edge_edge_side(
        s.p[a], s.p[b], s.p[c], s.p[d], [] { return glm::vec3(0.0f, 1.0f, 0.0f); }, side);
    return side;
  };
  if (!edge_edge_side(s.x[a], s.x[b], s.x[c], s.x[d], now, k.side)) k.side = now();
  return k;
}

// One contact's correction at the current positions, as displacements of its four vertices.
// The constraint is side . (q0 - q1) >= thickness, q0 and q1 the contact points (the point and
// its projection, or the closest points of the edges), each a weighted sum of vertices with
// coefficients c_k. Corrections dp_k = c_k w_k lambda, lambda = ((thickness - d) side + f) / W,
// W = sum c_k^2 w_k: momentum is conserved (sum c_k = 0) and pins (w = 0) never move. Friction
// f removes the tangential motion of the contact points since the substep start up to `friction`
// times the normal correction (Coulomb). Returns false when the contact is not active.
DRAPE_HD inline bool contact_correction(const Contact& k, ParticleView s, const SelfView& sv,
                                        glm::vec3 dp[4]) {
  const glm::vec3 p0 = s.p[k.v[0]], p1 = s.p[k.v[1]], p2 = s.p[k.v[2]], p3 = s.p[k.v[3]];
  float coef[4];
  float d;
  if (k.kind == ContactKind::point_triangle) {
    // The spec's test: within the thickness of the plane, projecting inside the triangle.
    d = glm::dot(p0 - p1, k.side);
    if (d >= sv.thickness) return false;
    const glm::vec3 n = glm::cross(p2 - p1, p3 - p1);
    const float n2 = glm::dot(n, n);
    if (!(n2 > 0.0f)) return false;
    const glm::vec3 q = p0 - p1;
    const float b = glm::dot(glm::cross(q, p3 - p1), n) / n2;
    const float c = glm::dot(glm::cross(p2 - p1, q), n) / n2;
    const float a = 1.0f - b - c;
    if (a < 0.0f || b < 0.0f || c < 0.0f) return false;
    coef[0] = 1.0f, coef[1] = -a, coef[2] = -b, coef[3] = -c;
  } else {
    // Any point of ab minus any point of cd is at least this far along the side: when that
    // already clears the thickness (with a margin for rounding), the closest points are not needed.
    const float ab = glm::min(glm::dot(p0 - p2, k.side), glm::dot(p1 - p2, k.side));
    const float cd = glm::max(0.0f, glm::dot(p3 - p2, k.side));
    if (ab - cd >= sv.thickness * 1.001f) return false;
    float u, t;
    closest_on_segments(p0, p1, p2, p3, u, t);
    const glm::vec3 q = (p0 + u * (p1 - p0)) - (p2 + t * (p3 - p2));
    d = glm::dot(q, k.side);
    if (d >= sv.thickness) return false;
    coef[0] = 1.0f - u, coef[1] = u, coef[2] = t - 1.0f, coef[3] = -t;
  }
  float w_sum = 0.0f;
  glm::vec3 moved(0.0f);
  for (int j = 0; j < 4; ++j) {
    const float w = s.w[k.v[j]];
    w_sum += coef[j] * coef[j] * w;
    moved += coef[j] * (s.p[k.v[j]] - s.x[k.v[j]]);
  }
  if (!(w_sum > 1e-12f)) return false;
  const float push = sv.thickness - d;
  const glm::vec3 tangential = moved - glm::dot(moved, k.side) * k.side;
  const float slide = glm::length(tangential);
  const float grip = sv.friction * push;
  const glm::vec3 friction = slide <= grip ? -tangential : tangential * (-grip / slide);
  const glm::vec3 lambda = (push * k.side + friction) / w_sum;
  for (int j = 0; j < 4; ++j) dp[j] = (coef[j] * s.w[k.v[j]]) * lambda;
  return true;
}

// Contacts are applied Jacobi-style, so the result is the same on any number of threads: each
// contact flags whether it is active and, when it is, writes its four displacements to its own
// slots (4 c + j) ...
DRAPE_HD inline void solve_contact(std::uint32_t c, const Contact* contacts, ParticleView s,
                                   const SelfView& sv, glm::vec3* slot_dp, std::uint32_t* active) {
  glm::vec3 dp[4];
  const bool on = contact_correction(contacts[c], s, sv, dp);
  active[c] = on ? 1u : 0u;
  if (on) {
    for (int j = 0; j < 4; ++j) slot_dp[4 * c + j] = dp[j];
  }
}

// ... the slots of the active contacts are sorted by vertex, keeping slot order within a vertex
// (`vertices` the sorted vertices, `slots` the slots, n of them), and each vertex moves by the
// mean of its slots, summed in slot order by the thread at the start of its run.
DRAPE_HD inline void apply_contacts(std::uint32_t i, const std::uint32_t* vertices,
                                    const std::uint32_t* slots, std::uint32_t n,
                                    const glm::vec3* slot_dp, ParticleView s) {
  const std::uint32_t v = vertices[i];
  if (i > 0 && vertices[i - 1] == v) return;
  glm::vec3 sum(0.0f);
  std::uint32_t k = i;
  for (; k < n && vertices[k] == v; ++k) sum += slot_dp[slots[k]];
  s.p[v] += sum / static_cast<float>(k - i);
}

}  // namespace drape::kernels
