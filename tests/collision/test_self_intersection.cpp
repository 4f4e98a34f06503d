// The self-intersection metric: exact triangle-triangle tests and the count over a mesh.
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
  }
}

}  // namespace
}  // namespace drape
