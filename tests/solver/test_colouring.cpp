// Colouring: every colour is an independent batch (no shared vertex), colours are few and balanced.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>

#include "model/cloth.h"
#include "solver/colouring.h"
#include "test_scenes.h"

namespace drape {
namespace {

void expect_valid_and_balanced(const Topology& t, std::size_t vertices, const std::string& what) {
  const ClothColouring c = colour_cloth(t, vertices);
  EXPECT_TRUE(is_valid_colouring(c.stretch, {t.edge_v0.data(), t.edge_v1.data()}, t.edge_count()))
      << what;
  EXPECT_TRUE(is_valid_colouring(
      c.bend, {t.bend_v1.data(), t.bend_v2.data(), t.bend_v3.data(), t.bend_v4.data()},
      t.bend_count()))
      << what;
  EXPECT_TRUE(is_valid_colouring(c.shear, {t.bend_v3.data(), t.bend_v4.data()}, t.bend_count()))
      << what;
  for (const Colouring* colouring : {&c.stretch, &c.bend, &c.shear}) {
    // Balance is only asked of batches large enough to be worth splitting across threads.
    if (colouring->order.size() < 20 * colouring->colour_count()) continue;
    const double mean = static_cast<double>(colouring->order.size()) /
                        static_cast<double>(colouring->colour_count());
    for (std::size_t k = 0; k < colouring->colour_count(); ++k) {
      EXPECT_GE(colouring->colour_size(k), 0.5 * mean) << what << ": colour " << k << " is tiny";
    }
  }
}

TriMesh grid(int nx, int nz) {
  GridDesc g;
  g.nx = nx;
  g.nz = nz;
  return make_grid(g);
}

TEST(Colouring, RegularGridsNeedFewColours) {
  for (int n : {4, 16, 32, 64, 128}) {
    const TriMesh m = grid(n, n);
    const Topology t = build_topology(m.positions, m.triangles);
    const ClothColouring c = colour_cloth(t, m.positions.size());
    EXPECT_LE(c.stretch.colour_count(), 8u) << n;
    EXPECT_LE(c.bend.colour_count(), 16u) << n;
    EXPECT_LE(c.shear.colour_count(), 8u) << n;
    expect_valid_and_balanced(t, m.positions.size(), "grid " + std::to_string(n));
  }
}

// A jittered grid with random diagonals and some random extra triangles: irregular valences,
// non-manifold edges and all.
TEST(Colouring, RandomMeshesAreValid) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 5; ++trial) {
    const int n = 20 + 7 * trial;
    TriMesh m = grid(n, n);
    std::uniform_real_distribution<double> jitter(-0.2 / n, 0.2 / n);
    for (glm::dvec3& p : m.positions) p += glm::dvec3(jitter(rng), jitter(rng), jitter(rng));
    std::uniform_int_distribution<unsigned> vertex(0,
                                                   static_cast<unsigned>(m.positions.size() - 1));
    for (glm::uvec3& t : m.triangles) {
      if (rng() % 2) std::swap(t.x, t.z);
    }
    for (int extra = 0; extra < n; ++extra)
      m.triangles.emplace_back(vertex(rng), vertex(rng), vertex(rng));
    const Topology t = build_topology(m.positions, m.triangles);
    const ClothColouring c = colour_cloth(t, m.positions.size());
    EXPECT_TRUE(
        is_valid_colouring(c.stretch, {t.edge_v0.data(), t.edge_v1.data()}, t.edge_count()));
    EXPECT_TRUE(is_valid_colouring(
        c.bend, {t.bend_v1.data(), t.bend_v2.data(), t.bend_v3.data(), t.bend_v4.data()},
        t.bend_count()));
    EXPECT_TRUE(is_valid_colouring(c.shear, {t.bend_v3.data(), t.bend_v4.data()}, t.bend_count()));
  }
}

TEST(Colouring, InvalidColouringsAreDetected) {
  const std::uint32_t v0[] = {0, 1, 2}, v1[] = {1, 2, 3};
  Colouring c;
  c.order = {0, 1, 2};
  c.offsets = {0, 2, 3};  // edges 0-1 and 1-2 share vertex 1
  EXPECT_FALSE(is_valid_colouring(c, {v0, v1}, 3));
  c.offsets = {0, 1, 2, 3};
  EXPECT_TRUE(is_valid_colouring(c, {v0, v1}, 3));
  c.order = {0, 0, 2};
  EXPECT_FALSE(is_valid_colouring(c, {v0, v1}, 3));
}

TEST(Colouring, RealGarmentsAreValidAndBalanced) {
  const std::string dir = std::string(DRAPE_DATA_DIR) + "/garments/";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " is absent";
  for (const char* name :
       {"dress_panels.obj", "dress_draped.obj", "skirt8k.obj", "table_cloth.obj"}) {
    const TriMesh m = load_mesh(dir + name);
    const Topology t = build_topology(m.positions, m.triangles);
    expect_valid_and_balanced(t, m.positions.size(), name);
  }
}

}  // namespace
}  // namespace drape
