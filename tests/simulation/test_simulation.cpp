// drape::Simulation, the embedding API: it steps exactly what a backend's solver steps, a mesh
// given as arrays simulates like the same mesh from a scene, saved states continue bit for bit,
// per-frame stats, and errors for bad arrays, bad states and a diverging solve.
#include <gtest/gtest.h>

#include "drape/error.h"
#include "drape/simulation.h"
#include "model/cloth.h"
#include "solver/solver.h"
#include "test_scenes.h"

namespace drape {
namespace {

Scene small_scene(Backend backend) {
  Scene s = testing::two_corner_scene();
  s.cloth.grid->nx = s.cloth.grid->nz = 12;
  s.cloth.pins.indices = {0, 11};
  s.solver.backend = backend;
  s.colliders.push_back({});
  s.colliders.back().shape = ColliderDesc::Shape::sphere;
  s.colliders.back().a = {0.2, 0.6, 0.3};
  s.colliders.back().radius = 0.2;
  return s;
}

TEST(Simulation, StepsWhatTheBackendsSolverSteps) {
  for (Backend backend : {Backend::reference, Backend::cpu}) {
    const Scene scene = small_scene(backend);
    Simulation sim(scene);
    EXPECT_EQ(sim.frame(), 0);
    EXPECT_EQ(sim.positions(), cloth_model(sim).mesh.positions);
    const ClothModel cloth = build_cloth(scene);
    auto solver = make_solver(backend, cloth, physics_params(scene), {}, build_colliders(scene));
    std::vector<glm::dvec3> expected;
    for (int f = 1; f <= 5; ++f) {
      sim.step();
      solver->step_frame();
      solver->copy_positions(expected);
      ASSERT_EQ(sim.positions(), expected) << backend_name(backend) << ", frame " << f;
    }
    EXPECT_EQ(sim.frame(), 5);
    EXPECT_DOUBLE_EQ(sim.time(), 5 / scene.fps);
    EXPECT_EQ(sim.vertex_count(), 144u);
    EXPECT_EQ(sim.triangles(), cloth.mesh.triangles);
  }
}

TEST(Simulation, ArraysSimulateLikeTheSameMeshFromAScene) {
  const Scene scene = small_scene(Backend::cpu);
  Simulation from_scene(scene);
  Scene settings = scene;
  settings.cloth.grid.reset();
  const TriMesh mesh = make_grid(*scene.cloth.grid);
  Simulation from_arrays(mesh.positions, mesh.triangles, settings);
  from_scene.step(4);
  from_arrays.step(4);
  EXPECT_EQ(from_arrays.positions(), from_scene.positions());
}

TEST(Simulation, BadArraysAreInputErrors) {
  const std::vector<glm::dvec3> x{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}};
  const Scene settings = parse_settings("{}", "settings");
  EXPECT_THROW(Simulation(x, {{0, 1, 3}}, settings), InputError);
  EXPECT_THROW(Simulation(x, {}, settings), InputError);
  EXPECT_THROW(Simulation({{0, 0, 0}, {1, 0, 0}, {0, 0, NAN}}, {{0, 1, 2}}, settings), InputError);
  Simulation sim(x, {{0, 1, 2}}, settings);
  EXPECT_THROW(sim.step(-1), InputError);
  try {
    Simulation(x, {{0, 1, 3}}, settings);
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "triangles: row 0 has vertex index 3 out of range (3 vertices)");
  }
}

TEST(Simulation, SavedStateContinuesBitForBit) {
  for (Backend backend : {Backend::reference, Backend::cpu}) {
    Simulation sim(small_scene(backend));
    sim.step(3);
    const SimulationState saved = sim.save_state();
    sim.step(4);
    const std::vector<glm::dvec3> straight = sim.positions();
    const std::vector<FrameStats> straight_stats = sim.stats();

    Simulation other(small_scene(backend));
    other.restore_state(saved);
    EXPECT_EQ(other.frame(), 3);
    EXPECT_EQ(other.stats().size(), 4u);
    other.step(4);
    EXPECT_EQ(other.positions(), straight) << backend_name(backend);
    ASSERT_EQ(other.stats().size(), straight_stats.size());
    EXPECT_EQ(other.stats().back().strain.max, straight_stats.back().strain.max);

    SimulationState wrong = saved;
    wrong.positions.pop_back();
    EXPECT_THROW(other.restore_state(wrong), InputError);
  }
}

TEST(Simulation, StatsPerFrame) {
  Simulation sim(small_scene(Backend::cpu));
  sim.step(6);
  ASSERT_EQ(sim.stats().size(), 7u);
  for (int f = 0; f <= 6; ++f) EXPECT_EQ(sim.stats()[f].frame, f);
  EXPECT_EQ(sim.stats()[0].strain.max, 0.0);
  EXPECT_EQ(sim.stats()[0].ms, 0.0);
  EXPECT_GT(sim.stats()[6].strain.max, 0.0);
  EXPECT_GT(sim.stats()[6].ms, 0.0);

  SimulationOptions quiet;
  quiet.stats = false;
  Simulation plain(small_scene(Backend::cpu), quiet);
  plain.step(6);
  EXPECT_EQ(plain.positions(), sim.positions());
  EXPECT_EQ(plain.stats().size(), 7u);
  EXPECT_EQ(plain.stats()[6].strain.max, 0.0);
}

// A mesh of 3e38 m overflows float32 in the first substep: the step is refused, not counted.
TEST(Simulation, ADivergingSolveIsARuntimeErrorNamingTheFrame) {
  const std::vector<glm::dvec3> x{{0, 0, 0}, {3e38, 0, 0}, {0, 0, 3e38}, {3e38, 0, 3e38}};
  Simulation sim(x, {{0, 1, 3}, {0, 3, 2}}, parse_settings("{}", "settings"));
  try {
    sim.step();
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_STREQ(e.what(), "frame 1: vertex 0 has a non-finite position; the solve diverged");
  }
  EXPECT_EQ(sim.frame(), 0);
  EXPECT_EQ(sim.stats().size(), 1u);
}

TEST(Simulation, CudaWithoutADeviceIsARuntimeError) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_THROW(Simulation(small_scene(Backend::cuda)), RuntimeError);
}

}  // namespace
}  // namespace drape
