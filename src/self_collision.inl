// Self-collision for the coloured solver, written once for every launch layer (included by
// parallel_solver.inl). Per rebuild: two hash grids (triangles by centroid, edges by midpoint)
// sorted with Thrust, candidate pairs gathered per vertex (its point-triangle pairs and the
// edge-edge pairs of the edges it owns) into fixed-capacity rows
// (doubled and redone when a row overflows), compacted with a prefix sum into one contact list
// (point-triangle, then edge-edge), and the contacts' vertex slots sorted by vertex. Per iteration:
// every contact computes its correction, every vertex applies the mean of its own.
#include <algorithm>
#include <utility>
#include <vector>

#include "kernels/self_collision.h"

namespace drape {

// How far beyond the thickness contacts are gathered, as a multiple of the thickness: room for
// the motion of the iterations between two rebuilds.
constexpr float kSearchMargin = 0.5f;
// Contact-only passes after the last iteration of a substep.
constexpr int kSettlePasses = 4;

template <class Exec>
class HashGrid {
  template <class T>
  using Buffer = typename Exec::template Buffer<T>;

 public:
  // Hashes items [0, n) by their bounding spheres sphere(i) (centre, radius), cells of `cell`.
  template <class Sphere>
  void build(const Exec& exec, std::uint32_t n, float cell, Sphere sphere) {
    std::uint32_t table = 1;
    while (table < 8 * n) table *= 2;
    m_keys.resize(n);
    m_items.resize(n);
    m_spheres.resize(n);
    m_start.resize(table);
    m_end.resize(table);
    m_view.inv_cell = 1.0f / cell;
    m_view.mask = table - 1;
    std::uint32_t* keys = m_keys.data();
    std::uint32_t* items = m_items.data();
    glm::vec4* spheres = m_spheres.data();
    std::uint32_t* start = m_start.data();
    std::uint32_t* end = m_end.data();
    const float inv_cell = m_view.inv_cell;
    const std::uint32_t mask = m_view.mask;
    exec.for_each(0, n, [=] DRAPE_HD(std::uint32_t i) {
      const glm::vec4 s = sphere(i);
      keys[i] = kernels::bucket_of(kernels::cell_of(glm::vec3(s.x, s.y, s.z), inv_cell), mask);
      items[i] = i;
    });
    exec.sort_pairs(keys, items, n);
    // The entries' spheres in sorted order, read in sequence by the queries.
    exec.for_each(0, n, [=] DRAPE_HD(std::uint32_t k) { spheres[k] = sphere(items[k]); });
    exec.for_each(0, table, [=] DRAPE_HD(std::uint32_t b) { start[b] = kernels::kNone; });
    exec.for_each(0, n,
                  [=] DRAPE_HD(std::uint32_t i) { kernels::mark_run(i, keys, n, start, end); });
    m_view.start = start;
    m_view.end = end;
    m_view.items = items;
    m_view.spheres = spheres;
  }

  const kernels::HashGridView& view() const { return m_view; }
  std::size_t bytes() const {
    return m_keys.bytes() + m_items.bytes() + m_spheres.bytes() + m_start.bytes() + m_end.bytes();
  }

 private:
  Buffer<std::uint32_t> m_keys, m_items, m_start, m_end;
  Buffer<glm::vec4> m_spheres;
  kernels::HashGridView m_view;
};

// Candidate pairs of queries [0, n): query(i, row, capacity) writes up to `capacity` entries
// (partners of i, of type T) into its row and returns how many it found; rows that overflow make
// the capacity double and the pass run again. The counts' prefix sum then places every query's
// pairs in a list.
template <class Exec, class T = std::uint32_t>
class CandidateRows {
  template <class U>
  using Buffer = typename Exec::template Buffer<U>;

 public:
  void resize(std::uint32_t n) {
    m_n = n;
    m_counts.resize(n);
    m_offsets.resize(n);
  }

  // Returns the number of pairs.
  template <class Query>
  std::uint32_t gather(const Exec& exec, Query query) {
    std::uint32_t* counts = m_counts.data();
    for (;;) {
      m_rows.resize(static_cast<std::size_t>(m_n) * m_capacity);
      T* rows = m_rows.data();
      const std::uint32_t capacity = m_capacity;
      exec.for_each(0, m_n, [=] DRAPE_HD(std::uint32_t i) {
        counts[i] = query(i, rows + static_cast<std::size_t>(i) * capacity, capacity);
      });
      const std::uint32_t most = m_n > 0 ? exec.max_value(counts, m_n) : 0u;
      if (most <= m_capacity) break;
      while (m_capacity < most) m_capacity *= 2;
    }
    return exec.exclusive_scan(counts, m_offsets.data(), m_n);
  }

  // Calls make(i, entry, base + index in the list) for every pair.
  template <class Make>
  void emit(const Exec& exec, std::uint32_t base, Make make) {
    const std::uint32_t* counts = m_counts.data();
    const std::uint32_t* offsets = m_offsets.data();
    const T* rows = m_rows.data();
    const std::uint32_t capacity = m_capacity;
    exec.for_each(0, m_n, [=] DRAPE_HD(std::uint32_t i) {
      for (std::uint32_t j = 0; j < counts[i]; ++j) {
        make(i, rows[static_cast<std::size_t>(i) * capacity + j], base + offsets[i] + j);
      }
    });
  }

  kernels::PairRows<T> pairs() { return {m_rows.data(), m_counts.data(), m_capacity}; }

  // Puts every row in ascending order.
  void sort_rows(const Exec& exec) {
    const std::uint32_t* counts = m_counts.data();
    T* rows = m_rows.data();
    const std::uint32_t capacity = m_capacity;
    exec.for_each(0, m_n, [=] DRAPE_HD(std::uint32_t i) {
      kernels::sort_row(rows + static_cast<std::size_t>(i) * capacity, counts[i]);
    });
  }

  // The pairs (query, entry) on the host, in list order.
  std::vector<std::pair<std::uint32_t, T>> download() const {
    std::vector<std::uint32_t> counts;
    std::vector<T> rows;
    m_counts.download(counts);
    m_rows.download(rows);
    std::vector<std::pair<std::uint32_t, T>> pairs;
    for (std::uint32_t i = 0; i < m_n; ++i) {
      for (std::uint32_t j = 0; j < counts[i]; ++j) {
        pairs.emplace_back(i, rows[static_cast<std::size_t>(i) * m_capacity + j]);
      }
    }
    return pairs;
  }

  std::size_t bytes() const { return m_counts.bytes() + m_offsets.bytes() + m_rows.bytes(); }

 private:
  std::uint32_t m_n = 0, m_capacity = 16;
  Buffer<std::uint32_t> m_counts, m_offsets;
  Buffer<T> m_rows;
};

template <class Exec>
class SelfCollision {
  template <class T>
  using Buffer = typename Exec::template Buffer<T>;

 public:
  // `w`: the solver's inverse masses, in the backend's memory.
  SelfCollision(const ClothModel& cloth, const SelfCollisionParams& params, const float* w,
                Exec exec)
      : m_exec(exec),
        m_vertices(static_cast<std::uint32_t>(cloth.mesh.positions.size())),
        m_edges(static_cast<std::uint32_t>(cloth.topology.edge_count())),
        m_every_iteration(params.every_iteration) {
    // Degenerate triangles have no normal to push along: they take part through their edges.
    const auto& x = cloth.mesh.positions;
    std::vector<glm::uvec3> triangles;
    for (const glm::uvec3& t : cloth.mesh.triangles) {
      if (!is_degenerate(x[t.x], x[t.y], x[t.z])) triangles.push_back(t);
    }
    m_triangles = static_cast<std::uint32_t>(triangles.size());
    m_tris.upload(triangles);
    // Edges by (lower vertex, higher vertex); each vertex owns a run of them.
    const Topology& topo = cloth.topology;
    m_edge_ids.resize(m_edges);
    for (std::uint32_t e = 0; e < m_edges; ++e) m_edge_ids[e] = e;
    std::sort(m_edge_ids.begin(), m_edge_ids.end(), [&](std::uint32_t a, std::uint32_t b) {
      return std::pair(topo.edge_v0[a], topo.edge_v1[a]) <
             std::pair(topo.edge_v0[b], topo.edge_v1[b]);
    });
    std::vector<std::uint32_t> v0(m_edges), v1(m_edges), owned(m_vertices + 1, 0);
    for (std::uint32_t e = 0; e < m_edges; ++e) {
      v0[e] = topo.edge_v0[m_edge_ids[e]];
      v1[e] = topo.edge_v1[m_edge_ids[e]];
      ++owned[v0[e] + 1];
    }
    for (std::uint32_t v = 0; v < m_vertices; ++v) owned[v + 1] += owned[v];
    m_edge_v0.upload(v0);
    m_edge_v1.upload(v1);
    m_owned.upload(owned);
    m_lengths.resize(m_edges);
    m_edge_spheres.resize(m_edges);
    m_edge_halves.resize(m_edges);
    m_owned_spheres.resize(m_vertices);
    m_owned_radii.resize(m_vertices);
    m_pt.resize(m_vertices);
    m_ee.resize(m_vertices);
    m_rest_pt.resize(m_vertices);
    m_rest_ee.resize(m_vertices);
    m_vertex_start.resize(m_vertices);
    m_vertex_end.resize(m_vertices);

    double sum = 0.0;
    for (double l : cloth.topology.edge_rest_length) sum += l;
    const double mean = m_edges > 0 ? sum / m_edges : 0.0;
    m_base_cell = static_cast<float>(params.cell_size > 0.0 ? params.cell_size : mean);
    m_view.thickness = static_cast<float>(params.thickness);
    m_view.radius = static_cast<float>(params.thickness) * (1.0f + kSearchMargin);
    m_view.friction = static_cast<float>(params.friction);

    // The rest neighbours: the pairs the same search finds in the rest mesh.
    Buffer<glm::vec3> rest;
    rest.upload(std::vector<glm::vec3>(x.begin(), x.end()));
    find_pairs(rest.data(), w, m_rest_pt, m_rest_ee);
    m_rest_pt.sort_rows(m_exec);
    m_rest_ee.sort_rows(m_exec);
    m_view.rest_pt = m_rest_pt.pairs();
    m_view.rest_ee = m_rest_ee.pairs();
  }

  bool every_iteration() const { return m_every_iteration; }

  // The triangles self-collision uses (the non-degenerate ones), on the host.
  std::vector<glm::uvec3> triangles() const {
    std::vector<glm::uvec3> t;
    m_tris.download(t);
    return t;
  }

  // The topology edge of edge e here.
  std::uint32_t topology_edge(std::uint32_t e) const { return m_edge_ids[e]; }

  // Contacts found since the last call (summed over rebuilds).
  std::uint64_t take_contact_count() {
    const std::uint64_t n = m_contacts_found;
    m_contacts_found = 0;
    return n;
  }

  std::size_t bytes() const {
    return m_tris.bytes() + m_edge_v0.bytes() + m_edge_v1.bytes() + m_owned.bytes() +
           m_lengths.bytes() + m_edge_spheres.bytes() + m_edge_halves.bytes() +
           m_owned_spheres.bytes() + m_owned_radii.bytes() + m_pt.bytes() + m_ee.bytes() +
           m_rest_pt.bytes() + m_rest_ee.bytes() + m_vertex_start.bytes() + m_vertex_end.bytes() +
           m_tri_grid.bytes() + m_edge_grid.bytes() + m_contacts.bytes() + m_active.bytes() +
           m_slot_dp.bytes() + m_slot_keys.bytes() + m_slots.bytes();
  }

  // Candidate pairs at positions p into pt_rows (triangles by vertex) and ee_rows (edge pairs
  // e < f by the vertex that owns e). Returns the numbers of each.
  std::pair<std::uint32_t, std::uint32_t> find_pairs(const glm::vec3* p, const float* w,
                                                     CandidateRows<Exec>& pt_rows,
                                                     CandidateRows<Exec, std::uint64_t>& ee_rows) {
    const kernels::SelfView sv = view();
    const std::uint32_t* e0 = sv.edge_v0;
    const std::uint32_t* e1 = sv.edge_v1;
    const glm::uvec3* tris = sv.triangles;
    const std::uint32_t* owned = m_owned.data();
    float* lengths = m_lengths.data();
    glm::vec4* edge_spheres = m_edge_spheres.data();
    glm::vec3* halves = m_edge_halves.data();
    m_exec.for_each(0, m_edges, [=] DRAPE_HD(std::uint32_t e) {
      edge_spheres[e] = kernels::edge_sphere(p, e0[e], e1[e]);
      halves[e] = 0.5f * (p[e1[e]] - p[e0[e]]);
      lengths[e] = 2.0f * edge_spheres[e].w;
    });
    glm::vec4* owned_spheres = m_owned_spheres.data();
    float* owned_radii = m_owned_radii.data();
    m_exec.for_each(0, m_vertices, [=] DRAPE_HD(std::uint32_t v) {
      owned_spheres[v] = kernels::owned_sphere(p, v, owned[v], owned[v + 1], e1);
      owned_radii[v] = owned_spheres[v].w;
    });
    const float owned_reach = m_vertices > 0 ? m_exec.max_value(owned_radii, m_vertices) : 0.0f;
    const float longest = (m_edges > 0 ? m_exec.max_value(lengths, m_edges) : 0.0f) * 1.0001f;
    // A triangle's vertices lie within 2/3 of its longest median (<= its longest edge) of its
    // centroid; an edge's within half its length of its midpoint; a vertex's own edges within
    // its owned sphere. A query's reach (its own radius, an item's, the search radius) must fit
    // in a cell: the scene's cell size (or the mean rest edge) is raised to it where needed.
    const float tri_radius = longest * (2.0f / 3.0f);
    const float edge_radius = longest * 0.5f;
    m_tri_grid.build(
        m_exec, m_triangles, std::max(m_base_cell, tri_radius + sv.radius),
        [=] DRAPE_HD(std::uint32_t t) { return kernels::triangle_sphere(p, tris[t]); });
    m_edge_grid.build(m_exec, m_edges, std::max(m_base_cell, owned_reach + edge_radius + sv.radius),
                      [=] DRAPE_HD(std::uint32_t e) { return edge_spheres[e]; });
    const kernels::HashGridView tri_grid = m_tri_grid.view();
    const kernels::HashGridView edge_grid = m_edge_grid.view();
    const std::uint32_t pt = pt_rows.gather(
        m_exec, [=] DRAPE_HD(std::uint32_t v, std::uint32_t * row, std::uint32_t capacity) {
          std::uint32_t n = 0;
          const glm::vec4 point(p[v], 0.0f);
          kernels::for_each_near(tri_grid, point, sv.radius, tri_radius,
                                 [&](std::uint32_t t, const glm::vec4&) {
                                   if (!kernels::point_triangle_candidate(v, t, p, w, sv)) return;
                                   if (n < capacity) row[n] = t;
                                   ++n;
                                 });
          return n;
        });
    // One query per vertex for the edges it owns: edges near any of them, each pair (e, f) with
    // e < f once.
    const std::uint32_t ee = ee_rows.gather(
        m_exec, [=] DRAPE_HD(std::uint32_t v, std::uint64_t * row, std::uint32_t capacity) {
          std::uint32_t n = 0;
          const std::uint32_t first = owned[v], last = owned[v + 1];
          if (first == last) return n;
          const std::uint32_t rest_count = sv.rest_ee.rows != nullptr ? sv.rest_ee.counts[v] : 0;
          const std::uint64_t* rest_row = rest_count > 0 ? sv.rest_ee.row(v) : nullptr;
          kernels::for_each_near(
              edge_grid, owned_spheres[v], sv.radius, edge_radius,
              [&](std::uint32_t f, const glm::vec4& fs) {
                // f's rest neighbours among v's edges: a run of v's rest row, in edge order,
                // searched for once one of v's edges passes the sphere test.
                std::uint32_t k = kernels::kNone;
                for (std::uint32_t e = first; e < last && e < f; ++e) {
                  const glm::vec4 es = edge_spheres[e];
                  const glm::vec3 d(es.x - fs.x, es.y - fs.y, es.z - fs.z);
                  const float limit = es.w + fs.w + sv.radius;
                  if (!(glm::dot(d, d) < limit * limit)) continue;
                  const std::uint64_t ef = kernels::edge_pair(e, f);
                  if (k == kernels::kNone) k = rest_count > 0 ? sv.rest_ee.lower_bound(v, ef) : 0;
                  while (k < rest_count && rest_row[k] < ef) ++k;
                  if (k < rest_count && rest_row[k] == ef) continue;
                  if (kernels::segments_apart(d, halves[e], halves[f], sv.radius)) continue;
                  if (!kernels::edge_edge_candidate(e, f, p, w, sv)) continue;
                  if (n < capacity) row[n] = ef;
                  ++n;
                }
              },
              first);
          return n;
        });
    return {pt, ee};
  }

  // Finds the contacts at the current positions p (sides from the start positions x).
  void rebuild(kernels::ParticleView s) {
    const kernels::SelfView sv = view();
    const auto [pt, ee] = find_pairs(s.p, s.w, m_pt, m_ee);
    m_count = pt + ee;
    m_contacts_found += m_count;
    const std::size_t slots = 4 * static_cast<std::size_t>(m_count);
    m_contacts.resize(m_count);
    m_active.resize(m_count);
    m_slot_dp.resize(slots);
    m_slot_keys.resize(slots);
    m_slots.resize(slots);
    kernels::Contact* contacts = m_contacts.data();
    m_pt.emit(m_exec, 0, [=] DRAPE_HD(std::uint32_t v, std::uint32_t t, std::uint32_t k) {
      contacts[k] = kernels::make_point_triangle(v, t, s, sv);
    });
    m_ee.emit(m_exec, pt, [=] DRAPE_HD(std::uint32_t, std::uint64_t ef, std::uint32_t k) {
      contacts[k] =
          kernels::make_edge_edge(kernels::first_edge(ef), kernels::second_edge(ef), s, sv);
    });

    // Each vertex's slots, in contact order.
    std::uint32_t* keys = m_slot_keys.data();
    std::uint32_t* order = m_slots.data();
    std::uint32_t* start = m_vertex_start.data();
    std::uint32_t* end = m_vertex_end.data();
    const auto n = static_cast<std::uint32_t>(slots);
    m_exec.for_each(0, n, [=] DRAPE_HD(std::uint32_t i) {
      keys[i] = contacts[i / 4].v[i % 4];
      order[i] = i;
    });
    m_exec.sort_pairs(keys, order, n);
    m_exec.for_each(0, m_vertices, [=] DRAPE_HD(std::uint32_t v) { start[v] = kernels::kNone; });
    m_exec.for_each(0, n,
                    [=] DRAPE_HD(std::uint32_t i) { kernels::mark_run(i, keys, n, start, end); });
  }

  // Extra contact passes at the end of a substep: a pair left inside the thickness, or on the
  // wrong side, would start the next substep with that side as its own.
  void settle(kernels::ParticleView s) {
    for (int pass = 0; pass < kSettlePasses; ++pass) project(s);
  }

  // One Jacobi pass over the contacts.
  void project(kernels::ParticleView s) {
    if (m_count == 0) return;
    const kernels::SelfView sv = view();
    const kernels::Contact* contacts = m_contacts.data();
    glm::vec3* slot_dp = m_slot_dp.data();
    std::uint32_t* active = m_active.data();
    m_exec.for_each(0, m_count, [=] DRAPE_HD(std::uint32_t c) {
      kernels::solve_contact(c, contacts, s, sv, slot_dp, active);
    });
    const std::uint32_t* start = m_vertex_start.data();
    const std::uint32_t* end = m_vertex_end.data();
    const std::uint32_t* order = m_slots.data();
    m_exec.for_each(0, m_vertices, [=] DRAPE_HD(std::uint32_t v) {
      kernels::apply_contacts(v, s, start, end, order, slot_dp, active);
    });
  }

 private:
  kernels::SelfView view() {
    kernels::SelfView v = m_view;
    v.triangles = m_tris.data();
    v.edge_v0 = m_edge_v0.data();
    v.edge_v1 = m_edge_v1.data();
    return v;
  }

  Exec m_exec;
  std::uint32_t m_vertices, m_edges, m_triangles = 0;
  bool m_every_iteration;
  float m_base_cell = 0.0f;
  kernels::SelfView m_view;
  Buffer<glm::uvec3> m_tris;
  std::vector<std::uint32_t> m_edge_ids;  // topology edge of each edge here
  Buffer<std::uint32_t> m_edge_v0, m_edge_v1, m_owned;
  Buffer<float> m_lengths, m_owned_radii;
  Buffer<glm::vec4> m_edge_spheres, m_owned_spheres;
  Buffer<glm::vec3> m_edge_halves;
  HashGrid<Exec> m_tri_grid, m_edge_grid;
  CandidateRows<Exec> m_pt, m_rest_pt;
  CandidateRows<Exec, std::uint64_t> m_ee, m_rest_ee;
  std::uint32_t m_count = 0;
  std::uint64_t m_contacts_found = 0;
  Buffer<kernels::Contact> m_contacts;
  Buffer<std::uint32_t> m_active, m_slot_keys, m_slots, m_vertex_start, m_vertex_end;
  Buffer<glm::vec3> m_slot_dp;
};

}  // namespace drape
