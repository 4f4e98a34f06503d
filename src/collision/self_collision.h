// Self-collision for the coloured solver, written once for every launch layer (included by
// solver/parallel_solver.h). Per rebuild: one hash grid over the vertices' groups (a vertex, its
// edges to higher vertices and the triangles whose lowest vertex it is, by their bounding sphere)
// sorted with Thrust; candidate pairs gathered per vertex (the point-triangle and edge-edge pairs
// between its group and each higher group near it) into fixed-capacity rows (doubled and redone
// when a row overflows), compacted with a prefix sum into one contact list. Per iteration: every
// contact computes its correction; the active contacts are selected, their vertex slots sorted by
// vertex, and every vertex they touch applies the mean of its own.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "collision/candidate_rows.h"
#include "collision/edge_pairs.h"
#include "collision/hash_grid.h"
#include "collision/self_intersection.h"
#include "collision/untangle.h"
#include "drape/error.h"
#include "kernels/geometry.h"
#include "kernels/pair_query.h"
#include "kernels/pair_reuse.h"
#include "kernels/self_contact.h"
#include "model/cloth.h"
#include "solver/physics.h"

namespace drape {

// How far beyond the thickness contacts are gathered, as a multiple of the thickness: room for
// the motion of the iterations between two rebuilds.
constexpr float kSearchMargin = 0.5f;
// Reuse of the pairs of a full search (kernels/pair_reuse.h): the skin it gathers beyond the
// search radius, as a multiple of the thickness; the part of it the displacements may span (the
// rest covers rounding); the cost of a full search with the skin, in full searches without it,
// for deciding when the next one pays (gather_pairs). Chosen, not tuned: a skin of 0.5 measured
// the same on the 128² benchmark.
constexpr float kReuseSkin = 0.25f;
constexpr float kReuseSlack = 0.95f;
constexpr float kRefreshCost = 1.5f;
constexpr std::uint32_t kRetryAfter = 8;
// What a vertex costs whose query met only groups that moved with it (it then tests its kept
// pairs), in queries that visit the groups they meet: scanning the grid took about 30% of a
// query's perf samples on the 256² fold, and the motion test reads a box per group met.
constexpr float kScanCost = 0.35f;
// Contact-only passes after the last iteration of a substep.
constexpr int kSettlePasses = 4;
// Later passes skip contacts (project) only after a rebuild that found at least this many contacts
// per vertex: the displacement pass that decides it reads every vertex's group, which costs about
// what evaluating a contact does. Measured (perf samples): it doubled the cost of the contact
// passes of data/folding_cloth.json (0.5 contacts per vertex) and took 6% off those of the 256²
// fold (3.8).
constexpr std::uint32_t kSkipFrom = 2;
// With stitches, pairs within this multiple of the search radius at the sewn start whose
// elements lie within kSeamReach search radii of each other along the sewn surface are
// neighbours. Chosen on the dress scenes (README, "Sewing"): 1.5 and 2 close the seams of
// the dress on its mannequin with no crossing in any frame.
constexpr float kSewnSearch = 1.5f;
constexpr float kSeamReach = 2.0f;

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
        m_every_iteration(params.every_iteration),
        m_untangle(params.untangle) {
    // Degenerate triangles have no normal to push along: they take part through their edges.
    const auto& x = cloth.mesh.positions;
    std::vector<glm::uvec3> triangles;
    for (const glm::uvec3& t : cloth.mesh.triangles) {
      if (!is_degenerate(x[t.x], x[t.y], x[t.z])) triangles.push_back(t);
    }
    // Triangles by their lowest vertex, which owns them.
    const auto lowest = [](const glm::uvec3& t) { return std::min(t.x, std::min(t.y, t.z)); };
    std::stable_sort(
        triangles.begin(), triangles.end(),
        [&](const glm::uvec3& a, const glm::uvec3& b) { return lowest(a) < lowest(b); });
    m_triangles = static_cast<std::uint32_t>(triangles.size());
    m_tris.upload(triangles);
    std::vector<std::uint32_t> owned_triangles(m_vertices + 1, 0);
    for (const glm::uvec3& t : triangles) ++owned_triangles[lowest(t) + 1];
    for (std::uint32_t v = 0; v < m_vertices; ++v) owned_triangles[v + 1] += owned_triangles[v];
    m_owned_triangles.upload(owned_triangles);
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
    // Pair keys count a group's edges and triangles in 15 bits.
    for (std::uint32_t v = 0; v < m_vertices; ++v) {
      const std::uint32_t most =
          std::max(owned[v + 1] - owned[v], owned_triangles[v + 1] - owned_triangles[v]);
      if (most >= kernels::kMaxGroupItems) {
        throw InputError("cloth: vertex " + std::to_string(v) + " has " + std::to_string(most) +
                         " edges or triangles to higher-numbered vertices; self-collision "
                         "handles at most " +
                         std::to_string(kernels::kMaxGroupItems - 1));
      }
    }
    m_edge_v0.upload(v0);
    m_edge_v1.upload(v1);
    m_owned.upload(owned);
    m_edge_spheres.resize(m_edges);
    m_edge_halves.resize(m_edges);
    m_tri_spheres.resize(m_triangles);
    m_groups.resize(m_vertices);
    m_group_radii.resize(m_vertices);
    m_pairs.resize(m_vertices);
    m_kept.resize(m_vertices);
    m_base.resize(m_vertices);
    m_motion.resize(m_vertices);
    m_motion_reach.resize(m_vertices);
    m_run_motion.resize(m_vertices);
    m_fresh.resize(m_vertices);
    m_fresh_ids.resize(m_vertices);
    m_shift.resize(m_vertices);
    m_pass_base[0].resize(m_vertices);
    m_pass_base[1].resize(m_vertices);

    m_base_cell = static_cast<float>(
        params.cell_size > 0.0 ? params.cell_size : mean_rest_edge_length(cloth.topology));
    m_view.thickness = static_cast<float>(params.thickness);
    m_view.radius = static_cast<float>(params.thickness) * (1.0f + kSearchMargin);
    m_view.friction = static_cast<float>(params.friction);

    build_near_rows(cloth, w);
    if (edge_pairs_near(params.edge_pairs, params.thickness, cloth.topology)) {
      m_edge_reach = kEdgeReach * m_view.radius;
      m_near_edges = true;
    }
    if (m_untangle) {
      m_all_triangles = cloth.mesh.triangles;
      m_seams = seam_neighbours(cloth.stitches, cloth.mesh.triangles, m_vertices);
    }
  }

  bool every_iteration() const { return m_every_iteration; }
  bool untangles() const { return m_untangle; }

  // With untangling: finds where the cloth intersects itself at x (the positions the next
  // contacts take their sides from, on the host; `threads` host threads) and what the contacts
  // gathered until the next call must do there (collision/untangle.h).
  void find_crossings(const std::vector<glm::dvec3>& x, int threads) {
    const SelfIntersections found = find_self_intersections(x, m_all_triangles, threads, &m_seams);
    const CrossingSides sides = crossing_sides(found, x, m_all_triangles);
    m_crossing = !sides.empty();
    if (m_crossing) {
      m_cross_offsets.upload(sides.offsets);
      m_cross_triangles.upload(sides.triangles);
      m_cross_sides.upload(sides.sides);
      m_crossed.upload(sides.crossed);
    }
  }

  // The triangles self-collision uses (the non-degenerate ones), on the host.
  std::vector<glm::uvec3> triangles() const {
    std::vector<glm::uvec3> t;
    m_tris.download(t);
    return t;
  }

  // The pairs in `rows` (filled by find_pairs) on the host, in list order.
  std::vector<kernels::PairIds> host_pairs(const CandidateRows<Exec, std::uint64_t>& rows) const {
    std::vector<std::uint32_t> owned, owned_tris;
    m_owned.download(owned);
    m_owned_triangles.download(owned_tris);
    std::vector<kernels::PairIds> ids;
    for (const auto& [v, pair] : rows.download()) {
      ids.push_back(kernels::decode_pair(v, pair, owned.data(), owned_tris.data()));
    }
    return ids;
  }

  // The rows of the last rebuild's contacts, and how many vertices queried the grid for them (all
  // of them after a full search; the others tested their kept pairs).
  const CandidateRows<Exec, std::uint64_t>& contact_rows() const { return m_pairs; }
  std::uint32_t last_queries() const { return m_last_queries; }
  // Of those, how many visited the groups they met (the others met only groups that moved with
  // them, and tested their kept pairs: kernels::ReuseRows).
  std::uint32_t last_visits() const { return m_last_visits; }
  // Whether the last rebuild bounded and hashed the groups: not when the whole cloth moved as one
  // piece since the last full search (gather_pairs).
  bool last_hashed() const { return m_hashed; }
  // Whether the passes after the first of the last rebuild skip contacts (kSkipFrom).
  bool skips_contacts() const { return m_skipping; }

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
           m_owned_triangles.bytes() + m_edge_spheres.bytes() + m_edge_halves.bytes() +
           m_tri_spheres.bytes() + m_groups.bytes() + m_group_radii.bytes() + m_rest.bytes() +
           m_pairs.bytes() + m_near.bytes() + m_kept_gaps.bytes() + m_grid.bytes() +
           m_contacts.bytes() + m_active.bytes() + m_active_ids.bytes() + m_slot_dp.bytes() +
           m_slot_vertices.bytes() + m_slots.bytes() + m_kept.bytes() + m_base.bytes() +
           m_motion.bytes() + m_motion_reach.bytes() + m_run_motion.bytes() + m_fresh.bytes() +
           m_fresh_ids.bytes();
  }

  // Candidate pairs at positions p into `rows`: in vertex v's row, in ascending order, the
  // point-triangle and edge-edge pairs between v's group and every higher group near it. Returns
  // the number of pairs.
  std::uint32_t find_pairs(const glm::vec3* p, const float* w,
                           CandidateRows<Exec, std::uint64_t>& rows) {
    const float group_radius = bound_groups(p);
    build_grid(group_radius, m_view.radius);
    return rows.gather(m_exec, query(p, w, group_radius));
  }

  // The steps of find_pairs and rebuild. They are public because nvcc accepts an extended
  // __host__ __device__ lambda only in a public member function.
  //
  // The bounding spheres of every edge, triangle and group at positions p; returns the largest
  // group radius.
  float bound_groups(const glm::vec3* p) {
    const kernels::SelfView sv = view();
    const std::uint32_t* e0 = sv.edge_v0;
    const std::uint32_t* e1 = sv.edge_v1;
    const glm::uvec3* tris = sv.triangles;
    const std::uint32_t* owned = m_owned.data();
    glm::vec4* edge_spheres = m_edge_spheres.data();
    glm::vec3* halves = m_edge_halves.data();
    glm::vec4* tri_spheres = m_tri_spheres.data();
    glm::vec4* groups = m_groups.data();
    float* group_radii = m_group_radii.data();
    const std::uint32_t* owned_tris = m_owned_triangles.data();
    // Per vertex, the edges and triangles it owns (each owned by one vertex) and then its group.
    m_exec.for_each(0, m_vertices, [=] DRAPE_HD(std::uint32_t v) {
      for (std::uint32_t e = owned[v]; e < owned[v + 1]; ++e) {
        edge_spheres[e] = kernels::edge_sphere(p, e0[e], e1[e]);
        halves[e] = 0.5f * (p[e1[e]] - p[e0[e]]);
      }
      for (std::uint32_t t = owned_tris[v]; t < owned_tris[v + 1]; ++t) {
        tri_spheres[t] = kernels::triangle_sphere(p, tris[t]);
      }
      groups[v] = kernels::owned_sphere(p, v, owned[v], owned[v + 1], e1);
      group_radii[v] = groups[v].w;
    });
    return m_vertices > 0 ? m_exec.max_value(group_radii, m_vertices) : 0.0f;
  }

  // The grid of the groups bounded last, for queries within `radius`. Two groups hold a pair
  // within the radius only if their spheres come that close, so a query reaches two group radii
  // plus the radius. Cells twice that wide make the box a query searches overlap at most two
  // cells along each axis: 8 buckets instead of up to 27.
  void build_grid(float group_radius, float radius) {
    const glm::vec4* groups = m_groups.data();
    m_grid.build(m_exec, m_vertices, std::max(m_base_cell, 2.0f * (2.0f * group_radius + radius)),
                 [=] DRAPE_HD(std::uint32_t v) { return groups[v]; });
  }

  // The pair search over the grid built last, within the view's radius.
  kernels::PairQuery query(const glm::vec3* p, const float* w, float group_radius) {
    return kernels::PairQuery{p,
                              w,
                              view(),
                              m_owned.data(),
                              m_owned_triangles.data(),
                              m_edge_spheres.data(),
                              m_edge_halves.data(),
                              m_tri_spheres.data(),
                              m_groups.data(),
                              m_grid.view(),
                              group_radius,
                              m_near_edges ? m_rest.data() : nullptr,
                              m_edge_reach};
  }

  // The contacts' pairs at positions p into m_pairs (pair_reuse.h): a full search within the
  // radius plus the skin into m_kept when the last one is used up, then each vertex's row from
  // its kept pairs or, where its neighbourhood has moved too much since that search, from a query
  // of its own. Either way the rows are those a full search would find. When every group's
  // displacements lie within a cube around vertex 0's too small for any query (reach_from), the
  // groups are neither bounded nor hashed. Returns the number of pairs.
  std::uint32_t gather_pairs(const glm::vec3* p, const float* w) {
    const float radius = m_view.radius, skin = kReuseSkin * m_view.thickness;
    std::uint32_t* fresh = m_fresh.data();
    float group_radius = 0.0f;
    m_hashed = true;
    const bool refreshed = m_refresh;
    std::uint32_t queries = 0;
    if (m_refresh) {
      group_radius = bound_groups(p);
      m_view.radius = radius + skin;
      build_grid(group_radius, m_view.radius);
      m_kept.gather(m_exec, query(p, w, group_radius));
      m_view.radius = radius;
      keep_gaps(p, radius + (1.0f - kReuseSlack) * skin);
      glm::vec3* base = m_base.data();
      m_exec.for_each(0, m_vertices, [=] DRAPE_HD(std::uint32_t v) {
        base[v] = p[v];
        fresh[v] = 0;
      });
      m_refresh = false;
      m_last_queries = m_last_visits = m_vertices;
      m_spent = 0.0f;
      m_since = 0;
    } else {
      const glm::vec3* base = m_base.data();
      const std::uint32_t* owned = m_owned.data();
      const std::uint32_t* e1 = m_edge_v1.data();
      kernels::MotionBox* motion = m_motion.data();
      float* reach = m_motion_reach.data();
      m_exec.for_each(0, m_vertices, [=] DRAPE_HD(std::uint32_t v) {
        motion[v] = kernels::group_motion(p, base, v, owned[v], owned[v + 1], e1);
        reach[v] = kernels::reach_from(motion[v], p[0] - base[0]);
      });
      const float limit = kReuseSlack * skin;
      if (kernels::kCubeDiagonal * m_exec.max_value(reach, m_vertices) < limit) {
        m_exec.for_each(0, m_vertices, [=] DRAPE_HD(std::uint32_t v) { fresh[v] = 0; });
        m_hashed = false;
      } else {
        group_radius = bound_groups(p);
        build_grid(group_radius, radius);
        const kernels::HashGridView grid = m_grid.view();
        kernels::MotionBox* run_motion = m_run_motion.data();
        // Each run from its first entry: the table has eight buckets per entry.
        const std::uint32_t entries = m_vertices;
        m_exec.for_each(0, entries, [=] DRAPE_HD(std::uint32_t k) {
          if (k > 0 && grid.keys[k - 1] == grid.keys[k]) return;
          kernels::MotionBox box;
          for (std::uint32_t i = k; i < entries && grid.keys[i] == grid.keys[k]; ++i) {
            box.add(motion[grid.items[i]]);
          }
          run_motion[k] = box;
        });
        const glm::vec4* groups = m_groups.data();
        m_exec.for_each(0, m_vertices, [=] DRAPE_HD(std::uint32_t v) {
          fresh[v] = kernels::needs_query(grid, groups[v], radius, group_radius, run_motion, limit)
                         ? 1
                         : 0;
        });
        queries = m_exec.select(fresh, m_vertices, m_fresh_ids.data());
      }
    }
    const std::uint32_t pairs = m_pairs.gather(
        m_exec, kernels::ReuseRows<kernels::PairQuery>{
                    query(p, w, group_radius), m_kept.pairs(), fresh, m_owned.data(),
                    m_owned_triangles.data(), m_motion.data(), m_run_motion.data(),
                    kReuseSlack * skin, m_kept_gaps.data(), refreshed ? nullptr : m_motion.data()});
    if (!refreshed) {
      // Searching in full again pays once this search's share of the cost of queries exceeds the
      // mean per search since the last full one, counting that one as kRefreshCost. It is also
      // tried when most vertices query kRetryAfter or more searches after it (a cloth that moved
      // and has since settled keeps querying against its old base): at most 1/16 more per search.
      const std::uint32_t visits =
          queries > 0 ? m_exec.select(fresh, m_vertices, m_fresh_ids.data()) : 0;
      m_last_queries = queries;
      m_last_visits = visits;
      const float share =
          (static_cast<float>(visits) + kScanCost * static_cast<float>(queries - visits)) /
          static_cast<float>(m_vertices);
      m_spent += share;
      ++m_since;
      m_refresh = share * static_cast<float>(m_since) > kRefreshCost + m_spent ||
                  (m_since >= kRetryAfter &&
                   static_cast<float>(queries) > 0.5f * static_cast<float>(m_vertices));
    }
    return pairs;
  }

  // Each kept pair's distance at positions p beyond `clear` (kernels::kept_gaps).
  void keep_gaps(const glm::vec3* p, float clear) {
    const kernels::PairRows<std::uint64_t> kept = m_kept.pairs();
    m_kept_gaps.resize(static_cast<std::size_t>(m_vertices) * kept.capacity);
    const kernels::SelfView sv = view();
    const std::uint32_t* owned = m_owned.data();
    const std::uint32_t* owned_tris = m_owned_triangles.data();
    float* gaps = m_kept_gaps.data();
    m_exec.for_each_uneven(0, m_vertices, [=] DRAPE_HD(std::uint32_t v) {
      kernels::kept_gaps(v, kept, owned, owned_tris, p, sv, clear, gaps);
    });
  }

  // Finds the contacts at the current positions p (sides from the start positions x).
  void rebuild(kernels::ParticleView s) {
    const kernels::SelfView sv = view();
    m_count = gather_pairs(s.p, s.w);
    m_contacts_found += m_count;
    const std::size_t slots = 4 * static_cast<std::size_t>(m_count);
    m_contacts.resize(m_count);
    m_contact_groups.resize(m_count);
    m_reach.resize(m_count);
    m_reach_due = true;
    m_skipping = m_count >= static_cast<std::uint64_t>(kSkipFrom) * m_vertices;
    m_active.resize(m_count);
    m_active_ids.resize(m_count);
    m_slot_dp.resize(slots);
    m_slot_vertices.resize(slots);
    m_slots.resize(slots);
    kernels::Contact* contacts = m_contacts.data();
    const std::uint32_t* owned = m_owned.data();
    const std::uint32_t* owned_tris = m_owned_triangles.data();
    // Only passes that skip contacts read their groups.
    glm::uvec2* groups = m_skipping ? m_contact_groups.data() : nullptr;
    m_pairs.emit(m_exec, 0, [=] DRAPE_HD(std::uint32_t v, std::uint64_t pair, std::uint32_t k) {
      if (groups != nullptr) groups[k] = glm::uvec2(v, static_cast<std::uint32_t>(pair >> 32));
      const kernels::PairIds ids = kernels::decode_pair(v, pair, owned, owned_tris);
      contacts[k] = ids.edge_edge ? kernels::make_edge_edge(ids.first, ids.second, s, sv)
                                  : kernels::make_point_triangle(ids.first, ids.second, s, sv);
    });
    if (m_crossing) {
      const kernels::CrossingView cv{m_cross_offsets.data(), m_cross_triangles.data(),
                                     m_cross_sides.data(), m_crossed.data()};
      m_exec.for_each(0, m_count, [=] DRAPE_HD(std::uint32_t c) {
        kernels::untangle_contact(contacts[c], s, cv);
      });
    }
  }

  // Extra contact passes at the end of a substep: a pair left inside the thickness, or on the
  // wrong side, would start the next substep with that side as its own. A pass with no active
  // contact moves nothing, so the passes after it would find none either: they are not run.
  // Returns the number of passes run.
  int settle(kernels::ParticleView s) {
    int pass = 0;
    while (pass < kSettlePasses) {
      ++pass;
      if (project(s) == 0) break;
    }
    return pass;
  }

  // One Jacobi pass over the contacts. Few of them are active in a pass (a few percent in the
  // benchmark's fold), so only the active ones' slots are sorted by vertex and summed. Where
  // contacts are dense (kSkipFrom), each pass keeps the positions it evaluated and, per contact,
  // how far its vertices may move from them before it can become active; a later pass of the same
  // rebuild skips the contacts whose groups have not moved that far. Returns the number of active
  // contacts.
  std::uint32_t project(kernels::ParticleView s) {
    if (m_count == 0) return 0;
    const kernels::SelfView sv = view();
    const kernels::Contact* contacts = m_contacts.data();
    glm::vec3* slot_dp = m_slot_dp.data();
    std::uint32_t* active = m_active.data();
    float* reach = m_reach.data();
    glm::vec3* base = m_pass_base[m_base_at].data();
    if (!m_skipping) {
      m_exec.for_each(0, m_count, [=] DRAPE_HD(std::uint32_t c) {
        kernels::solve_contact(c, contacts, s, sv, slot_dp, active);
      });
    } else if (m_reach_due) {
      m_exec.for_each(0, m_vertices, [=] DRAPE_HD(std::uint32_t v) { base[v] = s.p[v]; });
      m_exec.for_each(0, m_count, [=] DRAPE_HD(std::uint32_t c) {
        kernels::solve_contact(c, contacts, s, sv, slot_dp, active, reach);
      });
      m_reach_due = false;
    } else {
      // The previous pass's positions in one buffer, this pass's into the other.
      glm::vec3* now = m_pass_base[1 - m_base_at].data();
      m_base_at = 1 - m_base_at;
      const std::uint32_t* owned = m_owned.data();
      const std::uint32_t* e1 = m_edge_v1.data();
      float* shift = m_shift.data();
      m_exec.for_each(0, m_vertices, [=] DRAPE_HD(std::uint32_t v) {
        shift[v] = kernels::group_shift(s.p, base, v, owned[v], owned[v + 1], e1);
        now[v] = s.p[v];
      });
      const glm::uvec2* groups = m_contact_groups.data();
      m_exec.for_each(0, m_count, [=] DRAPE_HD(std::uint32_t c) {
        kernels::solve_moved_contact(c, contacts, groups, shift, reach, s, sv, slot_dp, active);
      });
    }
    std::uint32_t* ids = m_active_ids.data();
    const std::uint32_t on = m_exec.select(active, m_count, ids);
    if (on == 0) return 0;
    const std::uint32_t n = 4 * on;
    std::uint32_t* vertices = m_slot_vertices.data();
    std::uint32_t* slots = m_slots.data();
    m_exec.for_each(0, n, [=] DRAPE_HD(std::uint32_t i) {
      vertices[i] = contacts[ids[i / 4]].v[i % 4];
      slots[i] = 4 * ids[i / 4] + i % 4;
    });
    m_exec.sort_pairs(vertices, slots, n);
    m_exec.for_each(0, n, [=] DRAPE_HD(std::uint32_t i) {
      kernels::apply_contacts(i, vertices, slots, n, slot_dp, s);
    });
    return on;
  }

 private:
  // Each vertex's near-group row from the rest pairs: the pairs the same search finds in the rest
  // shape (cloth.rest_mesh, or the start positions) and, with stitches, those found (a little
  // wider, kSewnSearch) at the start positions sewn (sewn_positions: every stitch closed) whose
  // elements are near along the sewn surface (sewn_surface_neighbours, within kSeamReach): the
  // two sides of a seam are neighbours, never contacts, while layers of one panel that sewing
  // gathers or folds onto each other stay contacts. A garment that starts draped keeps its layers
  // apart: only its material and its seams are neighbours.
  void build_near_rows(const ClothModel& cloth, const float* w) {
    const StitchSet& stitches = cloth.stitches;
    CandidateRows<Exec, std::uint64_t> rest_pairs;
    rest_pairs.resize(m_vertices);
    const std::vector<glm::dvec3>& shape = cloth.rest.empty() ? cloth.mesh.positions : cloth.rest;
    m_rest.upload(std::vector<glm::vec3>(shape.begin(), shape.end()));
    find_pairs(m_rest.data(), w, rest_pairs);
    CandidateRows<Exec, std::uint64_t> sewn_pairs, seam_pairs, both;
    if (stitches.size() > 0) {
      const std::vector<glm::dvec3> sewn =
          sewn_positions(stitches, cloth.mesh.positions, cloth.inv_mass);
      Buffer<glm::vec3> sewn_at;
      sewn_at.upload(std::vector<glm::vec3>(sewn.begin(), sewn.end()));
      sewn_pairs.resize(m_vertices);
      const float radius = m_view.radius;
      m_view.radius = kSewnSearch * radius;
      find_pairs(sewn_at.data(), w, sewn_pairs);
      m_view.radius = radius;
      const SeamNeighbours near =
          sewn_surface_neighbours(stitches, cloth.topology, m_vertices, kSeamReach * radius);
      Buffer<std::uint32_t> near_offsets, near_vertices;
      near_offsets.upload(near.offsets);
      near_vertices.upload(near.vertices);
      seam_pairs.resize(m_vertices);
      seam_pairs.gather(m_exec, kernels::SewnRows{sewn_pairs.pairs(), view(), m_owned.data(),
                                                  m_owned_triangles.data(), near_offsets.data(),
                                                  near_vertices.data()});
      both.resize(m_vertices);
      both.gather(m_exec, kernels::UnionRows{rest_pairs.pairs(), seam_pairs.pairs()});
    }
    m_near.resize(m_vertices);
    m_near.gather(m_exec,
                  kernels::NearRowQuery{stitches.size() > 0 ? both.pairs() : rest_pairs.pairs(),
                                        m_owned.data(), m_owned_triangles.data(), w, view()});
    m_view.near = m_near.pairs();
  }

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
  Buffer<std::uint32_t> m_edge_v0, m_edge_v1, m_owned, m_owned_triangles;
  Buffer<float> m_group_radii;
  Buffer<glm::vec4> m_edge_spheres, m_tri_spheres, m_groups;
  Buffer<glm::vec3> m_edge_halves;
  // The rest shape, and how near two groups' vertices lie in it for edge-edge pairs between them
  // (collision/edge_pairs.h) when m_near_edges.
  Buffer<glm::vec3> m_rest;
  float m_edge_reach = 0.0f;
  bool m_near_edges = false;
  HashGrid<Exec> m_grid;
  CandidateRows<Exec, std::uint64_t> m_pairs, m_near;
  // Reuse (gather_pairs): the pairs within the radius plus the skin at the last full search, the
  // positions then, each group's and each bucket's displacements since, the vertices that query.
  CandidateRows<Exec, std::uint64_t> m_kept;
  Buffer<float> m_kept_gaps;  // per kept pair, its distance at the base beyond the radius (rounded)
  Buffer<glm::vec3> m_base;
  Buffer<kernels::MotionBox> m_motion, m_run_motion;
  Buffer<float> m_motion_reach;  // each group's kernels::reach_from vertex 0's displacement
  Buffer<std::uint32_t> m_fresh, m_fresh_ids;
  bool m_refresh = true, m_hashed = true;
  float m_spent = 0.0f;  // the searches' shares of the cost of queries since the last full one
  std::uint32_t m_since = 0, m_last_queries = 0, m_last_visits = 0;
  std::uint32_t m_count = 0;
  std::uint64_t m_contacts_found = 0;
  Buffer<kernels::Contact> m_contacts;
  // Per contact its two groups (its row's vertex, the other group) and how far they may move from
  // the positions of the last pass (m_pass_base[m_base_at]) before it can become active; per
  // group its largest displacement since.
  Buffer<glm::uvec2> m_contact_groups;
  Buffer<float> m_reach, m_shift;
  Buffer<glm::vec3> m_pass_base[2];
  int m_base_at = 0;
  bool m_reach_due = true, m_skipping = false;
  Buffer<std::uint32_t> m_active, m_active_ids, m_slot_vertices, m_slots;
  Buffer<glm::vec3> m_slot_dp;
  // Untangling (collision/untangle.h): every triangle of the mesh and the seams, as the
  // self-intersection metric sees them, and the last crossings found.
  bool m_untangle;
  std::vector<glm::uvec3> m_all_triangles;
  SeamNeighbours m_seams;
  bool m_crossing = false;
  Buffer<std::uint32_t> m_cross_offsets;
  Buffer<glm::uvec3> m_cross_triangles;
  Buffer<float> m_cross_sides;
  Buffer<std::uint8_t> m_crossed;
};

}  // namespace drape
