// Self-collision: the geometry and contact kernels, the spec's point-triangle response, the hash
// broad phase against brute force, the intersection metric, and whole simulations that fold
// cloth onto itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include <glm/geometric.hpp>

#include "model/cloth.h"
#include "drape/error.h"
#include "model/primitives.h"
#include "solver/reference_constraints.h"
#include "collision/self_collision_pairs.h"
#include "collision/self_intersection.h"
#include "solver/solver.h"
#include "kernels/self_collision.h"
#include "test_scenes.h"

namespace drape {
namespace {

using glm::dvec3;
using glm::vec3;

// ---------------------------------------------------------------------------------------------
// Kernels

TEST(SelfCollisionKernels, ClosestPointsMatchDenseSampling) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int trial = 0; trial < 200; ++trial) {
    const vec3 a(u(rng), u(rng), u(rng)), b(u(rng), u(rng), u(rng)), c(u(rng), u(rng), u(rng));
    const vec3 p(u(rng), u(rng), u(rng));
    float wa, wb, wc;
    const float d2 = kernels::closest_on_triangle(p, a, b, c, wa, wb, wc);
    EXPECT_NEAR(wa + wb + wc, 1.0f, 1e-5f);
    EXPECT_NEAR(glm::length(p - (wa * a + wb * b + wc * c)), std::sqrt(d2), 1e-5f);
    float sampled = 1e9f;
    const int n = 100;
    for (int i = 0; i <= n; ++i) {
      for (int j = 0; i + j <= n; ++j) {
        const float s = static_cast<float>(i) / n, t = static_cast<float>(j) / n;
        sampled = std::min(sampled, glm::length(p - (a + s * (b - a) + t * (c - a))));
      }
    }
    EXPECT_LE(std::sqrt(d2), sampled + 1e-5f);
    EXPECT_GE(std::sqrt(d2), sampled - 0.05f);  // the sampling step bounds how far off it is

    const vec3 q(u(rng), u(rng), u(rng));
    float s, t;
    const float e2 = kernels::closest_on_segments(a, b, p, q, s, t);
    float sampled_segments = 1e9f;
    for (int i = 0; i <= n; ++i) {
      for (int j = 0; j <= n; ++j) {
        const float si = static_cast<float>(i) / n, tj = static_cast<float>(j) / n;
        sampled_segments =
            std::min(sampled_segments, glm::length((a + si * (b - a)) - (p + tj * (q - p))));
      }
    }
    EXPECT_LE(std::sqrt(e2), sampled_segments + 1e-5f);
    EXPECT_GE(std::sqrt(e2), sampled_segments - 0.05f);
  }
}

TEST(SelfCollisionKernels, SegmentsApartOnlyRejectsPairsBeyondTheRadius) {
  // By hand: parallel unit segments 3 apart along y, end to end along x, and crossing.
  const vec3 hx(0.5f, 0.0f, 0.0f);
  EXPECT_TRUE(kernels::segments_apart(vec3(0.0f, 3.0f, 0.0f), hx, hx, 2.9f));
  EXPECT_FALSE(kernels::segments_apart(vec3(0.0f, 3.0f, 0.0f), hx, hx, 3.1f));
  EXPECT_TRUE(kernels::segments_apart(vec3(3.0f, 0.0f, 0.0f), hx, hx, 1.9f));  // gap 3 - 1 = 2
  EXPECT_FALSE(kernels::segments_apart(vec3(3.0f, 0.0f, 0.0f), hx, hx, 2.1f));
  EXPECT_FALSE(kernels::segments_apart(vec3(0.0f), hx, vec3(0.0f, 0.5f, 0.0f), 0.1f));
  // Random pairs: never rejects one the exact distance puts within the radius, and rejects most
  // of those well beyond it along the line through their midpoints.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int rejected = 0, far = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const vec3 a(u(rng), u(rng), u(rng)), b = a + 0.3f * vec3(u(rng), u(rng), u(rng));
    const vec3 c(u(rng), u(rng), u(rng)), d = c + 0.3f * vec3(u(rng), u(rng), u(rng));
    const float radius = 0.5f * (u(rng) + 1.0f);
    float s, t;
    const float distance = std::sqrt(kernels::closest_on_segments(a, b, c, d, s, t));
    const bool apart = kernels::segments_apart(0.5f * (a + b) - 0.5f * (c + d), 0.5f * (b - a),
                                               0.5f * (d - c), radius);
    if (distance < radius) {
      EXPECT_FALSE(apart) << "trial " << trial;
    }
    if (distance > radius + 0.3f) {
      ++far;
      rejected += apart ? 1 : 0;
    }
  }
  EXPECT_GT(rejected, far / 2);
}

TEST(SelfCollisionKernels, OwnedSphereHoldsTheVertexAndItsEdges) {
  // A vertex with edges to +x, +y and the diagonal: the sphere is about the square's centre.
  const std::vector<vec3> p{vec3(0.0f), vec3(1.0f, 0.0f, 0.0f), vec3(0.0f, 1.0f, 0.0f),
                            vec3(1.0f, 1.0f, 0.0f)};
  const std::vector<std::uint32_t> far_end{1, 2, 3};
  const glm::vec4 s = kernels::owned_sphere(p.data(), 0, 0, 3, far_end.data());
  EXPECT_NEAR(s.x, 0.5f, 1e-6f);
  EXPECT_NEAR(s.y, 0.5f, 1e-6f);
  EXPECT_NEAR(s.w, std::sqrt(0.5f), 1e-4f);  // half the diagonal, not the diagonal
  // Random fans: every owned endpoint inside.
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<vec3> q(6);
    for (vec3& x : q) x = vec3(u(rng), u(rng), u(rng));
    const std::vector<std::uint32_t> ends{1, 2, 3, 4, 5};
    const std::uint32_t last = 1 + trial % 5;
    const glm::vec4 o = kernels::owned_sphere(q.data(), 0, 0, last, ends.data());
    const vec3 centre(o.x, o.y, o.z);
    EXPECT_LE(glm::length(q[0] - centre), o.w);
    for (std::uint32_t e = 0; e < last; ++e) EXPECT_LE(glm::length(q[ends[e]] - centre), o.w);
  }
}

TEST(SelfCollisionKernels, NearGroupRowsListWhatAQueryMustStillTest) {
  // One quad, triangles (0, 1, 2) and (1, 3, 2); edges ordered (0,1) (0,2) (1,2) (1,3) (2,3).
  // Group 0 owns edges (0,1) (0,2) and triangle (0,1,2); group 1 owns (1,2) (1,3) and (1,3,2);
  // group 2 owns (2,3). Between groups 0 and 1 only point 0 on (1,3,2) and edges (0,2)-(1,3) share
  // no vertex; between groups 0 and 2 only edges (0,1)-(2,3).
  const std::vector<glm::uvec3> tris{{0, 1, 2}, {1, 3, 2}};
  const std::vector<std::uint32_t> v0{0, 0, 1, 1, 2}, v1{1, 2, 2, 3, 3};
  const std::vector<std::uint32_t> owned_edges{0, 2, 4, 5, 5}, owned_tris{0, 1, 2, 2, 2};
  kernels::SelfView sv;
  sv.triangles = tris.data();
  sv.edge_v0 = v0.data();
  sv.edge_v1 = v1.data();
  using kernels::group_pair;
  using kernels::PairKind;
  const auto header = [](std::uint32_t u) {
    return group_pair(u, PairKind::header, kernels::kOpenPairs);
  };
  const auto row_of = [&](const std::vector<std::uint64_t>& rest, const std::vector<float>& w) {
    std::vector<std::uint64_t> row(8);
    const std::uint32_t n =
        kernels::near_group_row(0, rest.data(), static_cast<std::uint32_t>(rest.size()), row.data(),
                                8, owned_edges.data(), owned_tris.data(), w.data(), sv);
    row.resize(n);
    return row;
  };
  const std::vector<float> free(4, 1.0f);
  // One of the two pairs with group 1 is a rest pair: the other is listed. The only pair with
  // group 2 is a rest pair: the header alone, so a query skips group 2.
  const std::vector<std::uint64_t> rest{group_pair(1, PairKind::point_on_theirs, 0),
                                        group_pair(2, PairKind::edges, 0, 0)};
  EXPECT_EQ(row_of(rest, free), (std::vector<std::uint64_t>{
                                    header(1), group_pair(1, PairKind::edges, 1, 1), header(2)}));
  // With vertices 0, 1, 2 and 3 all pinned nothing is left to test.
  EXPECT_EQ(row_of(rest, std::vector<float>(4, 0.0f)),
            (std::vector<std::uint64_t>{header(1), header(2)}));
  // Too small a row reports the length it needs.
  std::uint64_t one = 0;
  EXPECT_EQ(kernels::near_group_row(0, rest.data(), 2, &one, 1, owned_edges.data(),
                                    owned_tris.data(), free.data(), sv),
            3u);
  EXPECT_EQ(one, header(1));
}

// Four vertices, a contact between them, and one correction applied.
struct Contact4 {
  vec3 x[4], p[4];
  float w[4];
};

kernels::SelfView contact_view(float thickness, float friction) {
  kernels::SelfView sv;
  sv.thickness = thickness;
  sv.radius = 1.5f * thickness;
  sv.friction = friction;
  return sv;
}

bool correct(Contact4& c, kernels::ContactKind kind, const kernels::SelfView& sv, vec3 dp[4]) {
  kernels::ParticleView s{c.x, c.p, nullptr, c.w, 4};
  kernels::Contact k{{0, 1, 2, 3}, kind, vec3(0.0f)};
  if (kind == kernels::ContactKind::point_triangle) {
    EXPECT_TRUE(kernels::point_triangle_side(c.x[0], c.x[1], c.x[2], c.x[3], k.side));
  } else {
    EXPECT_TRUE(kernels::edge_edge_side(
        c.x[0], c.x[1], c.x[2], c.x[3], [] { return vec3(0, 1, 0); }, k.side));
  }
  if (!kernels::contact_correction(k, s, sv, dp)) return false;
  for (int j = 0; j < 4; ++j) c.p[j] += dp[j];
  return true;
}

vec3 momentum(const vec3 dp[4], const float w[4]) {
  vec3 sum(0.0f);
  for (int j = 0; j < 4; ++j) {
    if (w[j] > 0.0f) sum += dp[j] / w[j];
  }
  return sum;
}

TEST(SelfCollisionKernels, PointTriangleContactRestoresTheThicknessAndConservesMomentum) {
  // A point that came from above a triangle in the y = 0 plane and is now 2 mm above it.
  Contact4 c{{{0.2f, 0.01f, 0.2f}, {0, 0, 0}, {1, 0, 0}, {0, 0, 1}},
             {{0.2f, 0.002f, 0.2f}, {0, 0, 0}, {1, 0, 0}, {0, 0, 1}},
             {1.0f, 0.5f, 2.0f, 1.0f}};
  vec3 dp[4];
  ASSERT_TRUE(correct(c, kernels::ContactKind::point_triangle, contact_view(0.005f, 0.0f), dp));
  // The point's distance to the moved triangle, at its barycentric point (0.6, 0.2, 0.2).
  const vec3 q = 0.6f * c.p[1] + 0.2f * c.p[2] + 0.2f * c.p[3];
  EXPECT_NEAR(c.p[0].y - q.y, 0.005f, 1e-6f);
  const vec3 m = momentum(dp, c.w);
  EXPECT_NEAR(glm::length(m), 0.0f, 1e-7f);
  EXPECT_GT(dp[0].y, 0.0f);
  EXPECT_LT(dp[2].y, 0.0f);

  // Far enough: no correction.
  Contact4 apart = c;
  apart.p[0].y = 0.02f;
  EXPECT_FALSE(correct(apart, kernels::ContactKind::point_triangle, contact_view(0.005f, 0), dp));
}

TEST(SelfCollisionKernels, APointThatPassedThroughGoesBackToItsSide) {
  // From 1 cm above to 3 mm below within the substep: pushed back above, not further down.
  Contact4 c{{{0.2f, 0.01f, 0.2f}, {0, 0, 0}, {1, 0, 0}, {0, 0, 1}},
             {{0.2f, -0.003f, 0.2f}, {0, 0, 0}, {1, 0, 0}, {0, 0, 1}},
             {1.0f, 0.0f, 0.0f, 0.0f}};  // a pinned triangle: the point takes it all
  vec3 dp[4];
  ASSERT_TRUE(correct(c, kernels::ContactKind::point_triangle, contact_view(0.005f, 0.0f), dp));
  EXPECT_NEAR(c.p[0].y, 0.005f, 1e-6f);
  for (int j = 1; j < 4; ++j) EXPECT_EQ(dp[j], vec3(0.0f));
}

TEST(SelfCollisionKernels, FrictionHoldsAContactThatSlidesLessThanItsGrip) {
  // The point slid 1 mm along x while it sank 4 mm into the thickness: friction 1 undoes the
  // slide, friction 0 keeps it.
  const Contact4 start{{{0.2f, 0.01f, 0.2f}, {0, 0, 0}, {1, 0, 0}, {0, 0, 1}},
                       {{0.201f, 0.001f, 0.2f}, {0, 0, 0}, {1, 0, 0}, {0, 0, 1}},
                       {1.0f, 0.0f, 0.0f, 0.0f}};
  vec3 dp[4];
  Contact4 grip = start;
  ASSERT_TRUE(correct(grip, kernels::ContactKind::point_triangle, contact_view(0.005f, 1.0f), dp));
  EXPECT_NEAR(grip.p[0].x, 0.2f, 1e-6f);
  Contact4 slip = start;
  ASSERT_TRUE(correct(slip, kernels::ContactKind::point_triangle, contact_view(0.005f, 0.0f), dp));
  EXPECT_NEAR(slip.p[0].x, 0.201f, 1e-6f);
}

TEST(SelfCollisionKernels, EdgeEdgeContactSeparatesCrossingEdges) {
  // Edge ab along x at y = 2 mm, edge cd along z at y = 0; ab started 1 cm above.
  Contact4 c{{{-1, 0.01f, 0}, {1, 0.01f, 0}, {0, 0, -1}, {0, 0, 1}},
             {{-1, 0.002f, 0.1f}, {1, 0.002f, 0.1f}, {0.2f, 0, -1}, {0.2f, 0, 1}},
             {1.0f, 3.0f, 0.5f, 1.0f}};
  vec3 dp[4];
  ASSERT_TRUE(correct(c, kernels::ContactKind::edge_edge, contact_view(0.005f, 0.0f), dp));
  float s, t;
  const float d2 = kernels::closest_on_segments(c.p[0], c.p[1], c.p[2], c.p[3], s, t);
  EXPECT_NEAR(std::sqrt(d2), 0.005f, 1e-5f);
  EXPECT_NEAR(glm::length(momentum(dp, c.w)), 0.0f, 1e-7f);
  // Edges that share no close point are left alone.
  c.p[0].y = c.p[1].y = 0.05f;
  EXPECT_FALSE(correct(c, kernels::ContactKind::edge_edge, contact_view(0.005f, 0.0f), dp));
}

// The spec's resolve_point_triangle_collision, worked by hand: the triangle's normal
// (B - A) x (C - A) = (0, -1, 0) points down, the point is 2 mm above, so d = -0.002, the push
// direction is up and the push (thickness - d) = 7 mm; projection (0.25, 0, 0.25) has
// barycentrics (0.5, 0.25, 0.25).
TEST(SelfCollisionKernels, AVertexMovesByTheMeanOfItsActiveSlots) {
  // Active slots sorted by vertex: vertex 0 has slots 1 and 6, vertex 2 has slot 3.
  std::vector<vec3> slot_dp(8, vec3(100.0f));
  slot_dp[1] = {1.0f, 0.0f, 0.0f};
  slot_dp[6] = {0.0f, 2.0f, 0.0f};
  slot_dp[3] = {0.0f, 0.0f, 3.0f};
  const std::vector<std::uint32_t> vertices{0, 0, 2}, slots{1, 6, 3};
  std::vector<vec3> p(3, vec3(1.0f));
  kernels::ParticleView s{nullptr, p.data(), nullptr, nullptr, 3};
  for (std::uint32_t i = 0; i < 3; ++i) {
    kernels::apply_contacts(i, vertices.data(), slots.data(), 3, slot_dp.data(), s);
  }
  EXPECT_EQ(p[0], vec3(1.5f, 2.0f, 1.0f));
  EXPECT_EQ(p[1], vec3(1.0f));
  EXPECT_EQ(p[2], vec3(1.0f, 1.0f, 4.0f));
}

TEST(SelfCollisionReference, SpecPointTriangleResponseByHand) {
  const dvec3 abc[3] = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}};
  const double w_abc[3] = {1, 1, 1};
  dvec3 dp[4];
  ASSERT_TRUE(
      reference::point_triangle_correction({0.25, 0.002, 0.25}, 1.0, abc, w_abc, 0.005, dp));
  EXPECT_NEAR(dp[0].y, 0.007 / 4, 1e-15);
  EXPECT_NEAR(dp[1].y, -0.5 * 0.007 * 3 / 4, 1e-15);
  EXPECT_NEAR(dp[2].y, -0.25 * 0.007 * 3 / 4, 1e-15);
  EXPECT_NEAR(dp[3].y, -0.25 * 0.007 * 3 / 4, 1e-15);
  EXPECT_EQ(dp[0].x, 0.0);
  // A pinned triangle: the point takes the whole push, to thickness + 2|d| (as written).
  const double pinned[3] = {0, 0, 0};
  ASSERT_TRUE(
      reference::point_triangle_correction({0.25, 0.002, 0.25}, 1.0, abc, pinned, 0.005, dp));
  EXPECT_NEAR(0.002 + dp[0].y, 0.009, 1e-15);
  // Outside the triangle, or beyond the thickness: nothing.
  EXPECT_FALSE(reference::point_triangle_correction({0.9, 0.002, 0.9}, 1.0, abc, w_abc, 0.005, dp));
  EXPECT_FALSE(
      reference::point_triangle_correction({0.25, 0.006, 0.25}, 1.0, abc, w_abc, 0.005, dp));
}

// ---------------------------------------------------------------------------------------------
// Broad phase against brute force

ClothModel soup(std::mt19937& rng, int vertices, int triangles, double box) {
  std::uniform_real_distribution<double> u(0.0, box);
  std::uniform_int_distribution<std::uint32_t> pick(0, static_cast<std::uint32_t>(vertices) - 1);
  ClothModel c;
  for (int i = 0; i < vertices; ++i) c.mesh.positions.push_back({u(rng), u(rng), u(rng)});
  while (static_cast<int>(c.mesh.triangles.size()) < triangles) {
    const glm::uvec3 t(pick(rng), pick(rng), pick(rng));
    if (t.x == t.y || t.y == t.z || t.x == t.z) continue;
    c.mesh.triangles.push_back(t);
  }
  c.inv_mass.assign(c.mesh.positions.size(), 1.0);
  c.topology = build_topology(c.mesh.positions, c.mesh.triangles);
  return c;
}

// Pairs whose four vertices are all pinned are never candidates.
SelfCollisionPairs brute_force(const ClothModel& cloth, const std::vector<dvec3>& now,
                               double thickness) {
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
    const ClothModel cloth = soup(rng, 300, 400, 0.5);
    std::vector<dvec3> now = cloth.mesh.positions;
    for (dvec3& p : now) p += dvec3(jitter(rng), jitter(rng), jitter(rng));
    SelfCollisionParams params;
    params.thickness = 0.01 + 0.01 * trial;
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

TEST(SelfCollisionHash, MatchesBruteForceOnAFoldedFineGrid) {
  // As in the benchmark, the search radius (1.5 x 8 mm) exceeds the edge length (10 mm), so near
  // every vertex most groups hold rest pairs and the near-group rows decide what is tested. The
  // right half folds back over the left at 4 mm, the left half is squeezed to 3/4 of its width
  // (pairs apart at rest come within the radius) and a strip of the fold is pinned.
  Scene scene = testing::grid_scene(40, 0.4, {0, 0, 0});
  ClothModel cloth = build_cloth(scene);
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
  SelfCollisionParams params;
  params.thickness = 0.008;
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

// ---------------------------------------------------------------------------------------------
// The intersection metric

TEST(SelfIntersection, TrianglePairs) {
  const dvec3 flat[3] = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}};
  const dvec3 through[3] = {{0.2, -0.5, 0.2}, {0.2, 0.5, 0.2}, {0.3, 0.5, 0.1}};
  const dvec3 above[3] = {{0, 0.1, 0}, {1, 0.1, 0}, {0, 0.1, 1}};
  const dvec3 touching[3] = {{0.2, 0, 0.2}, {0.2, 1, 0.2}, {0.3, 1, 0.1}};
  const dvec3 overlapping[3] = {{0.1, 0, 0.1}, {2, 0, 0.1}, {0.1, 0, 2}};
  const dvec3 beside[3] = {{2, 0, 2}, {3, 0, 2}, {2, 0, 3}};
  EXPECT_TRUE(triangles_intersect(flat, through));
  EXPECT_TRUE(triangles_intersect(through, flat));
  EXPECT_FALSE(triangles_intersect(flat, above));
  EXPECT_TRUE(triangles_intersect(flat, touching));
  EXPECT_TRUE(triangles_intersect(flat, overlapping));
  EXPECT_FALSE(triangles_intersect(flat, beside));
}

TEST(SelfIntersection, AFlatSheetInAnyOrientationHasNone) {
  for (const dvec3& rotation : {dvec3(0, 0, 0), dvec3(70, 0, 15), dvec3(33, 47, 11)}) {
    TriMesh grid = make_grid({40, 40, 0.8, 0.8, dvec3(0.1, 0.5, 0)});
    apply_transform({1.0, rotation, {0.1, 0.55, 0}}, grid.positions);
    EXPECT_EQ(count_self_intersections(grid.positions, grid.triangles), 0u);
  }
}

TEST(SelfIntersection, CountMatchesAllPairs) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 4; ++trial) {
    const ClothModel c = soup(rng, 120, 150, 0.5);
    const auto& x = c.mesh.positions;
    const auto& tris = c.mesh.triangles;
    std::uint64_t expected = 0;
    for (std::size_t i = 0; i < tris.size(); ++i) {
      for (std::size_t j = i + 1; j < tris.size(); ++j) {
        const glm::uvec3 a = tris[i], b = tris[j];
        bool share = false;
        for (int k = 0; k < 3; ++k) {
          for (int l = 0; l < 3; ++l) share = share || a[k] == b[l];
        }
        if (share) continue;
        const dvec3 pa[3] = {x[a.x], x[a.y], x[a.z]}, pb[3] = {x[b.x], x[b.y], x[b.z]};
        if (triangles_intersect(pa, pb)) ++expected;
      }
    }
    EXPECT_GT(expected, 0u);
    EXPECT_EQ(count_self_intersections(x, tris), expected);
  }
}

// ---------------------------------------------------------------------------------------------
// Simulations

// The smallest distance from vertex v to triangle k over the pairs (v, k) that `counts` accepts
// (brute force).
template <class Counts>
double min_distance(const std::vector<dvec3>& x, const std::vector<glm::uvec3>& triangles,
                    Counts counts) {
  float best = 1e9f;
  for (std::uint32_t v = 0; v < x.size(); ++v) {
    const vec3 p(x[v]);
    for (std::size_t k = 0; k < triangles.size(); ++k) {
      const glm::uvec3 t = triangles[k];
      if (!counts(v, k)) continue;
      float a, b, c;
      best = std::min(
          best, kernels::closest_on_triangle(p, vec3(x[t.x]), vec3(x[t.y]), vec3(x[t.z]), a, b, c));
    }
  }
  return std::sqrt(best);
}

// The smallest vertex-to-triangle distance over pairs that share no vertex.
double min_clearance(const std::vector<dvec3>& x, const std::vector<glm::uvec3>& triangles) {
  return min_distance(x, triangles, [&](std::uint32_t v, std::size_t k) {
    const glm::uvec3 t = triangles[k];
    return t.x != v && t.y != v && t.z != v;
  });
}

// The folding scene of data/ at test size: a tilted cloth falls over a small sphere on the floor
// and folds onto itself.
Scene folding_scene(int n, bool self_collision) {
  Scene s = testing::grid_scene(n, 0.8, {0, 0, 0});
  s.cloth.transform = {1.0, {70, 0, 15}, {0.1, 0.55, 0}};
  s.cloth.shear = 0.9;
  s.cloth.bend = 0.05;
  s.cloth.thickness = 0.008;
  s.cloth.self_collision = self_collision;
  s.solver.substeps = 8;
  return s;
}

std::vector<Collider> sphere_and_floor() {
  Collider sphere, floor;
  sphere.desc.shape = ColliderDesc::Shape::sphere;
  sphere.desc.a = {0, 0.08, 0};
  sphere.desc.radius = 0.08;
  sphere.desc.friction = 0.3;
  floor.desc.shape = ColliderDesc::Shape::plane;
  floor.desc.b = {0, 1, 0};
  floor.desc.friction = 0.6;
  return {sphere, floor};
}

struct SimResult {
  std::vector<dvec3> final;
  std::uint64_t worst_intersections = 0, last_intersections = 0;
  std::uint64_t contacts = 0;
};

SimResult simulate(const Scene& scene, const std::vector<Collider>& colliders, int frames,
                   const std::string& backend = "cpu", int threads = 2) {
  const ClothModel cloth = build_cloth(scene);
  SolverOptions options;
  options.threads = threads;
  auto solver = make_solver(backend, cloth, physics_params(scene), options, colliders);
  SimResult run;
  for (int f = 0; f < frames; ++f) {
    solver->step_frame();
    solver->copy_positions(run.final);
    run.contacts += solver->self_contacts();
    run.last_intersections = count_self_intersections(run.final, cloth.mesh.triangles);
    run.worst_intersections = std::max(run.worst_intersections, run.last_intersections);
  }
  return run;
}

TEST(SelfCollisionSim, ClothFoldedOverASphereAndFloorNeverIntersects) {
  const int frames = 40;
  const Scene on = folding_scene(32, true);
  const SimResult with = simulate(on, sphere_and_floor(), frames);
  EXPECT_EQ(with.worst_intersections, 0u);
  const double clearance = min_clearance(with.final, build_cloth(on).mesh.triangles);
  RecordProperty("min_clearance_m", std::to_string(clearance));
  RecordProperty("contacts", std::to_string(with.contacts));
  EXPECT_GE(clearance, on.cloth.thickness / 2);
  EXPECT_GT(with.contacts, 1000u);
  // The same drop without self-collision folds through itself: the test above tests something.
  const SimResult without = simulate(folding_scene(32, false), sphere_and_floor(), frames);
  EXPECT_GT(without.worst_intersections, 20u);
}

TEST(SelfCollisionSim, RebuildingEveryIterationAlsoHolds) {
  Scene scene = folding_scene(20, true);
  scene.cloth.self_collision_every_iteration = true;
  const SimResult run = simulate(scene, sphere_and_floor(), 26);
  EXPECT_EQ(run.worst_intersections, 0u);
  EXPECT_GT(run.contacts, 1000u);
}

std::vector<Collider> sphere_only() {
  Collider sphere;
  sphere.desc.shape = ColliderDesc::Shape::sphere;
  sphere.desc.radius = 0.2;
  sphere.desc.friction = 0.3;
  return {sphere};
}

// The smallest distance from a vertex of one sheet to a triangle of the other.
double sheet_gap(const std::vector<dvec3>& x, const std::vector<glm::uvec3>& triangles) {
  const std::size_t half_v = x.size() / 2, half_t = triangles.size() / 2;
  return min_distance(x, triangles,
                      [&](std::uint32_t v, std::size_t k) { return (v < half_v) != (k < half_t); });
}

double mean_height(const std::vector<dvec3>& x, std::size_t begin, std::size_t end) {
  double sum = 0.0;
  for (std::size_t i = begin; i < end; ++i) sum += glm::length(x[i]);  // from the sphere centre
  return sum / static_cast<double>(end - begin);
}

TEST(SelfCollisionSim, StackedSheetsOnASphereStayApart) {
  const Scene scene = testing::stacked_sheets(20, true);
  const SimResult run = simulate(scene, sphere_only(), 36);
  const std::vector<glm::uvec3>& tris = scene.cloth.mesh_data->triangles;
  EXPECT_EQ(run.worst_intersections, 0u);
  const double gap = sheet_gap(run.final, tris);
  RecordProperty("sheet_gap_m", std::to_string(gap));
  EXPECT_GE(gap, scene.cloth.thickness / 2);
  const std::size_t half = run.final.size() / 2;
  EXPECT_GT(mean_height(run.final, half, run.final.size()), mean_height(run.final, 0, half));
  // Without self-collision both sheets settle onto the same surface.
  const SimResult merged = simulate(testing::stacked_sheets(20, false), sphere_only(), 36);
  EXPECT_LT(sheet_gap(merged.final, tris), scene.cloth.thickness / 2);
}

// The reference runs the spec's version: point-triangle only, each point pushed to whichever side
// of the plane it is on now. While the sheets fall some pairs pass through and come back (the
// cpu backend's remembered sides and edge-edge contacts keep them at zero); the sheets end apart.
TEST(SelfCollisionSim, ReferenceBackendSeparatesStackedSheets) {
  Scene scene = testing::stacked_sheets(10, true);
  const SimResult on = simulate(scene, sphere_only(), 24, "reference");
  const SimResult off =
      simulate(testing::stacked_sheets(10, false), sphere_only(), 24, "reference");
  RecordProperty("worst_intersections_on", std::to_string(on.worst_intersections));
  RecordProperty("worst_intersections_off", std::to_string(off.worst_intersections));
  EXPECT_EQ(on.last_intersections, 0u);
  EXPECT_LT(on.worst_intersections * 4, off.worst_intersections);
  EXPECT_GE(sheet_gap(on.final, scene.cloth.mesh_data->triangles), scene.cloth.thickness / 2);
}

TEST(SelfCollisionSim, CpuIsBitIdenticalAcrossRunsAndThreadCounts) {
  const Scene scene = folding_scene(24, true);
  const SimResult a = simulate(scene, sphere_and_floor(), 20, "cpu", 1);
  const SimResult b = simulate(scene, sphere_and_floor(), 20, "cpu", 3);
  const SimResult c = simulate(scene, sphere_and_floor(), 20, "cpu", 3);
  EXPECT_GT(a.contacts, 1000u);
  EXPECT_EQ(a.contacts, b.contacts);
  EXPECT_TRUE(a.final == b.final);
  EXPECT_TRUE(b.final == c.final);
}

// Checkpoints hold no self-collision state: contacts are found again from the positions, so a
// restored solver continues bit for bit.
TEST(SelfCollisionSim, RestoredStateContinuesBitForBit) {
  const Scene scene = folding_scene(24, true);
  const ClothModel cloth = build_cloth(scene);
  auto straight = make_cpu_solver(cloth, physics_params(scene), 2, sphere_and_floor());
  auto resumed = make_cpu_solver(cloth, physics_params(scene), 2, sphere_and_floor());
  for (int f = 0; f < 14; ++f) straight->step_frame();
  SolverState saved;
  {
    auto first = make_cpu_solver(cloth, physics_params(scene), 2, sphere_and_floor());
    for (int f = 0; f < 8; ++f) first->step_frame();
    saved = first->state();
  }
  resumed->restore(saved);
  for (int f = 8; f < 14; ++f) resumed->step_frame();
  std::vector<dvec3> a, b;
  straight->copy_positions(a);
  resumed->copy_positions(b);
  EXPECT_GT(straight->self_contacts(), 0u);
  EXPECT_TRUE(a == b);
}

}  // namespace
}  // namespace drape
