// The cpu backend: finite under extreme settings, determinism across runs and thread counts,
// pins, and agreement with `reference`.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>

#include "model/cloth.h"
#include "model/strain.h"
#include "solver/solver.h"
#include "test_scenes.h"

namespace drape {
namespace {

// Extreme but legal settings never produce NaN or infinity, on either CPU backend.
TEST(Solvers, ExtremeSettingsStayFinite) {
  struct Case {
    const char* name;
    void (*apply)(Scene&);
  };
  const Case cases[] = {
      {"stiffness 0", [](Scene& s) { s.cloth.stretch = s.cloth.shear = s.cloth.bend = 0.0; }},
      {"stiffness 1", [](Scene& s) { s.cloth.stretch = s.cloth.shear = s.cloth.bend = 1.0; }},
      {"1 substep", [](Scene& s) { s.solver.substeps = 1; }},
      {"200 iterations", [](Scene& s) { s.solver.iterations = 200; }},
      {"strong wind",
       [](Scene& s) {
         s.wind = {60, -20, 90};
       }},
      {"pins everywhere",
       [](Scene& s) {
         s.cloth.pins.kind = PinDesc::Kind::box;
         s.cloth.pins.box_min = glm::dvec3(-10);
         s.cloth.pins.box_max = glm::dvec3(10);
       }},
      {"no pins", [](Scene& s) { s.cloth.pins.kind = PinDesc::Kind::none; }},
      {"no damping", [](Scene& s) { s.cloth.damping = 1.0; }},
      {"full damping", [](Scene& s) { s.cloth.damping = 0.0; }},
  };
  for (const Case& c : cases) {
    Scene scene = testing::grid_scene(16, 1.0, {0, 1, 0});
    scene.cloth.pins.kind = PinDesc::Kind::indices;
    scene.cloth.pins.indices = {0, 15};
    c.apply(scene);
    const ClothModel cloth = build_cloth(scene);
    for (Backend backend : {Backend::reference, Backend::cpu}) {
      auto solver = make_solver(backend, cloth, physics_params(scene));
      std::vector<glm::dvec3> x;
      for (int f = 0; f < 12; ++f) solver->step_frame();
      solver->copy_positions(x);
      for (const glm::dvec3& p : x) {
        ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))
            << c.name << " on " << backend_name(backend);
      }
    }
  }
}

using testing::two_corner_scene;

std::vector<std::vector<glm::dvec3>> run_frames(Solver& solver, int frames) {
  std::vector<std::vector<glm::dvec3>> out(frames);
  for (int f = 0; f < frames; ++f) {
    solver.step_frame();
    solver.copy_positions(out[f]);
  }
  return out;
}

TEST(Cpu, BitIdenticalAcrossRunsAndThreadCounts) {
  Scene scene = two_corner_scene();
  const ClothModel cloth = build_cloth(scene);
  const PhysicsParams params = physics_params(scene);
  auto first = make_cpu_solver(cloth, params, 2);
  const auto expected = run_frames(*first, 6);
  for (int threads : {2, 1, 3, 4}) {
    auto solver = make_cpu_solver(cloth, params, threads);
    const auto got = run_frames(*solver, 6);
    for (int f = 0; f < 6; ++f) {
      ASSERT_EQ(got[f], expected[f]) << threads << " threads, frame " << f + 1;
    }
  }
  EXPECT_NE(expected[5], cloth.mesh.positions);
}

TEST(Cpu, PinnedVerticesNeverMove) {
  Scene scene = two_corner_scene();
  scene.wind = {5, 3, 8};
  const ClothModel cloth = build_cloth(scene);
  auto solver = make_cpu_solver(cloth, physics_params(scene), 0);
  for (const auto& frame : run_frames(*solver, 12)) {
    EXPECT_EQ(frame[0], glm::dvec3(glm::vec3(cloth.mesh.positions[0])));
    EXPECT_EQ(frame[31], glm::dvec3(glm::vec3(cloth.mesh.positions[31])));
  }
}

// cpu against reference for 24 frames: within 1% of the cloth's size (1 m) at every vertex of
// every frame, and the final drape's max strain at most 10% above the reference's.
// With 16 substeps: at the default 4 substeps x 10 iterations this cloth is far from converged
// (70-100% strain at the pinned corners in both backends) and two Gauss-Seidel orders then
// differ by ~5 cm. The peak strain of the falling transient is recorded, not bounded: the
// spec's sweep order carries corrections from the pins across the cloth within one iteration,
// which colour batches cannot, so that peak is ~30% higher on cpu (the reference run in colour
// order shows the same 30%: it is the order, not float32).
TEST(Cpu, AgreesWithReference) {
  Scene scene = two_corner_scene();
  scene.solver.substeps = 16;
  const ClothModel cloth = build_cloth(scene);
  const PhysicsParams params = physics_params(scene);
  auto reference = make_reference_solver(cloth, params);
  auto cpu = make_cpu_solver(cloth, params, 0);
  const auto expected = run_frames(*reference, 24);
  const auto got = run_frames(*cpu, 24);
  double worst = 0.0, max_travel = 0.0, peak_ref = 0.0, peak_cpu = 0.0;
  for (int f = 0; f < 24; ++f) {
    for (std::size_t i = 0; i < got[f].size(); ++i) {
      worst = std::max(worst, glm::length(got[f][i] - expected[f][i]));
      max_travel = std::max(max_travel, glm::length(expected[f][i] - cloth.mesh.positions[i]));
    }
    peak_ref = std::max(peak_ref, edge_strain(cloth.topology, expected[f]).max);
    peak_cpu = std::max(peak_cpu, edge_strain(cloth.topology, got[f]).max);
  }
  const double final_ref = edge_strain(cloth.topology, expected.back()).max;
  const double final_cpu = edge_strain(cloth.topology, got.back()).max;
  RecordProperty("max_vertex_difference_m", std::to_string(worst));
  RecordProperty("final_max_strain",
                 std::to_string(final_ref) + " reference, " + std::to_string(final_cpu) + " cpu");
  RecordProperty("peak_max_strain",
                 std::to_string(peak_ref) + " reference, " + std::to_string(peak_cpu) + " cpu");
  EXPECT_LT(worst, 0.01);
  EXPECT_LE(final_cpu, 1.1 * final_ref);
  EXPECT_GT(max_travel, 0.3);
}

}  // namespace
}  // namespace drape
