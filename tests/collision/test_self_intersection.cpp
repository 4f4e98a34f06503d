// The self-intersection metric: exact triangle-triangle tests and the count over a mesh.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include <glm/geometric.hpp>

#include "collision/self_collision_pairs.h"
#include "collision/self_intersection.h"
#include "collision/untangle.h"
#include "drape/error.h"
#include "kernels/geometry.h"
#include "model/cloth.h"
#include "model/primitives.h"
#include "solver/reference_constraints.h"
#include "solver/solver.h"
#include "test_scenes.h"

namespace drape {
namespace {

using glm::dvec3;
using glm::vec3;

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
    const ClothModel c = testing::soup(rng, 120, 150, 0.5);
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
    const SelfIntersections one = find_self_intersections(x, tris, 1);
    const SelfIntersections three = find_self_intersections(x, tris, 3);
    EXPECT_EQ(one.pairs.size(), expected);
    EXPECT_EQ(one.pairs, three.pairs);
    EXPECT_EQ(one.piercings.size(), three.piercings.size());
  }
}

// Triangle 0 lies in y = 0 with its normal (b - a) x (c - a) along -y; triangle 1 stands through
// it, its edge 3-4 piercing triangle 0 with vertex 3 1 cm below and vertex 4 3 cm above.
TEST(Untangle, TheShallowerEndOfAPiercingEdgeGoesToTheOtherEndsSide) {
  const std::vector<dvec3> x = {{0, 0, 0},         {1, 0, 0},        {0, 0, 1},
                                {0.2, -0.01, 0.2}, {0.2, 0.03, 0.2}, {0.3, 0.03, 0.5}};
  const std::vector<glm::uvec3> tris = {{0, 1, 2}, {3, 4, 5}};
  const SelfIntersections found = find_self_intersections(x, tris);
  ASSERT_EQ(found.pairs.size(), 1u);
  // Edge 3-4 pierces triangle 0, and edge 5-3 too (from (0.3, 0.03, 0.5) down to vertex 3).
  ASSERT_EQ(found.piercings.size(), 2u);
  for (const Piercing& p : found.piercings) EXPECT_EQ(p.triangle, 0u);
  const CrossingSides sides = crossing_sides(found, x, tris);
  ASSERT_EQ(sides.offsets.size(), 7u);
  // Vertex 3 (1 cm from the plane, against 3 cm for 4 and 5) must go up: -1 along (0, -1, 0).
  EXPECT_EQ(sides.offsets[3], 0u);
  EXPECT_EQ(sides.offsets[4], 1u);
  EXPECT_EQ(sides.offsets[6], 1u);
  EXPECT_EQ(sides.triangles[0], glm::uvec3(0, 1, 2));
  EXPECT_EQ(sides.sides[0], -1.0f);
  for (int v = 0; v < 6; ++v) EXPECT_EQ(sides.crossed[v], 1u);
  // No intersection, nothing to do.
  std::vector<dvec3> apart = x;
  apart[3].y = 0.01;
  EXPECT_TRUE(crossing_sides(find_self_intersections(apart, tris), apart, tris).empty());
}

}  // namespace
}  // namespace drape
