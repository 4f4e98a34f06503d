// The self-collision pair search, one query per vertex (SelfCollision::find_pairs runs it through
// CandidateRows): vertex v's group (v, its edges to higher vertices, the triangles whose lowest
// vertex it is) against every higher group whose bounding sphere comes within the search radius.
// Each query writes its pairs as sorted keys (kernels/pair_keys.h) into its own row. Edge-edge
// pairs may be limited to groups near each other in the rest shape (PairQuery::rest_shape).
#pragma once

#include <cstdint>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "kernels/geometry.h"
#include "kernels/hash_grid.h"
#include "kernels/hd.h"
#include "kernels/pair_keys.h"
#include "kernels/self_candidates.h"

namespace drape::kernels {

struct PairQuery {
  const glm::vec3* p;                    // positions
  const float* w;                        // inverse masses
  SelfView sv;                           // the cloth, the search radius, the near-group rows
  const std::uint32_t* owned_edges;      // group v's edges: [owned_edges[v], owned_edges[v + 1])
  const std::uint32_t* owned_triangles;  // group v's triangles, likewise
  const glm::vec4* edge_spheres;         // bounding spheres, per edge and per triangle
  const glm::vec3* edge_halves;          // half of each edge's vector, for segments_apart
  const glm::vec4* triangle_spheres;
  const glm::vec4* groups;  // each group's bounding sphere, hashed in `grid`
  HashGridView grid;
  float group_radius;  // the largest group radius
  // Edge-edge pairs only between groups whose vertices lie within `edge_reach` of each other in
  // `rest_shape`; with `rest_shape` null, between any two groups (collision/edge_pairs.h).
  const glm::vec3* rest_shape = nullptr;
  float edge_reach = 0.0f;

  // Writes up to `capacity` pairs of v into `row`, in ascending order; returns how many it found.
  DRAPE_HD std::uint32_t operator()(std::uint32_t v, std::uint64_t* row,
                                    std::uint32_t capacity) const {
    return search(v, row, capacity, SpareNone{});
  }

  // Which groups a search need not visit (none here; kernels::ReuseRows spares some).
  struct SpareNone {
    DRAPE_HD bool spares() const { return false; }
    DRAPE_HD bool bucket(const glm::uvec2&) const { return false; }
    DRAPE_HD bool group(std::uint32_t) const { return false; }
  };

  // The same, except that where `spare.spares()` v may need no visit at all: the buckets whose
  // groups all need none (`spare.bucket(run)`) are scanned last, and when every group met in the
  // others needs none either (`spare.group(u)`, the groups fitting in one batch), the search stops
  // there, leaves the row empty and returns kNone.
  template <class Spare>
  DRAPE_HD std::uint32_t search(std::uint32_t v, std::uint64_t* row, std::uint32_t capacity,
                                const Spare& spare) const {
    Query q{v,
            p[v],
            groups[v],
            owned_triangles[v],
            owned_triangles[v + 1],
            owned_edges[v],
            owned_edges[v + 1],
            nullptr,
            sv.near.rows != nullptr ? sv.near.counts[v] : 0,
            row,
            capacity,
            0};
    q.near_row = q.near_count > 0 ? sv.near.row(v) : nullptr;
    // The groups met are visited in ascending order, in batches, so that a row comes out sorted
    // whatever the grid's cells and buckets, and v's near-group row is walked in step.
    std::uint32_t met[kMetBatch];
    std::uint32_t m = 0;
    bool batched = false;
    const auto flush = [&] {
      sort_row(met, m);
      std::uint32_t walk = 0;
      for (std::uint32_t i = 0; i < m; ++i) visit(q, met[i], walk);
      m = 0;
    };
    glm::uvec2 runs[27];
    bool spared[27];
    int buckets = 0;
    for_each_bucket_near(grid, q.gv, sv.radius, group_radius, [&](const glm::uvec2& run) {
      spared[buckets] = spare.spares() && spare.bucket(run);
      runs[buckets++] = run;
    });
    const auto scan = [&](bool which) {
      for (int b = 0; b < buckets; ++b) {
        if (spared[b] != which) continue;
        collect_in_run(grid, runs[b], q.gv, sv.radius, v, met, m, kMetBatch, [&] {
          flush();
          batched = true;
        });
      }
    };
    scan(false);
    if (spare.spares() && !batched) {
      bool all = true;
      for (std::uint32_t i = 0; i < m && all; ++i) all = spare.group(met[i]);
      if (all) return kNone;
    }
    scan(true);
    flush();
    if (batched && q.n <= capacity) sort_row(row, q.n);
    return q.n;
  }

 private:
  // One query: v's group, v's near-group row, and the row being written.
  struct Query {
    std::uint32_t v;
    glm::vec3 pv;
    glm::vec4 gv;
    std::uint32_t tv, tv_end, ev, ev_end;
    const std::uint64_t* near_row;
    std::uint32_t near_count;
    std::uint64_t* row;
    std::uint32_t capacity, n;

    DRAPE_HD void keep(std::uint64_t pair) {
      if (n < capacity) row[n] = pair;
      ++n;
    }
  };

  DRAPE_HD bool near(const glm::vec3& x, const glm::vec4& sphere) const {
    const glm::vec3 d = x - glm::vec3(sphere.x, sphere.y, sphere.z);
    return glm::dot(d, d) < (sphere.w + sv.radius) * (sphere.w + sv.radius);
  }

  // Point `point` at `at` and triangle t are within the radius: the sphere test, then the exact
  // test; `rest` rules out a pair between the two.
  template <class Rest>
  DRAPE_HD bool point_meets(std::uint32_t point, const glm::vec3& at, std::uint32_t t,
                            Rest rest) const {
    return near(at, triangle_spheres[t]) && !rest() && point_triangle_candidate(point, t, p, w, sv);
  }

  // Edge e of v and edge f are within the radius: the spheres' test, the gap test, the exact
  // test. `rest` rules out a pair between the first two.
  template <class Rest>
  DRAPE_HD bool edges_meet(std::uint32_t e, std::uint32_t f, const glm::vec4& fs, Rest rest) const {
    const float r = sv.radius;
    const glm::vec4 es = edge_spheres[e];
    const glm::vec3 d(es.x - fs.x, es.y - fs.y, es.z - fs.z);
    const float limit = es.w + fs.w + r;
    return glm::dot(d, d) < limit * limit && !rest() &&
           !segments_apart(d, edge_halves[e], edge_halves[f], r) &&
           edge_edge_candidate(e, f, p, w, sv);
  }

  // Whether edge-edge pairs of groups v and u are gathered (rest_shape).
  DRAPE_HD bool edges_near(std::uint32_t v, std::uint32_t u) const {
    if (rest_shape == nullptr) return true;
    const glm::vec3 apart = rest_shape[u] - rest_shape[v];
    return glm::dot(apart, apart) < edge_reach * edge_reach;
  }

  // Group u met, `walk` at or before its run in v's near-group row.
  DRAPE_HD void visit(Query& q, std::uint32_t u, std::uint32_t& walk) const {
    while (walk < q.near_count && static_cast<std::uint32_t>(q.near_row[walk] >> 32) < u) ++walk;
    const glm::vec3 pu = p[u];
    const std::uint32_t tu = owned_triangles[u], eu = owned_edges[u];
    // A group in v's near-group row: test its open pairs only, or skip its rest pairs.
    std::uint32_t k = walk;
    const auto header = [&](std::uint32_t what) {
      return k < q.near_count && q.near_row[k] == group_pair(u, PairKind::header, what);
    };
    if (header(kOpenPairs)) {
      const bool edges = edges_near(q.v, u);
      for (++k; k < q.near_count && static_cast<std::uint32_t>(q.near_row[k] >> 32) == u; ++k) {
        const PairKey key = split_pair(q.near_row[k]);
        const auto listed = [] { return false; };
        bool hit;
        if (key.kind == PairKind::point_on_mine) {
          hit = point_meets(u, pu, q.tv + key.a, listed);
        } else if (key.kind == PairKind::point_on_theirs) {
          hit = point_meets(q.v, q.pv, tu + key.a, listed);
        } else {
          hit = edges && edges_meet(q.ev + key.a, eu + key.b, edge_spheres[eu + key.b], listed);
        }
        if (hit) q.keep(q.near_row[k]);
      }
      return;
    }
    k = header(kRestPairs) ? k + 1 : q.near_count;
    // Otherwise every pair but the rest pairs, which are walked in step with the pairs.
    const auto rest = [&](std::uint64_t pair) {
      while (k < q.near_count && q.near_row[k] < pair) ++k;
      return k < q.near_count && q.near_row[k] == pair;
    };
    for (std::uint32_t t = q.tv; t < q.tv_end; ++t) {
      const auto pair = group_pair(u, PairKind::point_on_mine, t - q.tv);
      if (point_meets(u, pu, t, [&] { return rest(pair); })) q.keep(pair);
    }
    for (std::uint32_t t = tu; t < owned_triangles[u + 1]; ++t) {
      const auto pair = group_pair(u, PairKind::point_on_theirs, t - tu);
      if (point_meets(q.v, q.pv, t, [&] { return rest(pair); })) q.keep(pair);
    }
    if (!edges_near(q.v, u)) return;
    const float r = sv.radius;
    for (std::uint32_t f = eu; f < owned_edges[u + 1]; ++f) {
      // An edge of u beyond the reach of v's whole group meets none of its edges.
      const glm::vec4 fs = edge_spheres[f];
      const glm::vec3 g(q.gv.x - fs.x, q.gv.y - fs.y, q.gv.z - fs.z);
      if (!(glm::dot(g, g) < (q.gv.w + fs.w + r) * (q.gv.w + fs.w + r))) continue;
      for (std::uint32_t e = q.ev; e < q.ev_end; ++e) {
        const auto pair = group_pair(u, PairKind::edges, e - q.ev, f - eu);
        if (edges_meet(e, f, fs, [&] { return rest(pair); })) q.keep(pair);
      }
    }
  }
};

// The sorted union of two sets of rows, e.g. the pairs found at two positions.
struct UnionRows {
  PairRows<std::uint64_t> first, second;

  DRAPE_HD std::uint32_t operator()(std::uint32_t v, std::uint64_t* row,
                                    std::uint32_t capacity) const {
    const std::uint64_t* a = first.row(v);
    const std::uint64_t* b = second.row(v);
    const std::uint32_t na = first.counts[v], nb = second.counts[v];
    std::uint32_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
      const bool take_a = j == nb || (i < na && a[i] <= b[j]);
      const std::uint64_t next = take_a ? a[i] : b[j];
      if (take_a) {
        i += 1;
        if (j < nb && b[j] == next) ++j;
      } else {
        ++j;
      }
      if (n < capacity) row[n] = next;
      ++n;
    }
    return n;
  }
};

// The pairs of a row whose two elements (a point or an edge, a triangle or an edge) have a vertex
// each that are near along the sewn surface (`near`: each vertex's sorted list): of the pairs
// found where the stitches are closed, those sewing brings together, not layers of the fabric that
// happen to lie close there.
struct SewnRows {
  PairRows<std::uint64_t> rows;
  SelfView view;
  const std::uint32_t* owned_edges;
  const std::uint32_t* owned_triangles;
  const std::uint32_t* near_offsets;
  const std::uint32_t* near;

  DRAPE_HD bool joined(std::uint32_t a, std::uint32_t b) const {
    std::uint32_t lo = near_offsets[a], hi = near_offsets[a + 1];
    while (lo < hi) {
      const std::uint32_t mid = (lo + hi) / 2;
      if (near[mid] < b) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < near_offsets[a + 1] && near[lo] == b;
  }
  template <int N, int M>
  DRAPE_HD bool any_joined(const std::uint32_t (&a)[N], const std::uint32_t (&b)[M]) const {
    for (int i = 0; i < N; ++i) {
      for (int j = 0; j < M; ++j) {
        if (joined(a[i], b[j])) return true;
      }
    }
    return false;
  }
  DRAPE_HD std::uint32_t operator()(std::uint32_t v, std::uint64_t* row,
                                    std::uint32_t capacity) const {
    const std::uint64_t* in = rows.row(v);
    std::uint32_t n = 0;
    for (std::uint32_t i = 0; i < rows.counts[v]; ++i) {
      const PairIds ids = decode_pair(v, in[i], owned_edges, owned_triangles);
      bool keep;
      if (ids.edge_edge) {
        const std::uint32_t e[2] = {view.edge_v0[ids.first], view.edge_v1[ids.first]};
        const std::uint32_t f[2] = {view.edge_v0[ids.second], view.edge_v1[ids.second]};
        keep = any_joined(e, f);
      } else {
        const glm::uvec3 t = view.triangles[ids.second];
        const std::uint32_t point[1] = {ids.first};
        const std::uint32_t tri[3] = {t.x, t.y, t.z};
        keep = any_joined(point, tri);
      }
      if (!keep) continue;
      if (n < capacity) row[n] = in[i];
      ++n;
    }
    return n;
  }
};

// Vertex v's near-group row (near_group_row) from the pairs the same search found at rest.
struct NearRowQuery {
  PairRows<std::uint64_t> rest;
  const std::uint32_t* owned_edges;
  const std::uint32_t* owned_triangles;
  const float* w;
  SelfView sv;

  DRAPE_HD std::uint32_t operator()(std::uint32_t v, std::uint64_t* row,
                                    std::uint32_t capacity) const {
    return near_group_row(v, rest.row(v), rest.counts[v], row, capacity, owned_edges,
                          owned_triangles, w, sv);
  }
};

}  // namespace drape::kernels
