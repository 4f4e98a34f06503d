// Preprocessing: constraint counts, extraction order, degenerate and non-manifold input.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>

#include "drape/mesh.h"
#include "model/cloth.h"
#include "model/topology.h"

namespace drape {
namespace {

constexpr double kPi = 3.14159265358979323846;

TriMesh grid(int nx, int nz) {
  GridDesc g;
  g.nx = nx;
  g.nz = nz;
  return make_grid(g);
}

class GridCounts : public ::testing::TestWithParam<std::pair<int, int>> {};

TEST_P(GridCounts, MatchClosedForms) {
  const auto [nx, nz] = GetParam();
  const TriMesh mesh = grid(nx, nz);
  const Topology t = build_topology(mesh.positions, mesh.triangles);
  const std::size_t quads = static_cast<std::size_t>(nx - 1) * (nz - 1);
  const std::size_t edges =
      static_cast<std::size_t>(nx) * (nz - 1) + static_cast<std::size_t>(nz) * (nx - 1) + quads;
  const std::size_t boundary = 2 * static_cast<std::size_t>(nx - 1 + nz - 1);
  EXPECT_EQ(mesh.positions.size(), static_cast<std::size_t>(nx) * nz);
  EXPECT_EQ(mesh.triangles.size(), 2 * quads);
  EXPECT_EQ(t.edge_count(), edges);
  EXPECT_EQ(t.boundary_edges, boundary);
  EXPECT_EQ(t.bend_count(), edges - boundary);
  EXPECT_EQ(t.shear_rest_length.size(), edges - boundary);
  EXPECT_EQ(t.degenerate_triangles, 0u);
  EXPECT_EQ(t.nonmanifold_edges, 0u);
  // A flat sheet rests at pi in the spec's convention (normals of the wings are opposite).
  for (double a : t.bend_rest_angle) EXPECT_NEAR(a, kPi, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Grids, GridCounts,
                         ::testing::Values(std::pair{2, 2}, std::pair{3, 5}, std::pair{7, 7},
                                           std::pair{32, 32}, std::pair{17, 4}));

// Two triangles (0,1,2), (2,1,3): edges in order of first appearance, wings sorted.
TEST(Topology, ExtractionOrderFollowsTheDesign) {
  const std::vector<glm::dvec3> p = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0.5, 1}};
  const Topology t = build_topology(p, {{0, 1, 2}, {2, 1, 3}});
  EXPECT_EQ(t.edge_v0, (std::vector<std::uint32_t>{0, 1, 0, 1, 2}));
  EXPECT_EQ(t.edge_v1, (std::vector<std::uint32_t>{1, 2, 2, 3, 3}));
  ASSERT_EQ(t.bend_count(), 1u);
  EXPECT_EQ(t.bend_v1[0], 1u);
  EXPECT_EQ(t.bend_v2[0], 2u);
  EXPECT_EQ(t.bend_v3[0], 0u);
  EXPECT_EQ(t.bend_v4[0], 3u);
  EXPECT_NEAR(t.edge_rest_length[1], std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(t.shear_rest_length[0], glm::length(p[3] - p[0]), 1e-15);
  EXPECT_NEAR(t.bend_rest_angle[0], dihedral_angle(p[1], p[2], p[0], p[3]), 1e-15);
}

TEST(Topology, DegenerateTrianglesAreCountedAndMakeNoConstraint) {
  const std::vector<glm::dvec3> p = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {2, 0, 0}, {1, 0, 1}};
  // (0,1,3) is collinear, (1,1,2) repeats a vertex; (0,1,2) and (1,4,2) are fine.
  const Topology t = build_topology(p, {{0, 1, 3}, {1, 1, 2}, {0, 1, 2}, {1, 4, 2}});
  EXPECT_EQ(t.degenerate_triangles, 2u);
  EXPECT_EQ(t.edge_count(), 5u);
  EXPECT_EQ(t.bend_count(), 1u);
  for (double a : t.bend_rest_angle) EXPECT_TRUE(std::isfinite(a));
  for (double l : t.edge_rest_length) EXPECT_TRUE(std::isfinite(l));
}

TEST(Topology, NonManifoldEdgesGetNoBendOrShear) {
  // Three triangles share edge (0,1).
  const std::vector<glm::dvec3> p = {{0, 0, 0}, {1, 0, 0}, {0.5, 0, 1}, {0.5, 1, 0}, {0.5, 0, -1}};
  const Topology t = build_topology(p, {{0, 1, 2}, {1, 0, 3}, {0, 1, 4}});
  EXPECT_EQ(t.nonmanifold_edges, 1u);
  EXPECT_EQ(t.bend_count(), 0u);
  EXPECT_EQ(t.edge_count(), 7u);
}

TEST(Topology, DuplicatedTriangleIsNonManifold) {
  const std::vector<glm::dvec3> p = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}};
  const Topology t = build_topology(p, {{0, 1, 2}, {0, 2, 1}});
  EXPECT_EQ(t.bend_count(), 0u);
  EXPECT_EQ(t.nonmanifold_edges, 3u);
}

TEST(Topology, Slivers) {
  EXPECT_TRUE(is_degenerate({0, 0, 0}, {1, 0, 0}, {2, 0, 0}));
  EXPECT_TRUE(is_degenerate({0, 0, 0}, {1, 0, 0}, {0.5, 1e-12, 0}));
  EXPECT_FALSE(is_degenerate({0, 0, 0}, {1, 0, 0}, {0.5, 1e-3, 0}));
  EXPECT_FALSE(is_degenerate({0, 0, 0}, {1e-4, 0, 0}, {0, 1e-4, 0}));  // small but well shaped
}

TEST(Topology, RealGarmentsHaveSaneCounts) {
  const std::string path = std::string(DRAPE_DATA_DIR) + "/garments/skirt8k.obj";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  const TriMesh mesh = load_mesh(path);
  const Topology t = build_topology(mesh.positions, mesh.triangles);
  EXPECT_EQ(mesh.positions.size(), 8121u);
  EXPECT_EQ(mesh.triangles.size(), 15858u);
  EXPECT_EQ(t.degenerate_triangles, 0u);
  EXPECT_EQ(t.nonmanifold_edges, 0u);
  // Each interior edge has two triangles and each boundary edge one: 2E = 3T + B.
  EXPECT_EQ(2 * t.edge_count(), 3 * mesh.triangles.size() + t.boundary_edges);
  EXPECT_EQ(t.bend_count() + t.boundary_edges + t.nonmanifold_edges, t.edge_count());
}

}  // namespace
}  // namespace drape
