// Obstacle collisions: signed distance fields (analytic and NanoVDB), the response, moving
// colliders, and agreement between backends.
#include <cmath>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>
#include <nanovdb/util/IO.h>
#include <nanovdb/util/Primitives.h>
#include <glm/geometric.hpp>

#include "collision/collider.h"
#include "collision/collider_view.h"
#include "drape/error.h"
#include "model/cloth.h"
#include "solver/solver.h"
#include "test_scenes.h"
#include "test_util.h"

#ifdef DRAPE_TEST_OPENVDB
#include <openvdb/io/File.h>
#include <openvdb/openvdb.h>
#include <openvdb/tools/LevelSetSphere.h>
#endif

namespace drape {
namespace {

constexpr double kPi = 3.14159265358979323846;

double analytic_box(const glm::dvec3& p, const glm::dvec3& lo, const glm::dvec3& hi) {
  const glm::dvec3 q = glm::abs(p - 0.5 * (lo + hi)) - 0.5 * (hi - lo);
  return glm::length(glm::max(q, glm::dvec3(0.0))) + std::min(std::max({q.x, q.y, q.z}), 0.0);
}

TEST(Sdf, BoxMeshMatchesTheAnalyticBoxWithinAVoxel) {
  const glm::dvec3 lo{-0.3, 0.1, -0.2}, hi{0.25, 0.5, 0.35};
  const double voxel = 0.02;
  if (!have_openvdb()) GTEST_SKIP() << "built without OpenVDB: no mesh-to-SDF";
  const SdfGrid grid = build_mesh_sdf(make_box(lo, hi), voxel, 3);
  EXPECT_NEAR(grid.voxel_size(), voxel, 1e-12);
  EXPECT_NEAR(grid.background(), 3 * voxel, 1e-6);
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int checked = 0;
  for (int i = 0; i < 4000; ++i) {
    const glm::dvec3 p = lo - 0.1 + (hi - lo + 0.2) * glm::dvec3(u(rng), u(rng), u(rng));
    const double exact = analytic_box(p, lo, hi);
    if (std::abs(exact) > 2 * voxel) continue;  // inside the narrow band
    EXPECT_NEAR(grid.sample(p), exact, voxel) << p.x << " " << p.y << " " << p.z;
    ++checked;
  }
  EXPECT_GT(checked, 300);
  EXPECT_NEAR(grid.sample({0.0, 1.0, 0.0}), grid.background(), 1e-6);  // far: background
}

TEST(Sdf, NvdbRoundTripAndBadFiles) {
  testing::TempDir dir;
  const SdfGrid grid = testing::level_set_sphere(0.2, 0.01, 3);
  save_nvdb(grid, dir.file("s.nvdb"));
  const SdfGrid back = load_nvdb(dir.file("s.nvdb"));
  EXPECT_EQ(back.size(), grid.size());
  EXPECT_NEAR(back.sample({0.2, 0, 0}), 0.0, 0.01);
  EXPECT_NEAR(back.sample({0.0, 0.21, 0}), 0.01, 0.01);

  const auto input_error = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(input_error([&] { load_nvdb(dir.file("missing.nvdb")); }).find("cannot open"),
            std::string::npos);
  dir.write("empty.nvdb", "");
  EXPECT_NE(input_error([&] { load_nvdb(dir.file("empty.nvdb")); }).find("empty.nvdb: "),
            std::string::npos);
  dir.write("garbage.nvdb", std::string(4096, 'x'));
  EXPECT_NE(input_error([&] { load_nvdb(dir.file("garbage.nvdb")); }).find("garbage.nvdb: "),
            std::string::npos);
  if (have_openvdb()) {
    dir.write("garbage.vdb", std::string(4096, 'x'));
    EXPECT_NE(input_error([&] { load_vdb(dir.file("garbage.vdb"), ""); }).find("garbage.vdb: "),
              std::string::npos);
  }
}

#ifdef DRAPE_TEST_OPENVDB
// A .vdb as Houdini writes them, with a fog volume first and the level set second: the first
// level set is taken, or the grid named; a named grid that is not a level set is refused.
TEST(Sdf, VdbFilesPickTheLevelSet) {
  testing::TempDir dir;
  openvdb::initialize();
  auto fog = openvdb::FloatGrid::create(0.0f);
  fog->setName("density");
  fog->setGridClass(openvdb::GRID_FOG_VOLUME);
  fog->tree().setValue(openvdb::Coord(0, 0, 0), 1.0f);
  auto sphere = openvdb::tools::createLevelSetSphere<openvdb::FloatGrid>(
      0.25f, openvdb::Vec3f(0.0f), 0.01f, 3.0f);
  sphere->setName("surface");
  openvdb::io::File(dir.file("scene.vdb")).write({fog, sphere});
  const SdfGrid first = load_vdb(dir.file("scene.vdb"), "");
  EXPECT_NEAR(first.sample({0.25, 0, 0}), 0.0, 0.01);
  EXPECT_NEAR(first.sample({0, 0.27, 0}), 0.02, 0.01);
  EXPECT_NEAR(load_vdb(dir.file("scene.vdb"), "surface").sample({0, 0, 0.23}), -0.02, 0.01);
  EXPECT_NEAR(first.sample({0, 0, 0}), -first.background(), 1e-6);  // deep inside: -background
  EXPECT_THROW(load_vdb(dir.file("scene.vdb"), "density"), InputError);
  EXPECT_THROW(load_vdb(dir.file("scene.vdb"), "nope"), InputError);
  openvdb::io::File(dir.file("fog.vdb")).write({fog});
  EXPECT_THROW(load_vdb(dir.file("fog.vdb"), ""), InputError);
}
#endif

TEST(Sdf, FogVolumeIsNotALevelSet) {
  testing::TempDir dir;
  const auto fog = nanovdb::createFogVolumeSphere<float>(10.0f);
  nanovdb::io::writeGrid(dir.file("fog.nvdb"), fog);
  try {
    load_nvdb(dir.file("fog.nvdb"));
    ADD_FAILURE() << "a fog volume was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is not a level set"), std::string::npos) << e.what();
  }
}

kernels::ColliderView sphere_view(float radius, float thickness, float friction) {
  kernels::ColliderView v;
  v.shape = kernels::Shape::sphere;
  v.radius = radius;
  v.thickness = thickness;
  v.friction = friction;
  return v;
}

// The ground y = height, facing up.
kernels::ColliderView plane_view(float height, float thickness) {
  kernels::ColliderView v;
  v.shape = kernels::Shape::plane;
  v.a = glm::vec3(0.0f, height, 0.0f);
  v.b = glm::vec3(0.0f, 1.0f, 0.0f);
  v.thickness = thickness;
  v.friction = 0.8f;
  return v;
}

TEST(Response, PushOutFrictionAndRestitutionAsTheSpec) {
  // A vertex 1 cm inside a unit sphere's top, having moved 3 cm sideways this substep.
  kernels::ColliderView v = sphere_view(1.0f, 0.01f, 0.0f);
  glm::dvec3 p{0.0, 0.99, 0.0};
  const glm::dvec3 start{-0.03, 0.99, 0.0};
  ASSERT_TRUE(kernels::collide(v, p, start));
  EXPECT_NEAR(p.y, 1.01, 1e-6);  // pushed to the thickness along the normal (+Y)
  EXPECT_NEAR(p.x, 0.0, 1e-9);   // friction 0: the slide is kept
  v.friction = 1.0f;
  p = {0.0, 0.99, 0.0};
  ASSERT_TRUE(kernels::collide(v, p, start));
  EXPECT_NEAR(p.x, -0.03, 1e-6);  // friction 1: the tangential motion is undone
  EXPECT_NEAR(p.y, 1.01, 1e-6);
  // Restitution adds back the normal part of the displacement (0.02 m upward here).
  v.friction = 0.0f;
  v.restitution = 0.5f;
  p = {0.0, 0.99, 0.0};
  ASSERT_TRUE(kernels::collide(v, p, start));
  EXPECT_NEAR(p.y, 1.01 + 0.5 * 0.02, 1e-6);
  // Far away: untouched.
  p = {0.0, 2.0, 0.0};
  EXPECT_FALSE(kernels::collide(v, p, start));
  EXPECT_EQ(p, glm::dvec3(0.0, 2.0, 0.0));
}

TEST(Response, ZeroGradientInsideRestoresTheStart) {
  // At the very centre of a sphere the gradient vanishes: back to where the substep began.
  kernels::ColliderView v = sphere_view(0.5f, 0.01f, 0.3f);
  glm::dvec3 p{0.0, 0.0, 0.0};
  const glm::dvec3 start{0.0, 0.6, 0.0};
  ASSERT_TRUE(kernels::collide(v, p, start));
  EXPECT_EQ(p, start);
}

TEST(Response, DeepInsideANarrowBandIsNeverLeftInside) {
  const SdfGrid grid = testing::level_set_sphere(0.3, 0.01, 3);
  Collider c;
  c.desc.shape = ColliderDesc::Shape::nvdb;
  c.desc.thickness = 0.005;
  c.grid = std::make_shared<SdfGrid>(grid);
  const kernels::ColliderView v = make_view(c, 0.0, 0.0, grid.data());
  glm::dvec3 p{0.02, 0.05, 0.0};  // 25 cm inside: below the band, constant -background
  const glm::dvec3 start{0.02, 0.4, 0.0};
  ASSERT_TRUE(kernels::collide(v, p, start));
  EXPECT_EQ(p, start);
  p = {0.0, 0.295, 0.0};  // just inside the surface: pushed out along +Y to the thickness
  ASSERT_TRUE(kernels::collide(v, p, glm::dvec3(0.0, 0.4, 0.0)));
  EXPECT_NEAR(glm::length(p), 0.305, 0.01);
  EXPECT_GT(p.y, 0.295);
}

TEST(Response, SkippingVerticesWithinTheirClearanceChangesNothing) {
  // A level-set sphere and a ground plane against 2,000 vertices that wander in small random
  // steps: collided with the clearance (kernels::Clearance) they end exactly where collided in
  // full, and most passes skip most vertices.
  const SdfGrid grid = testing::level_set_sphere(0.3, 0.01, 3);
  Collider sphere;
  sphere.desc.shape = ColliderDesc::Shape::nvdb;
  sphere.desc.thickness = 0.005;
  sphere.desc.friction = 0.4;
  sphere.grid = std::make_shared<SdfGrid>(grid);
  const kernels::ColliderView views[2] = {make_view(sphere, 0.0, 0.0, grid.data()),
                                          plane_view(-0.2f, 0.01f)};
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-0.45f, 0.45f), step(-0.004f, 0.004f);
  std::vector<glm::vec3> start, full, skipping;
  for (int i = 0; i < 2000; ++i) start.emplace_back(u(rng), u(rng), u(rng));
  full = skipping = start;
  std::vector<float> w(start.size(), 1.0f), reach(start.size(), 0.0f);
  std::vector<glm::vec3> at(start.size()), v(start.size());
  const auto n = static_cast<std::uint32_t>(start.size());
  const kernels::CollideChunk chunk{
      views, 2, {start.data(), skipping.data(), v.data(), w.data(), n}, {at.data(), reach.data()}};
  std::size_t skipped = 0;
  for (int pass = 0; pass < 50; ++pass) {
    for (std::uint32_t i = 0; i < n; ++i) {
      const glm::vec3 d(step(rng), step(rng), step(rng));
      full[i] += d;
      skipping[i] += d;
      for (const kernels::ColliderView& c : views) kernels::collide(c, full[i], start[i]);
    }
    std::vector<glm::vec3> before = skipping;
    std::vector<glm::vec3> last_at = at;
    std::vector<float> last_reach = reach;
    chunk(0, n / 2);
    chunk(n / 2, n);
    for (std::uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(skipping[i], full[i]) << "pass " << pass << " vertex " << i;
      const glm::vec3 moved = before[i] - last_at[i];
      skipped += last_reach[i] > 0.0f && glm::dot(moved, moved) < last_reach[i] * last_reach[i];
    }
  }
  EXPECT_GT(skipped, 50u * 2000u / 2);
}

TEST(Motion, KeysInterpolateAndHold) {
  Collider c;
  c.desc.transform.translate = {1, 0, 0};
  c.desc.motion = {{0.0, {0, 0, 0}, {0, 0, 0}}, {2.0, {0, 2, 0}, {0, 90, 0}}};
  const ColliderPose before = c.pose_at(-1.0), mid = c.pose_at(1.0), after = c.pose_at(5.0);
  EXPECT_NEAR(glm::length(before.translation - glm::dvec3(1, 0, 0)), 0.0, 1e-12);
  // Halfway: 45 degrees about Y applied to the placed collider, then up by 1.
  const glm::dvec3 expected = glm::dvec3(std::cos(kPi / 4), 1.0, -std::sin(kPi / 4));
  EXPECT_NEAR(glm::length(mid.translation - expected), 0.0, 1e-9);
  EXPECT_NEAR(glm::length(after.translation - glm::dvec3(0, 2, -1)), 0.0, 1e-9);
}

Scene drop_scene(int n, double size) {
  Scene s = testing::grid_scene(n, size, {0, 0.45, 0});
  s.cloth.bend = 0.05;
  s.solver.substeps = 8;
  ColliderDesc sphere;
  sphere.shape = ColliderDesc::Shape::sphere;
  sphere.a = {0, 0, 0};
  sphere.radius = 0.3;
  sphere.thickness = 0.01;
  sphere.friction = 0.5;
  sphere.key = "colliders[0]";
  s.colliders.push_back(sphere);
  return s;
}

double sphere_distance(const glm::dvec3& p) {
  return glm::length(p) - 0.3;
}

void expect_draped(const std::vector<glm::dvec3>& x, double thickness, double tolerance) {
  std::size_t resting = 0;
  for (const glm::dvec3& p : x) {
    EXPECT_GE(sphere_distance(p), -1e-3);
    if (std::hypot(p.x, p.z) < 0.08) {  // on the cap of the sphere
      EXPECT_NEAR(sphere_distance(p), thickness, tolerance) << p.x << " " << p.y << " " << p.z;
      ++resting;
    }
  }
  EXPECT_GT(resting, 10u);
}

TEST(Drape, ClothOnAnalyticSphere) {
  const Scene scene = drop_scene(24, 0.8);
  const ClothModel cloth = build_cloth(scene);
  auto solver = make_cpu_solver(cloth, physics_params(scene), 0, build_colliders(scene));
  std::vector<glm::dvec3> x;
  for (int f = 0; f < 36; ++f) solver->step_frame();
  solver->copy_positions(x);
  expect_draped(x, 0.01, 2e-3);
}

TEST(Drape, ClothOnLevelSetSphere) {
  testing::TempDir dir;
  Scene scene = drop_scene(24, 0.8);
  const double voxel = 0.01;
  save_nvdb(testing::level_set_sphere(0.3, voxel, 3), dir.file("s.nvdb"));
  scene.colliders[0].shape = ColliderDesc::Shape::nvdb;
  scene.colliders[0].path = dir.file("s.nvdb");
  const ClothModel cloth = build_cloth(scene);
  auto solver = make_cpu_solver(cloth, physics_params(scene), 0, build_colliders(scene));
  std::vector<glm::dvec3> x;
  for (int f = 0; f < 36; ++f) solver->step_frame();
  solver->copy_positions(x);
  // A narrow-band level set of the sphere: resting within thickness plus one voxel.
  expect_draped(x, 0.01, voxel);
}

// A small cloth lying on a plane tilted 30 degrees about X.
double slide_distance(double friction) {
  Scene s;
  s.path = "test";
  GridDesc g;
  g.nx = g.nz = 8;
  g.size_x = g.size_z = 0.3;
  s.cloth.grid = g;
  s.cloth.transform.rotate_deg = {30, 0, 0};
  const glm::dvec3 n{0, std::cos(kPi / 6), std::sin(kPi / 6)};
  s.cloth.transform.translate = glm::dvec3(0, 1, 0) + 0.005 * n;
  s.solver.substeps = 8;
  ColliderDesc plane;
  plane.shape = ColliderDesc::Shape::plane;
  plane.a = {0, 1, 0};
  plane.b = n;
  plane.thickness = 0.005;
  plane.friction = friction;
  s.colliders.push_back(plane);
  const ClothModel cloth = build_cloth(s);
  auto solver = make_cpu_solver(cloth, physics_params(s), 0, build_colliders(s));
  for (int f = 0; f < 24; ++f) solver->step_frame();
  std::vector<glm::dvec3> x;
  solver->copy_positions(x);
  glm::dvec3 moved(0.0);
  for (std::size_t i = 0; i < x.size(); ++i) moved += x[i] - cloth.mesh.positions[i];
  return glm::length(moved / static_cast<double>(x.size()));
}

TEST(Drape, FrictionHoldsOrReleasesOnASlope) {
  EXPECT_LT(slide_distance(1.0), 0.01);
  EXPECT_GT(slide_distance(0.0), 0.5);  // free sliding: about g sin(30) t^2 / 2 = 2.45 m in 1 s
}

TEST(Drape, MovingSphereCarriesARestingCloth) {
  Scene scene = drop_scene(16, 0.3);
  scene.colliders[0].friction = 1.0;
  // Rest for a second, then move 0.3 m along +X over one second.
  scene.colliders[0].motion = {{1.0, {0, 0, 0}, {0, 0, 0}}, {2.0, {0.3, 0, 0}, {0, 0, 0}}};
  const ClothModel cloth = build_cloth(scene);
  auto solver = make_cpu_solver(cloth, physics_params(scene), 0, build_colliders(scene));
  std::vector<glm::dvec3> x;
  const auto centroid_x = [&] {
    solver->copy_positions(x);
    double sum = 0.0;
    for (const glm::dvec3& p : x) sum += p.x;
    return sum / static_cast<double>(x.size());
  };
  for (int f = 0; f < 24; ++f) solver->step_frame();
  const double rest = centroid_x();
  for (int f = 0; f < 24; ++f) solver->step_frame();
  EXPECT_NEAR(centroid_x() - rest, 0.3, 0.03);
  for (const glm::dvec3& p : x) EXPECT_GE(glm::length(p - glm::dvec3(0.3, 0, 0)) - 0.3, -1e-3);
}

// Distance from p to triangle abc (closest point by Voronoi region, Ericson 2005, 5.1.5).
double point_triangle_distance(const glm::dvec3& p, const glm::dvec3& a, const glm::dvec3& b,
                               const glm::dvec3& c) {
  const glm::dvec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = glm::dot(ab, ap), d2 = glm::dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return glm::length(p - a);
  const glm::dvec3 bp = p - b;
  const double d3 = glm::dot(ab, bp), d4 = glm::dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return glm::length(p - b);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return glm::length(p - (a + d1 / (d1 - d3) * ab));
  const glm::dvec3 cp = p - c;
  const double d5 = glm::dot(ab, cp), d6 = glm::dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return glm::length(p - c);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return glm::length(p - (a + d2 / (d2 - d6) * ac));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    return glm::length(p - (b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b)));
  }
  const double denom = 1.0 / (va + vb + vc);
  return glm::length(p - (a + ab * (vb * denom) + ac * (vc * denom)));
}

// Mean distance from the vertices of x to the surface of y, and back, averaged.
double mean_surface_distance(const std::vector<glm::dvec3>& x, const std::vector<glm::dvec3>& y,
                             const std::vector<glm::uvec3>& triangles) {
  const auto one_way = [&](const std::vector<glm::dvec3>& from, const std::vector<glm::dvec3>& to) {
    double sum = 0.0;
    for (const glm::dvec3& p : from) {
      double nearest = 1e30;
      for (const glm::uvec3& t : triangles) {
        nearest = std::min(nearest, point_triangle_distance(p, to[t.x], to[t.y], to[t.z]));
      }
      sum += nearest;
    }
    return sum / static_cast<double>(from.size());
  };
  return 0.5 * (one_way(x, y) + one_way(y, x));
}

glm::dvec3 centroid(const std::vector<glm::dvec3>& x) {
  glm::dvec3 sum(0.0);
  for (const glm::dvec3& p : x) sum += p;
  return sum / static_cast<double>(x.size());
}

// A cloth draped on a sphere wrinkles, and where a wrinkle forms is a bifurcation: the reference
// against itself with one vertex moved by 1e-9 m differs by 4-6 cm at single vertices. So the two
// backends are compared as shapes: the mean distance between the two draped surfaces and their
// centroids, each within 1% of the cloth's size (0.6 m).
TEST(Drape, ReferenceAndCpuAgreeOnTheSphere) {
  Scene scene = drop_scene(24, 0.6);
  scene.solver.substeps = 16;
  const ClothModel cloth = build_cloth(scene);
  const std::vector<Collider> colliders = build_colliders(scene);
  auto reference = make_reference_solver(cloth, physics_params(scene), colliders);
  auto cpu = make_cpu_solver(cloth, physics_params(scene), 0, colliders);
  for (int f = 0; f < 36; ++f) {
    reference->step_frame();
    cpu->step_frame();
  }
  std::vector<glm::dvec3> a, b;
  reference->copy_positions(a);
  cpu->copy_positions(b);
  const double surface = mean_surface_distance(a, b, cloth.mesh.triangles);
  const double centroids = glm::length(centroid(a) - centroid(b));
  RecordProperty("mean_surface_distance_m", std::to_string(surface));
  RecordProperty("centroid_distance_m", std::to_string(centroids));
  EXPECT_LT(surface, 0.01 * 0.6);
  EXPECT_LT(centroids, 0.01 * 0.6);
  expect_draped(a, 0.01, 2e-3);
  expect_draped(b, 0.01, 2e-3);
}

}  // namespace
}  // namespace drape
