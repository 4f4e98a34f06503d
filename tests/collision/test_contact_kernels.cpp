// Self-collision kernels: closest points, bounding spheres, near-group rows, the contact
// corrections (thickness, momentum, sides, friction), and the spec's point-triangle response.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include <glm/geometric.hpp>

#include "collision/self_collision_pairs.h"
#include "collision/self_intersection.h"
#include "drape/error.h"
#include "kernels/geometry.h"
#include "kernels/pair_keys.h"
#include "kernels/self_candidates.h"
#include "kernels/self_contact.h"
#include "model/cloth.h"
#include "model/primitives.h"
#include "solver/reference_constraints.h"
#include "solver/solver.h"
#include "test_scenes.h"

namespace drape {
namespace {

using glm::dvec3;
using glm::vec3;

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

// A contact's reach (solve_contact) is how far its vertices may move before it can become active:
// random contacts near the thickness, each vertex moved by less than the reach in a random
// direction, stay inactive; moved onto the thickness, point-triangle contacts become active.
TEST(SelfCollisionKernels, AContactWhoseVerticesMoveLessThanItsReachStaysInactive) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), unit(0.0f, 1.0f);
  const float thickness = 0.005f;
  const kernels::SelfView sv = contact_view(thickness, 0.0f);
  const auto direction = [&] {
    vec3 d(u(rng), u(rng), u(rng));
    return d / std::max(glm::length(d), 1e-6f);
  };
  int reached[2] = {0, 0}, woken = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const bool edge_edge = trial % 2 == 1;
    // Elements about 2 cm across, 0 to 2 thicknesses apart along y.
    vec3 p[4];
    const float gap = 2.0f * thickness * unit(rng);
    for (int j = 0; j < 4; ++j) p[j] = 0.01f * vec3(u(rng), 0.1f * u(rng), u(rng));
    if (edge_edge) {
      p[0].y += gap, p[1].y += gap;
    } else {
      p[0] = vec3(0.003f * u(rng), gap, 0.003f * u(rng));
      p[1] = {-0.01f, 0.0f, -0.01f}, p[2] = {0.01f, 0.0f, -0.005f}, p[3] = {0.0f, 0.0f, 0.01f};
    }
    vec3 x[4] = {p[0], p[1], p[2], p[3]};
    const float w[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    kernels::Contact k{
        {0, 1, 2, 3},
        edge_edge ? kernels::ContactKind::edge_edge : kernels::ContactKind::point_triangle,
        vec3(0.0f)};
    const bool sided = edge_edge ? kernels::edge_edge_side(
                                       x[0], x[1], x[2], x[3], [] { return vec3(0, 1, 0); }, k.side)
                                 : kernels::point_triangle_side(x[0], x[1], x[2], x[3], k.side);
    if (!sided) continue;
    kernels::ParticleView s{x, p, nullptr, w, 4};
    vec3 slot_dp[4];
    std::uint32_t active = 0;
    float reach = 0.0f;
    kernels::solve_contact(0, &k, s, sv, slot_dp, &active, &reach);
    if (!(reach > 0.0f)) continue;
    ++reached[edge_edge ? 1 : 0];
    EXPECT_EQ(active, 0u);
    vec3 moved[4];
    for (int j = 0; j < 4; ++j) moved[j] = p[j] + (0.999f * reach * unit(rng)) * direction();
    kernels::ParticleView now{x, moved, nullptr, w, 4};
    vec3 dp[4];
    EXPECT_FALSE(kernels::contact_correction(k, now, sv, dp))
        << "trial " << trial << ": reach " << reach << " gap " << gap;
    if (!edge_edge) {
      // The point straight down by twice the reach and a little more: inside the thickness.
      moved[0] = p[0] - (2.0f * reach + 0.02f * thickness) * k.side;
      for (int j = 1; j < 4; ++j) moved[j] = p[j];
      woken += kernels::contact_correction(k, now, sv, dp) ? 1 : 0;
    }
  }
  EXPECT_GT(reached[0], 300) << "point-triangle contacts with a reach";
  EXPECT_GT(reached[1], 300) << "edge-edge contacts with a reach";
  EXPECT_EQ(woken, reached[0]) << "the reach is not far below what wakes a contact";
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

}  // namespace
}  // namespace drape
