// Self-collision in whole simulations: cloth folded onto itself never intersects, stacked sheets
// stay apart, determinism across thread counts, and checkpoints that continue bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include <glm/geometric.hpp>

#include "collision/edge_pairs.h"
#include "collision/self_collision_pairs.h"
#include "collision/self_intersection.h"
#include "drape/error.h"
#include "kernels/geometry.h"
#include "model/cloth.h"
#include "model/primitives.h"
#include "solver/reference_constraints.h"
#include "solver/solver.h"
#include "test_scenes.h"
#include "test_util.h"

namespace drape {
namespace {

using glm::dvec3;
using glm::vec3;

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
// and folds onto itself. `scale` scales the cloth and where it starts (sphere_and_floor the
// sphere).
Scene folding_scene(int n, bool self_collision, double scale = 1.0) {
  Scene s = testing::grid_scene(n, 0.8 * scale, {0, 0, 0});
  s.cloth.transform = {1.0, {70, 0, 15}, {0.1 * scale, 0.55 * scale, 0}};
  s.cloth.shear = 0.9;
  s.cloth.bend = 0.05;
  s.cloth.thickness = 0.008;
  s.cloth.self_collision = self_collision;
  s.solver.substeps = 8;
  return s;
}

std::vector<Collider> sphere_and_floor(double scale = 1.0) {
  Collider sphere, floor;
  sphere.desc.shape = ColliderDesc::Shape::sphere;
  sphere.desc.a = {0, 0.08 * scale, 0};
  sphere.desc.radius = 0.08 * scale;
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
                   Backend backend = Backend::cpu, int threads = 2) {
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

// The folding scene at a quarter of its size, 24 x 24 vertices (8.7 mm edges, 12.3 mm diagonals) at
// 8.5 mm thickness: fine enough next to its thickness that edge-edge contacts are gathered only
// between parts near each other at rest (collision/edge_pairs.h). The fold still never crosses,
// with fewer contacts than with edge-edge contacts everywhere.
TEST(SelfCollisionSim, EdgePairsNearAtRestAlsoHold) {
  const int frames = 40;
  Scene scene = folding_scene(24, true, 0.25);
  scene.cloth.thickness = 0.0085;
  const std::vector<Collider> colliders = sphere_and_floor(0.25);
  ASSERT_TRUE(
      edge_pairs_near(EdgePairs::automatic, scene.cloth.thickness, build_cloth(scene).topology));
  const SimResult near = simulate(scene, colliders, frames);
  EXPECT_EQ(near.worst_intersections, 0u);
  scene.cloth.self_collision_edge_pairs = EdgePairs::all;
  const SimResult all = simulate(scene, colliders, frames);
  EXPECT_EQ(all.worst_intersections, 0u);
  RecordProperty("contacts_near", std::to_string(near.contacts));
  RecordProperty("contacts_all", std::to_string(all.contacts));
  EXPECT_GT(near.contacts, 100000u);
  EXPECT_LT(10 * near.contacts, 8 * all.contacts);
  // Without self-collision the same drop crosses itself.
  scene.cloth.self_collision = false;
  EXPECT_GT(simulate(scene, colliders, frames).worst_intersections, 20u);
}

// The reference backend has the spec's point-triangle contacts only: a choice of edge-edge pairs is
// refused, not ignored.
TEST(SelfCollisionSim, EdgePairsAreRefusedOnTheReference) {
  Scene scene = folding_scene(8, true);
  scene.cloth.self_collision_edge_pairs = EdgePairs::all;
  EXPECT_THROW(simulate(scene, sphere_and_floor(), 1, Backend::reference), InputError);
  scene.cloth.self_collision_edge_pairs = EdgePairs::automatic;
  EXPECT_NO_THROW(simulate(scene, sphere_and_floor(), 1, Backend::reference));
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

// Layers that start closer than the thickness are neighbours only if they are close in the rest
// shape: two sheets 3 mm apart (thickness 8 mm) fall onto the sphere; with a rest mesh that
// holds them 2 cm apart, they are contacts and stay apart; without one (the start is the rest
// shape) their pairs are excused and the top sheet merges into the bottom one.
TEST(SelfCollisionSim, LayersCloseOnlyAtTheStartAreNotNeighbours) {
  testing::TempDir dir;
  Scene scene = testing::stacked_sheets(20, true);
  const std::size_t half = scene.cloth.mesh_data->positions.size() / 2;
  std::string obj;
  for (std::size_t i = 0; i < 2 * half; ++i) {
    const dvec3 p = scene.cloth.mesh_data->positions[i];
    obj +=
        "v " + std::to_string(p.x) + " " + std::to_string(p.y) + " " + std::to_string(p.z) + "\n";
  }
  for (const glm::uvec3& t : scene.cloth.mesh_data->triangles) {
    obj += "f " + std::to_string(t.x + 1) + " " + std::to_string(t.y + 1) + " " +
           std::to_string(t.z + 1) + "\n";
  }
  dir.write("apart.obj", obj);
  auto start = std::make_shared<TriMesh>(*scene.cloth.mesh_data);
  for (std::size_t i = half; i < 2 * half; ++i) start->positions[i].y -= 0.017;  // 3 mm apart
  scene.cloth.mesh_data = start;
  const std::vector<glm::uvec3>& tris = start->triangles;
  Scene no_rest = scene;
  scene.cloth.rest_mesh_path = dir.file("apart.obj");
  const SimResult kept = simulate(scene, sphere_only(), 36);
  EXPECT_EQ(kept.worst_intersections, 0u);
  EXPECT_GE(sheet_gap(kept.final, tris), scene.cloth.thickness / 2);
  const SimResult merged = simulate(no_rest, sphere_only(), 36);
  EXPECT_LT(sheet_gap(merged.final, tris), scene.cloth.thickness / 2);
}

// The reference runs the spec's version: point-triangle only, each point pushed to whichever side
// of the plane it is on now. While the sheets fall some pairs pass through and come back (the
// cpu backend's remembered sides and edge-edge contacts keep them at zero); the sheets end apart.
TEST(SelfCollisionSim, ReferenceBackendSeparatesStackedSheets) {
  Scene scene = testing::stacked_sheets(10, true);
  const SimResult on = simulate(scene, sphere_only(), 24, Backend::reference);
  const SimResult off =
      simulate(testing::stacked_sheets(10, false), sphere_only(), 24, Backend::reference);
  RecordProperty("worst_intersections_on", std::to_string(on.worst_intersections));
  RecordProperty("worst_intersections_off", std::to_string(off.worst_intersections));
  EXPECT_EQ(on.last_intersections, 0u);
  EXPECT_LT(on.worst_intersections * 4, off.worst_intersections);
  EXPECT_GE(sheet_gap(on.final, scene.cloth.mesh_data->triangles), scene.cloth.thickness / 2);
}

// The stacked sheets started tangled: the top sheet's middle (the vertices within 6 cm of its
// centre) pushed 1 cm through the bottom sheet, the sheets as they were (2 cm apart) the rest
// shape, written to `rest`.
// Contacts keep the side a pair starts a substep on, so the poke is held through; with untangling
// it is pushed back and the sheets end apart, on 1 and 3 threads alike.
TEST(SelfCollisionSim, UntanglingPushesAPokeBackThrough) {
  testing::TempDir dir;
  const std::string rest = dir.file("rest.obj");
  const Scene held = testing::poked_sheets(false, rest);
  const std::vector<glm::uvec3>& tris = held.cloth.mesh_data->triangles;
  ASSERT_GT(count_self_intersections(held.cloth.mesh_data->positions, tris), 0u);
  const SimResult stuck = simulate(held, sphere_only(), 12);
  EXPECT_GT(stuck.last_intersections, 0u);
  const SimResult freed =
      simulate(testing::poked_sheets(true, rest), sphere_only(), 12, Backend::cpu, 1);
  RecordProperty("intersections_held", std::to_string(stuck.last_intersections));
  EXPECT_EQ(freed.last_intersections, 0u);
  EXPECT_GE(sheet_gap(freed.final, tris), held.cloth.thickness / 2);
  const SimResult three =
      simulate(testing::poked_sheets(true, rest), sphere_only(), 12, Backend::cpu, 3);
  EXPECT_TRUE(freed.final == three.final);
}

TEST(SelfCollisionSim, UntanglingIsRefusedOnTheReference) {
  testing::TempDir dir;
  const Scene scene = testing::poked_sheets(true, dir.file("rest.obj"));
  EXPECT_THROW(simulate(scene, sphere_only(), 1, Backend::reference), InputError);
}

TEST(SelfCollisionSim, CpuIsBitIdenticalAcrossRunsAndThreadCounts) {
  const Scene scene = folding_scene(24, true);
  const SimResult a = simulate(scene, sphere_and_floor(), 20, Backend::cpu, 1);
  const SimResult b = simulate(scene, sphere_and_floor(), 20, Backend::cpu, 3);
  const SimResult c = simulate(scene, sphere_and_floor(), 20, Backend::cpu, 3);
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
