// The self-collision broad phase (hash grid over vertex groups, near-group rows) against brute
// force.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <utility>

#include <glm/geometric.hpp>

#include "collision/edge_pairs.h"
#include "collision/self_collision.h"
#include "collision/self_collision_pairs.h"
#include "collision/self_intersection.h"
#include "drape/error.h"
#include "kernels/geometry.h"
#include "kernels/pair_reuse.h"
#include "model/cloth.h"
#include "model/primitives.h"
#include "solver/exec_cpu.h"
#include "solver/reference_constraints.h"
#include "solver/solver.h"
#include "test_scenes.h"

namespace drape {
namespace {

using glm::dvec3;
using glm::vec3;

// Pairs whose four vertices are all pinned are never candidates. With `edge_reach` > 0, edge-edge
// pairs only between edges whose lower vertices lie within it at rest (collision/edge_pairs.h).
SelfCollisionPairs brute_force(const ClothModel& cloth, const std::vector<dvec3>& now,
                               double thickness, double edge_reach = 0.0) {
  const auto pinned = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
    return cloth.inv_mass[a] + cloth.inv_mass[b] + cloth.inv_mass[c] + cloth.inv_mass[d] <= 0.0;
  };
  const float r = static_cast<float>(1.5 * thickness);
  const std::vector<vec3> rest(cloth.mesh.positions.begin(), cloth.mesh.positions.end());
  const std::vector<vec3> p(now.begin(), now.end());
  const auto shares = [](const glm::uvec3& t, std::uint32_t v) {
    return t.x == v || t.y == v || t.z == v;
  };
  SelfCollisionPairs pairs;
  for (std::uint32_t v = 0; v < p.size(); ++v) {
    for (const glm::uvec3& t : cloth.mesh.triangles) {
      const auto& x = cloth.mesh.positions;
      if (is_degenerate(x[t.x], x[t.y], x[t.z]) || shares(t, v) || pinned(v, t.x, t.y, t.z))
        continue;
      float a, b, c;
      if (kernels::closest_on_triangle(rest[v], rest[t.x], rest[t.y], rest[t.z], a, b, c) < r * r)
        continue;
      if (kernels::closest_on_triangle(p[v], p[t.x], p[t.y], p[t.z], a, b, c) < r * r)
        pairs.point_triangle.emplace_back(v, t);
    }
  }
  const Topology& topo = cloth.topology;
  for (std::uint32_t e = 0; e < topo.edge_count(); ++e) {
    for (std::uint32_t f = e + 1; f < topo.edge_count(); ++f) {
      const std::uint32_t a = topo.edge_v0[e], b = topo.edge_v1[e];
      const std::uint32_t c = topo.edge_v0[f], d = topo.edge_v1[f];
      if (a == c || a == d || b == c || b == d || pinned(a, b, c, d)) continue;
      if (edge_reach > 0.0 && !(glm::length(cloth.mesh.positions[std::min(a, b)] -
                                            cloth.mesh.positions[std::min(c, d)]) < edge_reach)) {
        continue;
      }
      float s, t;
      if (kernels::closest_on_segments(rest[a], rest[b], rest[c], rest[d], s, t) < r * r) continue;
      if (kernels::closest_on_segments(p[a], p[b], p[c], p[d], s, t) < r * r)
        pairs.edge_edge.emplace_back(e, f);
    }
  }
  return pairs;
}

std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>> as_set(
    const std::vector<std::pair<std::uint32_t, glm::uvec3>>& pairs) {
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>> s;
  for (const auto& [v, t] : pairs) s.emplace(v, t.x, t.y, t.z);
  return s;
}

TEST(SelfCollisionHash, MatchesBruteForceOnRandomMeshes) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> jitter(-0.03, 0.03);
  std::size_t total_pt = 0, total_ee = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const ClothModel cloth = testing::soup(rng, 300, 400, 0.5);
    std::vector<dvec3> now = cloth.mesh.positions;
    for (dvec3& p : now) p += dvec3(jitter(rng), jitter(rng), jitter(rng));
    SelfCollisionParams params;
    params.thickness = 0.01 + 0.01 * trial;
    params.edge_pairs = EdgePairs::all;
    // Cells from the edge lengths, far too small (raised to what the query needs), and large.
    params.cell_size = trial % 3 == 0 ? 0.0 : (trial % 3 == 1 ? 1e-4 : 0.3);
    const SelfCollisionPairs expected = brute_force(cloth, now, params.thickness);
    const SelfCollisionPairs got = find_self_collision_pairs(cloth, params, now, 2);
    EXPECT_EQ(as_set(got.point_triangle), as_set(expected.point_triangle)) << "trial " << trial;
    EXPECT_EQ(got.point_triangle.size(), expected.point_triangle.size()) << "no duplicates";
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ee = got.edge_edge;
    std::sort(ee.begin(), ee.end());
    EXPECT_EQ(ee, expected.edge_edge) << "trial " << trial;
    total_pt += expected.point_triangle.size();
    total_ee += expected.edge_edge.size();
    // The same pairs in the same order on any number of threads.
    const SelfCollisionPairs one = find_self_collision_pairs(cloth, params, now, 1);
    EXPECT_EQ(one.edge_edge, got.edge_edge);
    EXPECT_EQ(one.point_triangle.size(), got.point_triangle.size());
  }
  EXPECT_GT(total_pt, 100u);  // the meshes are dense enough to test something
  EXPECT_GT(total_ee, 100u);
}

// A 40 x 40 grid of 0.4 m (10.3 mm edges) whose right half folds back over the left at 4 mm, with
// the left half squeezed to 3/4 of its width (pairs apart at rest come within the radius) and a
// strip of the fold pinned; the positions of the fold, jittered.
std::vector<dvec3> folded_fine_grid(ClothModel& cloth) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> jitter(-0.0005, 0.0005);
  std::vector<dvec3> now = cloth.mesh.positions;
  for (std::size_t i = 0; i < now.size(); ++i) {
    dvec3& p = now[i];
    if (p.x > 0.01) {
      p = {0.02 - p.x, 0.004, p.z};
    } else {
      p.x = 0.01 + 0.75 * (p.x - 0.01);
    }
    p += dvec3(jitter(rng), jitter(rng), jitter(rng));
    if (std::abs(cloth.mesh.positions[i].x - 0.01) < 0.012) cloth.inv_mass[i] = 0.0;
  }
  return now;
}

TEST(SelfCollisionHash, MatchesBruteForceOnAFoldedFineGrid) {
  // As in the benchmark, the search radius (1.5 x 8 mm) exceeds the edge length (10 mm), so near
  // every vertex most groups hold rest pairs and the near-group rows decide what is tested.
  ClothModel cloth = build_cloth(testing::grid_scene(40, 0.4, {0, 0, 0}));
  const std::vector<dvec3> now = folded_fine_grid(cloth);
  SelfCollisionParams params;
  params.thickness = 0.008;
  ASSERT_FALSE(edge_pairs_near(params.edge_pairs, params.thickness, cloth.topology))
      << "14.5 mm diagonals at 8 mm thickness: edge-edge pairs everywhere";
  const SelfCollisionPairs expected = brute_force(cloth, now, params.thickness);
  EXPECT_GT(expected.point_triangle.size(), 1000u);
  EXPECT_GT(expected.edge_edge.size(), 1000u);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> expected_ee = expected.edge_edge;
  std::sort(expected_ee.begin(), expected_ee.end());
  SelfCollisionPairs first;
  for (const double cell : {0.0, 0.05, 0.3}) {
    params.cell_size = cell;
    const SelfCollisionPairs got = find_self_collision_pairs(cloth, params, now, 2);
    EXPECT_EQ(as_set(got.point_triangle), as_set(expected.point_triangle)) << "cell " << cell;
    EXPECT_EQ(got.point_triangle.size(), expected.point_triangle.size()) << "no duplicates";
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ee = got.edge_edge;
    std::sort(ee.begin(), ee.end());
    EXPECT_EQ(ee, expected_ee) << "cell " << cell;
    // The same pairs in the same order whatever the cells: the order the contacts are applied in,
    // and so the simulation, does not depend on the grid.
    if (cell == 0.0) {
      first = got;
    } else {
      EXPECT_EQ(got.point_triangle, first.point_triangle) << "cell " << cell;
      EXPECT_EQ(got.edge_edge, first.edge_edge) << "cell " << cell;
    }
  }
}

// Edge-edge pairs between parts near each other at rest only (collision/edge_pairs.h), on the fold
// above at 9.7 mm thickness: its longest edges, the 14.5 mm diagonals, are under 1.5 x thickness,
// so that is the default. Between the two layers of the fold, where they lie apart at rest, only
// point-triangle pairs are gathered; about the crease edge-edge pairs are too.
TEST(SelfCollisionHash, EdgePairsNearAtRestMatchBruteForce) {
  ClothModel cloth = build_cloth(testing::grid_scene(40, 0.4, {0, 0, 0}));
  const std::vector<dvec3> now = folded_fine_grid(cloth);
  SelfCollisionParams params;
  params.thickness = 0.0097;
  ASSERT_TRUE(edge_pairs_near(params.edge_pairs, params.thickness, cloth.topology));
  const double reach = kEdgeReach * 1.5 * params.thickness;
  const SelfCollisionPairs everywhere = brute_force(cloth, now, params.thickness);
  const SelfCollisionPairs expected = brute_force(cloth, now, params.thickness, reach);
  EXPECT_EQ(as_set(expected.point_triangle), as_set(everywhere.point_triangle));
  EXPECT_GT(expected.edge_edge.size(), 100u) << "about the crease";
  EXPECT_GT(everywhere.edge_edge.size(), 2 * expected.edge_edge.size()) << "between the layers";
  std::vector<std::pair<std::uint32_t, std::uint32_t>> expected_ee = expected.edge_edge;
  std::sort(expected_ee.begin(), expected_ee.end());
  for (const double cell : {0.0, 0.05}) {
    params.cell_size = cell;
    const SelfCollisionPairs got = find_self_collision_pairs(cloth, params, now, 2);
    EXPECT_EQ(as_set(got.point_triangle), as_set(expected.point_triangle)) << "cell " << cell;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ee = got.edge_edge;
    std::sort(ee.begin(), ee.end());
    EXPECT_EQ(ee, expected_ee) << "cell " << cell;
  }
  // Asked for everywhere, they are.
  params.edge_pairs = EdgePairs::all;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> all =
      find_self_collision_pairs(cloth, params, now, 2).edge_edge;
  std::sort(all.begin(), all.end());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> all_expected = everywhere.edge_edge;
  std::sort(all_expected.begin(), all_expected.end());
  EXPECT_EQ(all, all_expected);
}

// The default decides by the longest rest edge against the thickness; `all` and `near` are kept.
TEST(SelfCollisionHash, EdgePairsNearWhereEdgesAreShortNextToTheThickness) {
  // 10.26 mm edges, 14.50 mm diagonals: near from a thickness of 9.67 mm.
  const ClothModel cloth = build_cloth(testing::grid_scene(40, 0.4, {0, 0, 0}));
  EXPECT_FALSE(edge_pairs_near(EdgePairs::automatic, 0.0096, cloth.topology));
  EXPECT_TRUE(edge_pairs_near(EdgePairs::automatic, 0.0097, cloth.topology));
  EXPECT_FALSE(edge_pairs_near(EdgePairs::all, 0.05, cloth.topology));
  EXPECT_TRUE(edge_pairs_near(EdgePairs::near, 0.001, cloth.topology));
  EXPECT_STREQ(edge_pairs_name(EdgePairs::automatic), "auto");
  EXPECT_STREQ(edge_pairs_name(EdgePairs::all), "all");
  EXPECT_STREQ(edge_pairs_name(EdgePairs::near), "near");
}

TEST(SelfCollisionHash, AVertexWithTooManyEdgesIsAnInputError) {
  // A fan: vertex 0 owns an edge to each of 32,768 rim vertices, one more than pair keys count.
  ClothModel c;
  const int rim = 32768;
  c.mesh.positions.push_back({0.0, 0.0, 0.0});
  for (int i = 0; i < rim; ++i) {
    const double a = 6.283185307179586 * i / rim;
    c.mesh.positions.push_back({std::cos(a), 0.0, std::sin(a)});
  }
  for (std::uint32_t i = 1; i < static_cast<std::uint32_t>(rim); ++i) {
    c.mesh.triangles.emplace_back(0u, i, i + 1);
  }
  c.inv_mass.assign(c.mesh.positions.size(), 1.0);
  c.topology = build_topology(c.mesh.positions, c.mesh.triangles);
  SelfCollisionParams params;
  params.thickness = 0.001;
  EXPECT_THROW(find_self_collision_pairs(c, params, c.mesh.positions, 1), InputError);
}

// Pair reuse (kernels/pair_reuse.h): as a fold moves, every rebuild's contact rows are the rows a
// full search finds at the same positions, whether its vertices reuse their kept pairs (a rigid
// motion: none queries, and no grid is built), query again (one layer sliding onto the other) or
// search in full.
TEST(SelfCollisionReuse, RowsMatchAFullSearchAsTheFoldMoves) {
  const ClothModel cloth = build_cloth(testing::grid_scene(40, 0.4, {0, 0, 0}));
  const auto n = static_cast<std::uint32_t>(cloth.mesh.positions.size());
  // The right quarter folded over the next, `gap` above it and slid `slide` along z.
  const auto fold = [&](float gap, float slide, const vec3& shift) {
    std::vector<vec3> p;
    for (const dvec3& x : cloth.mesh.positions) {
      const vec3 q = x.x > 0.1 ? vec3(0.2 - x.x, gap, x.z + slide) : vec3(x);
      p.push_back(q + shift);
    }
    return p;
  };
  SelfCollisionParams params;
  params.thickness = 0.003;
  exec::CpuExec exec(2);
  exec::CpuExec::Buffer<float> w;
  w.upload(std::vector<float>(cloth.inv_mass.begin(), cloth.inv_mass.end()));
  SelfCollision<exec::CpuExec> reused(cloth, params, w.data(), exec);
  SelfCollision<exec::CpuExec> full(cloth, params, w.data(), exec);
  exec::CpuExec::Buffer<vec3> x, p, v;
  v.upload(std::vector<vec3>(n, vec3(0.0f)));
  std::vector<std::uint32_t> queries, visits, pairs;
  std::vector<bool> hashed;
  const auto rebuild = [&](const std::vector<vec3>& now) {
    x.upload(now);
    p.upload(now);
    reused.rebuild({x.data(), p.data(), v.data(), w.data(), n});
    CandidateRows<exec::CpuExec, std::uint64_t> rows;
    rows.resize(n);
    full.find_pairs(p.data(), w.data(), rows);
    const auto expected = rows.download();
    EXPECT_EQ(reused.contact_rows().download(), expected) << "rebuild " << queries.size();
    queries.push_back(reused.last_queries());
    visits.push_back(reused.last_visits());
    hashed.push_back(reused.last_hashed());
    pairs.push_back(static_cast<std::uint32_t>(expected.size()));
  };
  rebuild(fold(0.006f, 0.0f, vec3(0.0f)));
  rebuild(fold(0.006f, 0.0f, vec3(0.05f, -0.02f, 0.01f)));
  // The top layer sinks from 6 to 3 mm over the bottom one while it slides.
  for (float step = 1.0f; step <= 10.0f; step += 1.0f) {
    rebuild(fold(0.006f - 0.0003f * step, 0.0003f * step, vec3(0.05f, -0.02f, 0.01f)));
  }
  EXPECT_EQ(queries[0], n) << "the first rebuild searches in full";
  EXPECT_EQ(queries[1], 0u) << "a rigid motion keeps every row";
  EXPECT_FALSE(hashed[1]) << "a translation of the whole cloth needs no grid";
  EXPECT_TRUE(std::all_of(hashed.begin() + 2, hashed.end(), [](bool h) { return h; }))
      << "a sliding layer does";
  EXPECT_TRUE(std::any_of(queries.begin() + 2, queries.end(), [&](std::uint32_t q) {
    return q > 0 && q < n;
  })) << "some vertices query again, not all";
  bool scanned_only = false;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    EXPECT_LE(visits[i], queries[i]) << "rebuild " << i;
    scanned_only = scanned_only || visits[i] < queries[i];
  }
  EXPECT_TRUE(scanned_only) << "some querying vertex meets only groups that moved with it";
  EXPECT_TRUE(std::count(queries.begin() + 2, queries.end(), n) > 0)
      << "the reuse runs out and a full search follows";
  EXPECT_GT(pairs.back(), 4 * pairs.front()) << "the layers come within the radius";
}

// The whole-cloth test of pair reuse: a box's reach from an origin, by hand, and no union of
// boxes spans more than 2 sqrt(3) times their largest reach from any common origin.
TEST(SelfCollisionReuse, ReachFromAnOriginBoundsEverySpread) {
  kernels::MotionBox box;
  box.add(vec3(-1.0f, 0.0f, 2.0f));
  box.add(vec3(1.0f, 3.0f, 2.0f));
  EXPECT_FLOAT_EQ(kernels::reach_from(box, vec3(0.0f, 1.0f, 2.0f)), 2.0f);
  EXPECT_FLOAT_EQ(kernels::reach_from(box, vec3(5.0f, 1.0f, 2.0f)), 6.0f);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int trial = 0; trial < 200; ++trial) {
    const vec3 origin(u(rng), u(rng), u(rng));
    kernels::MotionBox all;
    float most = 0.0f;
    for (int b = 0; b < 4; ++b) {
      kernels::MotionBox one;
      for (int k = 0; k < 3; ++k) one.add(origin + 0.1f * vec3(u(rng), u(rng), u(rng)));
      most = std::max(most, kernels::reach_from(one, origin));
      all.add(one);
    }
    EXPECT_FALSE(all.spread_reaches(kernels::kCubeDiagonal * most * 1.0001f)) << trial;
  }
}

// A query over fixed buckets (bucket b is the run {b, b + 1}) holding fixed groups, that writes one
// marker pair when it visits: enough to see which way ReuseRows builds a row, and which groups
// it tested one by one.
struct MarkerQuery {
  std::vector<std::vector<std::uint32_t>> buckets;
  const vec3* p = nullptr;
  const float* w = nullptr;
  kernels::SelfView sv;
  std::vector<std::uint32_t>* tested;

  template <class Spare>
  std::uint32_t search(std::uint32_t, std::uint64_t* row, std::uint32_t capacity,
                       const Spare& spare) const {
    bool all = true;
    for (std::uint32_t b = 0; b < buckets.size(); ++b) {
      if (spare.bucket(glm::uvec2(b, b + 1))) continue;
      for (const std::uint32_t u : buckets[b]) {
        tested->push_back(u);
        all = all && spare.group(u);
      }
    }
    if (all) return kernels::kNone;
    if (capacity > 0) row[0] = 42;
    return 1;
  }
};

// A vertex whose buckets moved (fresh) still takes its kept pairs (here none) when its group and
// each group it meets moved less than the limit apart, pair by pair: two groups that moved apart
// from each other but each with the vertex do not make it visit, and a bucket whose box moved with
// it is not looked into. One group that left it does.
TEST(SelfCollisionReuse, AFreshVertexVisitsOnlyWhenAGroupItMeetsMovedAgainstIt) {
  const auto box = [](std::vector<vec3> at) {
    kernels::MotionBox b;
    for (const vec3& a : at) b.add(a);
    return b;
  };
  // Group 0 is the vertex; 1 and 2 moved 0.6 either way along x (1.2 apart), 3 moved 1.1.
  const std::vector<kernels::MotionBox> motion{box({vec3(0.0f)}), box({vec3(0.6f, 0.0f, 0.0f)}),
                                               box({vec3(-0.6f, 0.0f, 0.0f)}),
                                               box({vec3(1.1f, 0.0f, 0.0f)})};
  // Buckets: {1, 2}, {3}, {1}.
  const std::vector<kernels::MotionBox> run_motion{
      box({vec3(0.6f, 0.0f, 0.0f), vec3(-0.6f, 0.0f, 0.0f)}), motion[3], motion[1]};
  const std::vector<std::uint32_t> counts(4, 0);
  std::vector<std::uint64_t> rows(4);
  std::vector<std::uint32_t> tested;
  // The row's first pair (0 for an empty row), and whether vertex 0 is still marked fresh after.
  const auto row_of = [&](std::vector<std::vector<std::uint32_t>> buckets, std::uint32_t fresh) {
    std::vector<std::uint32_t> flags(4, fresh);
    const kernels::ReuseRows<MarkerQuery> reuse{
        MarkerQuery{std::move(buckets), nullptr, nullptr, {}, &tested},
        {rows.data(), counts.data(), 1},
        flags.data(),
        nullptr,
        nullptr,
        motion.data(),
        run_motion.data(),
        1.0f,
        nullptr,
        nullptr};
    std::uint64_t row[4] = {0, 0, 0, 0};
    const std::uint32_t n = reuse(0, row, 4);
    return std::pair(n == 0 ? std::uint64_t{0} : row[0], flags[0] != 0);
  };
  const auto kept = std::pair(std::uint64_t{0}, false);
  tested.clear();
  EXPECT_EQ(row_of({{1, 2}}, 1), kept) << "each group within the limit of the vertex: kept pairs";
  EXPECT_EQ(tested, (std::vector<std::uint32_t>{1, 2})) << "its bucket spans 1.2: one by one";
  EXPECT_EQ(row_of({{1, 2}, {3}}, 1), std::pair(std::uint64_t{42}, true))
      << "group 3 moved 1.1 against the vertex: a visit, still marked";
  tested.clear();
  EXPECT_EQ(row_of({{}, {}, {1}}, 1), kept) << "nothing met";
  EXPECT_TRUE(tested.empty()) << "bucket {1} moved with the vertex: not looked into";
  EXPECT_EQ(row_of({{1, 2}, {3}}, 0), kept) << "a vertex that is not fresh never searches";
  EXPECT_TRUE(tested.empty());
}

// A kept pair is tested only while its distance at the base beyond the radius (its gap, by hand
// here) does not exceed the spread of its two groups' displacements since. The gaps below are
// given as if point 3 had stood higher at the base than it does, so a pair skipped by its gap
// is missing from the row although the exact test would take it: the row shows which rule ran.
TEST(SelfCollisionReuse, AKeptPairIsTestedOnlyWhenItsGroupsMovedItsGapApart) {
  // Triangle 0 (vertices 0, 1, 2) in z = 0, owned by group 0; point 3 above its centroid.
  const std::vector<glm::uvec3> triangles{{0, 1, 2}};
  const std::vector<std::uint32_t> owned_triangles{0, 1, 1, 1, 1}, owned_edges(5, 0);
  const std::vector<float> w(4, 1.0f);
  kernels::SelfView sv;
  sv.triangles = triangles.data();
  sv.radius = 0.0045f;
  const vec3 centroid(0.01f, 0.01f, 0.0f);
  const auto at = [&](float height) {
    return std::vector<vec3>{vec3(0.0f), vec3(0.03f, 0.0f, 0.0f), vec3(0.0f, 0.03f, 0.0f),
                             centroid + vec3(0.0f, 0.0f, height)};
  };
  const std::uint64_t pair = kernels::group_pair(3, kernels::PairKind::point_on_mine, 0);
  const std::vector<std::uint32_t> counts{1, 0, 0, 0};
  const std::vector<std::uint64_t> kept_rows{pair, 0, 0, 0};
  const kernels::PairRows<std::uint64_t> kept{kept_rows.data(), counts.data(), 1};
  std::vector<float> gaps(4, 0.0f);
  const std::vector<vec3> base = at(0.006f);
  kernels::kept_gaps(0, kept, owned_edges.data(), owned_triangles.data(), base.data(), sv, 0.0045f,
                     gaps.data());
  EXPECT_NEAR(gaps[0], 0.006f - 0.0045f, 1e-7f) << "6 mm above the triangle, 4.5 mm clear";

  const std::vector<vec3> now = at(0.001f);
  const auto still = [](const vec3& u) {
    kernels::MotionBox b;
    b.add(u);
    return b;
  };
  std::vector<std::uint32_t> tested;
  const auto row_of = [&](const kernels::MotionBox* moved) {
    std::vector<std::uint32_t> fresh(4, 0);
    const kernels::ReuseRows<MarkerQuery> reuse{MarkerQuery{{}, now.data(), w.data(), sv, &tested},
                                                kept,
                                                fresh.data(),
                                                owned_edges.data(),
                                                owned_triangles.data(),
                                                nullptr,
                                                nullptr,
                                                1.0f,
                                                gaps.data(),
                                                moved};
    std::uint64_t row[2] = {0, 0};
    const std::uint32_t n = reuse(0, row, 2);
    return n == 0 ? std::uint64_t{0} : row[0];
  };
  EXPECT_EQ(row_of(nullptr), 0u) << "at the base nothing moved: a gap of 1.5 mm is clear";
  const std::vector<kernels::MotionBox> slow{still(vec3(0.0f)), still(vec3(0.0f)),
                                             still(vec3(0.0f)), still(vec3(0.0f, 0.0f, -0.001f))};
  EXPECT_EQ(row_of(slow.data()), 0u) << "the groups moved 1 mm apart, less than the gap";
  const std::vector<kernels::MotionBox> fast{still(vec3(0.0f)), still(vec3(0.0f)),
                                             still(vec3(0.0f)), still(vec3(0.0f, 0.0f, -0.002f))};
  EXPECT_EQ(row_of(fast.data()), pair) << "2 mm apart: tested, and 1 mm away it is near";
  gaps[0] = -0.0035f;
  EXPECT_EQ(row_of(nullptr), pair) << "a pair within the radius at the base is always tested";
  EXPECT_TRUE(tested.empty()) << "no vertex was fresh: no search";
}

// Contact passes after the first of a rebuild skip the contacts whose vertices have not moved
// their reach (kernels/self_contact.h): every such pass gives the positions a pass over all
// contacts gives, with part of the cloth moving between passes as the other constraints move it.
TEST(SelfCollisionReach, LaterPassesMatchAPassOverEveryContact) {
  const ClothModel cloth = build_cloth(testing::grid_scene(40, 0.4, {0, 0, 0}));
  const auto n = static_cast<std::uint32_t>(cloth.mesh.positions.size());
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  // The right quarter folded over the next, 4 mm above it and uneven: some pairs inside the
  // thickness, most near it.
  std::vector<vec3> start;
  for (const dvec3& x : cloth.mesh.positions) {
    start.push_back(x.x > 0.1 ? vec3(0.2 - x.x, 0.004f + 0.0015f * u(rng), x.z) : vec3(x));
  }
  SelfCollisionParams params;
  params.thickness = 0.003;
  exec::CpuExec exec(2);
  exec::CpuExec::Buffer<float> w;
  w.upload(std::vector<float>(cloth.inv_mass.begin(), cloth.inv_mass.end()));
  exec::CpuExec::Buffer<vec3> x, p, v;
  x.upload(start);
  v.upload(std::vector<vec3>(n, vec3(0.0f)));
  const auto view = [&](exec::CpuExec::Buffer<vec3>& at) {
    return kernels::ParticleView{x.data(), at.data(), v.data(), w.data(), n};
  };
  const auto host = [](const exec::CpuExec::Buffer<vec3>& at) {
    std::vector<vec3> out;
    at.download(out);
    return out;
  };
  SelfCollision<exec::CpuExec> skipping(cloth, params, w.data(), exec);
  p.upload(start);
  skipping.rebuild(view(p));
  const std::uint64_t contacts = skipping.take_contact_count();
  ASSERT_TRUE(skipping.skips_contacts()) << contacts << " contacts for " << n << " vertices";
  skipping.project(view(p));
  std::size_t moved_total = 0;
  for (int pass = 1; pass <= 8; ++pass) {
    // A random tenth of the vertices moves, by up to 0.25 mm in the first pass, 2 mm in the last.
    std::vector<vec3> now = host(p);
    const float most = 0.00025f * static_cast<float>(pass);
    for (vec3& q : now) {
      if (rng() % 10 == 0) q += most * vec3(u(rng), u(rng), u(rng));
    }
    // The same contacts, found at the start, in a first pass (every contact) at these positions.
    SelfCollision<exec::CpuExec> full(cloth, params, w.data(), exec);
    exec::CpuExec::Buffer<vec3> fp;
    fp.upload(start);
    full.rebuild(view(fp));
    fp.upload(now);
    full.project(view(fp));
    p.upload(now);
    skipping.project(view(p));
    const std::vector<vec3> got = host(p), expected = host(fp);
    ASSERT_EQ(got, expected) << "pass " << pass;
    for (std::uint32_t i = 0; i < n; ++i) moved_total += got[i] != now[i] ? 1 : 0;
  }
  EXPECT_GT(moved_total, 100u) << "contacts were active";
}

// The passes that settle a substep stop at the first that finds no active contact: it moved
// nothing, so the passes after it would find none either. Either way the positions are those of
// every settling pass run.
TEST(SelfCollisionSettle, StopsAtThePassThatFindsNoActiveContact) {
  const Scene scene = testing::stacked_sheets(20, true);
  const ClothModel cloth = build_cloth(scene);
  const auto n = static_cast<std::uint32_t>(cloth.mesh.positions.size());
  SelfCollisionParams params;
  params.thickness = scene.cloth.thickness;  // 8 mm; the search radius is 12 mm
  exec::CpuExec exec(2);
  exec::CpuExec::Buffer<float> w;
  w.upload(std::vector<float>(cloth.inv_mass.begin(), cloth.inv_mass.end()));
  exec::CpuExec::Buffer<vec3> v;
  v.upload(std::vector<vec3>(n, vec3(0.0f)));
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  // The upper sheet lowered to 10 mm above the other (2 cm at rest): within the search radius,
  // outside the thickness; then uneven by up to 4 mm, some of it inside the thickness.
  for (const float uneven : {0.0f, 0.004f}) {
    std::vector<vec3> start;
    for (std::uint32_t i = 0; i < n; ++i) {
      vec3 q(cloth.mesh.positions[i]);
      if (i >= n / 2) q.y -= 0.01f + uneven * u(rng);
      start.push_back(q);
    }
    exec::CpuExec::Buffer<vec3> x, settled, passed;
    x.upload(start);
    settled.upload(start);
    passed.upload(start);
    SelfCollision<exec::CpuExec> settling(cloth, params, w.data(), exec);
    SelfCollision<exec::CpuExec> every(cloth, params, w.data(), exec);
    settling.rebuild({x.data(), settled.data(), v.data(), w.data(), n});
    every.rebuild({x.data(), passed.data(), v.data(), w.data(), n});
    EXPECT_GT(settling.take_contact_count(), 100u) << "uneven " << uneven;
    const int passes = settling.settle({x.data(), settled.data(), v.data(), w.data(), n});
    // The passes a settle must run: up to the first with no active contact.
    int needed = 0;
    std::uint32_t last = 1;
    for (int pass = 0; pass < kSettlePasses; ++pass) {
      if (needed == pass && last > 0) needed = pass + 1;
      last = every.project({x.data(), passed.data(), v.data(), w.data(), n});
    }
    std::vector<vec3> a, b;
    settled.download(a);
    passed.download(b);
    EXPECT_EQ(a, b) << "uneven " << uneven;
    EXPECT_EQ(passes, needed) << "uneven " << uneven;
    if (uneven == 0.0f) {
      EXPECT_EQ(passes, 1);
    } else {
      EXPECT_EQ(passes, kSettlePasses);
      EXPECT_NE(a, start) << "the active contacts moved the cloth";
    }
  }
}

}  // namespace
}  // namespace drape
