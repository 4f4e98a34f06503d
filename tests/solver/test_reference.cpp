// The reference backend: faithfulness to the spec's algorithm and physical invariants.
#include <cmath>
#include <cstdio>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>

#include "model/cloth.h"
#include "model/strain.h"
#include "solver/solver.h"
#include "spec_transcription.h"
#include "test_scenes.h"

namespace drape {
namespace {

std::string format_double(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

Scene grid_scene(int n, double size) {
  return testing::grid_scene(n, size, {0, 1, 0});
}

// The agreement case: a 7x7 grid pinned at two corners under gravity and wind, 12 frames,
// drape's reference backend against the spec transcription, within 1e-6 m at every frame.
TEST(Reference, AgreesWithTheSpecTranscription) {
  Scene scene = grid_scene(7, 1.0);
  scene.cloth.pins.kind = PinDesc::Kind::indices;
  scene.cloth.pins.indices = {0, 6};
  scene.cloth.stretch = 0.9;
  scene.cloth.shear = 0.6;
  scene.cloth.bend = 0.3;
  scene.cloth.damping = 0.99;
  scene.wind = {1.5, 0.0, 3.0};
  const ClothModel cloth = build_cloth(scene);

  std::vector<spec::Vec> points;
  for (const glm::dvec3& p : cloth.mesh.positions) points.push_back({p.x, p.y, p.z});
  std::vector<std::array<int, 3>> prims;
  for (const glm::uvec3& t : cloth.mesh.triangles) {
    prims.push_back({static_cast<int>(t.x), static_cast<int>(t.y), static_cast<int>(t.z)});
  }
  spec::Cloth expected = spec::preprocess(points, prims, {0, 6});
  spec::Settings settings;
  settings.k_stretch = 0.9;
  settings.k_shear = 0.6;
  settings.k_bend = 0.3;
  settings.wind = {1.5, 0.0, 3.0};

  // Same constraints in the same order.
  const Topology& t = cloth.topology;
  ASSERT_EQ(t.edge_count(), expected.stretch_edge_v0.size());
  ASSERT_EQ(t.bend_count(), expected.bend_shared_edge_v0.size());
  for (std::size_t i = 0; i < t.edge_count(); ++i) {
    ASSERT_EQ(static_cast<int>(t.edge_v0[i]), expected.stretch_edge_v0[i]);
    ASSERT_EQ(static_cast<int>(t.edge_v1[i]), expected.stretch_edge_v1[i]);
  }
  for (std::size_t i = 0; i < t.bend_count(); ++i) {
    ASSERT_EQ(static_cast<int>(t.bend_v1[i]), expected.bend_shared_edge_v0[i]);
    ASSERT_EQ(static_cast<int>(t.bend_v3[i]), expected.bend_non_shared_edge_v0[i]);
    ASSERT_EQ(static_cast<int>(t.bend_v4[i]), expected.bend_non_shared_edge_v1[i]);
    ASSERT_NEAR(t.bend_rest_angle[i], expected.rest_angles[i], 1e-12);
  }

  auto solver = make_reference_solver(cloth, physics_params(scene));
  std::vector<glm::dvec3> x;
  double max_diff = 0.0, max_travel = 0.0;
  for (int frame = 1; frame <= 12; ++frame) {
    solver->step_frame();
    spec::pbd_solve(expected, settings);
    solver->copy_positions(x);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const glm::dvec3 e{expected.pos[i][0], expected.pos[i][1], expected.pos[i][2]};
      max_diff = std::max(max_diff, glm::length(x[i] - e));
      max_travel = std::max(max_travel, glm::length(x[i] - cloth.mesh.positions[i]));
    }
  }
  RecordProperty("max_diff_m", format_double(max_diff));
  EXPECT_LT(max_diff, 1e-6);
  EXPECT_GT(max_travel, 0.1);  // the cloth really moved: the comparison is not vacuous
}

TEST(Reference, PinnedVerticesNeverMove) {
  Scene scene = grid_scene(12, 1.0);
  scene.cloth.pins.kind = PinDesc::Kind::box;
  scene.cloth.pins.box_min = {-1, 0, -0.6};
  scene.cloth.pins.box_max = {1, 2, -0.45};
  scene.wind = {4, 2, 6};
  const ClothModel cloth = build_cloth(scene);
  ASSERT_EQ(cloth.pinned, 12u);
  auto solver = make_reference_solver(cloth, physics_params(scene));
  std::vector<glm::dvec3> x, v;
  for (int frame = 0; frame < 24; ++frame) {
    solver->step_frame();
    solver->copy_positions(x);
    solver->copy_velocities(v);
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (cloth.inv_mass[i] != 0.0) continue;
      ASSERT_EQ(x[i], cloth.mesh.positions[i]) << "vertex " << i << " frame " << frame;
      ASSERT_EQ(v[i], glm::dvec3(0.0));
    }
  }
}

TEST(Reference, UnpinnedClothFallsFreely) {
  Scene scene = grid_scene(5, 1.0);
  scene.cloth.damping = 1.0;
  const ClothModel cloth = build_cloth(scene);
  auto solver = make_reference_solver(cloth, physics_params(scene));
  for (int frame = 0; frame < 24; ++frame) solver->step_frame();
  std::vector<glm::dvec3> x;
  solver->copy_positions(x);
  // Semi-implicit Euler with n = 96 substeps of dt: y = y0 - g dt^2 n(n+1)/2.
  const double dt = 1.0 / 96;
  const double expected = 1.0 - 9.81 * dt * dt * 96 * 97 / 2;
  for (const glm::dvec3& p : x) EXPECT_NEAR(p.y, expected, 1e-9);
}

// A cloth hanging from its top row under damping settles: its speed goes to ~0 and its edges
// stretch by a bounded amount. Bending is off: the spec's bend constraint measures the dihedral
// angle with arccos, which cannot tell a fold up from a fold down, so around a flat rest state
// (phi0 = pi) it keeps nudging the sheet from side to side (about 5 mm/s at bend 0.1 here)
// instead of letting it settle. That is the spec's behaviour and the reference keeps it.
TEST(Reference, DampedHangingClothComesToRest) {
  Scene scene = grid_scene(10, 0.5);
  scene.cloth.grid->center = {0, 0, 0};
  scene.cloth.transform.rotate_deg = {90, 0, 0};  // (x, 0, z) -> (x, -z, 0)
  scene.cloth.transform.translate = {0, 1, 0};    // the top row is at y = 1.25
  scene.cloth.pins.kind = PinDesc::Kind::box;
  scene.cloth.pins.box_min = {-1, 1.24, -1};
  scene.cloth.pins.box_max = {1, 1.26, 1};
  scene.cloth.damping = 0.95;
  scene.cloth.bend = 0.0;
  scene.solver.iterations = 20;
  const ClothModel cloth = build_cloth(scene);
  ASSERT_EQ(cloth.pinned, 10u);
  auto solver = make_reference_solver(cloth, physics_params(scene));
  for (int frame = 0; frame < 240; ++frame) solver->step_frame();
  std::vector<glm::dvec3> x, v;
  solver->copy_positions(x);
  solver->copy_velocities(v);
  double max_speed = 0.0;
  for (const glm::dvec3& vi : v) max_speed = std::max(max_speed, glm::length(vi));
  const StrainStats strain = edge_strain(cloth.topology, x);
  RecordProperty("max_speed", format_double(max_speed));
  RecordProperty("max_strain", format_double(strain.max));
  EXPECT_LT(max_speed, 1e-3);
  EXPECT_LT(strain.max, 0.02);
  EXPECT_GT(strain.max, 0.0);
  // It hangs below its pins, centred under them.
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_LE(x[i].y, 1.25 + 1e-9);
}

}  // namespace
}  // namespace drape
