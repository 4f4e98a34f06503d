// The cuda backend: agreement with cpu on a device, and a plain runtime error without one.
#include <gtest/gtest.h>

#include <glm/geometric.hpp>

#include "collision/collider.h"
#include "collision/collider_view.h"
#include "collision/self_intersection.h"
#include "drape/error.h"
#include "model/cloth.h"
#include "solver/solver.h"
#include "test_scenes.h"
#include "test_util.h"

namespace drape {
namespace {

// How far apart the mean positions of two runs' vertices are.
double centroid_distance(const std::vector<glm::dvec3>& a, const std::vector<glm::dvec3>& b) {
  glm::dvec3 ca(0.0), cb(0.0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    ca += a[i];
    cb += b[i];
  }
  return glm::length(ca - cb) / static_cast<double>(a.size());
}

// The last positions of `frames` frames on cpu (a) and on cuda (b).
void run_both(const Scene& scene, const ClothModel& cloth, const std::vector<Collider>& colliders,
              int frames, std::vector<glm::dvec3>& a, std::vector<glm::dvec3>& b) {
  auto cpu = make_cpu_solver(cloth, physics_params(scene), 0, colliders);
  auto cuda = make_cuda_solver(cloth, physics_params(scene), colliders);
  for (int frame = 0; frame < frames; ++frame) {
    cpu->step_frame();
    cuda->step_frame();
  }
  cpu->copy_positions(a);
  cuda->copy_positions(b);
}

Scene two_corner_scene() {
  Scene s = testing::two_corner_scene();
  s.solver.substeps = 16;
  return s;
}

TEST(Cuda, AgreesWithCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: " << cuda_device_description();
  const Scene scene = two_corner_scene();
  const ClothModel cloth = build_cloth(scene);
  auto cpu = make_cpu_solver(cloth, physics_params(scene), 0);
  auto cuda = make_cuda_solver(cloth, physics_params(scene));
  std::vector<glm::dvec3> a, b;
  double worst = 0.0;
  for (int frame = 1; frame <= 24; ++frame) {
    cpu->step_frame();
    cuda->step_frame();
    cpu->copy_positions(a);
    cuda->copy_positions(b);
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, glm::length(a[i] - b[i]));
  }
  RecordProperty("max_vertex_difference_m", std::to_string(worst));
  EXPECT_LT(worst, 1e-4);
}

// A cloth dropped on a level-set sphere (NanoVDB-made, as the GPU machine has no OpenVDB): cuda
// samples the NanoVDB grid from device memory. The drape wrinkles (a bifurcation), so the two
// backends are compared by centroid, and each must keep every vertex outside.
TEST(Cuda, DrapesOnALevelSetLikeCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: " << cuda_device_description();
  Scene scene = testing::grid_scene(32, 0.6, {0, 0.45, 0});
  scene.solver.substeps = 8;
  Collider collider;
  collider.desc.shape = ColliderDesc::Shape::nvdb;
  collider.desc.thickness = 0.01;
  collider.grid = std::make_shared<SdfGrid>(testing::level_set_sphere(0.3, 0.01, 3));
  const ClothModel cloth = build_cloth(scene);
  std::vector<glm::dvec3> a, b;
  run_both(scene, cloth, {collider}, 24, a, b);
  for (const glm::dvec3& p : b) EXPECT_GE(collider.grid->sample(p), -1e-3);
  EXPECT_LT(centroid_distance(a, b), 0.006);
}

// A pose sequence on the device: five level-set spheres (NanoVDB-made) growing from 0.2 to 0.3 m,
// four poses a second, every pose in device memory and blended there at every substep. The
// cloth ends on the grown ball as on cpu, and no frame leaves a vertex inside its own pose.
TEST(Cuda, FollowsAPoseSequenceLikeCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: " << cuda_device_description();
  Scene scene = testing::grid_scene(24, 1.0, {0, 0.23, 0});
  scene.solver.substeps = 8;
  Collider ball;
  ball.desc.shape = ColliderDesc::Shape::mesh;
  ball.desc.sequence = true;
  ball.desc.friction = 0.3;
  ball.pose_fps = 4.0;
  for (int k = 0; k < 5; ++k) {
    ball.poses.push_back(
        std::make_shared<SdfGrid>(testing::level_set_sphere(0.2 + 0.025 * k, 0.01, 6)));
  }
  ball.grid = ball.poses.front();
  const ClothModel cloth = build_cloth(scene);
  const PhysicsParams params = physics_params(scene);
  auto cpu = make_cpu_solver(cloth, params, 0, {ball});
  auto cuda = make_cuda_solver(cloth, params, {ball});
  std::vector<glm::dvec3> a, b;
  for (int frame = 1; frame <= 36; ++frame) {
    cpu->step_frame();
    cuda->step_frame();
    cuda->copy_positions(b);
    EXPECT_EQ(count_penetrations({ball}, b, frame / scene.fps), 0u) << "frame " << frame;
  }
  cpu->copy_positions(a);
  double top = -1.0;
  for (const glm::dvec3& p : b) top = std::max(top, p.y);
  EXPECT_GT(top, 0.3);
  EXPECT_LT(top, 0.33);
  EXPECT_LT(centroid_distance(a, b), 0.006);
}

// Self-collision on the device: the hash sorted with Thrust on the GPU, the same contacts. Two
// stacked sheets dropped on a sphere stay apart, as on cpu, and land in the same place.
TEST(Cuda, SelfCollisionKeepsStackedSheetsApartLikeCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: " << cuda_device_description();
  const Scene scene = testing::stacked_sheets(20, true);
  Collider sphere;
  sphere.desc.shape = ColliderDesc::Shape::sphere;
  sphere.desc.radius = 0.2;
  const ClothModel cloth = build_cloth(scene);
  auto cpu = make_cpu_solver(cloth, physics_params(scene), 0, {sphere});
  auto cuda = make_cuda_solver(cloth, physics_params(scene), {sphere});
  std::vector<glm::dvec3> a, b;
  std::uint64_t cpu_contacts = 0, cuda_contacts = 0;
  for (int frame = 0; frame < 36; ++frame) {
    cpu->step_frame();
    cuda->step_frame();
    cpu_contacts += cpu->self_contacts();
    cuda_contacts += cuda->self_contacts();
    cuda->copy_positions(b);
    ASSERT_EQ(count_self_intersections(b, cloth.mesh.triangles), 0u) << "frame " << frame;
  }
  cpu->copy_positions(a);
  RecordProperty("cpu_contacts", std::to_string(cpu_contacts));
  RecordProperty("cuda_contacts", std::to_string(cuda_contacts));
  EXPECT_GT(cuda_contacts, cpu_contacts / 2);
  EXPECT_LT(cuda_contacts, cpu_contacts * 2);
  EXPECT_LT(centroid_distance(a, b), 0.006);
}

// Untangling with the positions on the device: each substep copies them to the host, finds the
// crossings there and uploads what the contacts must do. The poked sheets come apart as on cpu.
TEST(Cuda, UntanglingPushesAPokeBackThroughLikeCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: " << cuda_device_description();
  testing::TempDir dir;
  const Scene scene = testing::poked_sheets(true, dir.file("rest.obj"));
  Collider sphere;
  sphere.desc.shape = ColliderDesc::Shape::sphere;
  sphere.desc.radius = 0.2;
  sphere.desc.friction = 0.3;
  const ClothModel cloth = build_cloth(scene);
  ASSERT_GT(count_self_intersections(cloth.mesh.positions, cloth.mesh.triangles), 0u);
  std::vector<glm::dvec3> a, b;
  run_both(scene, cloth, {sphere}, 12, a, b);
  EXPECT_EQ(count_self_intersections(a, cloth.mesh.triangles), 0u);
  EXPECT_EQ(count_self_intersections(b, cloth.mesh.triangles), 0u);
  EXPECT_LT(centroid_distance(a, b), 0.006);
}

// Each iteration's launches replayed from a CUDA graph give the frames of launching them one by
// one, bit for bit: XPBD with strain limiting, a sphere moving up through the cloth (its placement
// changes every substep in device memory, under the same graph) and self-collision outside it.
TEST(Cuda, GraphReplayEqualsLaunchingOneByOne) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: " << cuda_device_description();
  Scene scene = testing::stacked_sheets(16, true);
  scene.cloth.model = ClothModelKind::xpbd;
  scene.cloth.mass = MassModel::area;
  scene.cloth.max_strain = 0.05;
  Collider sphere;
  sphere.desc.shape = ColliderDesc::Shape::sphere;
  sphere.desc.radius = 0.2;
  sphere.desc.motion = {{0.0, {0, 0, 0}, {0, 0, 0}}, {1.0, {0, 0.3, 0}, {0, 0, 0}}};
  const ClothModel cloth = build_cloth(scene);
  auto graphs = make_cuda_solver(cloth, physics_params(scene), {sphere}, true);
  auto launches = make_cuda_solver(cloth, physics_params(scene), {sphere}, false);
  std::vector<glm::dvec3> a, b;
  for (int frame = 1; frame <= 12; ++frame) {
    graphs->step_frame();
    launches->step_frame();
    graphs->copy_positions(a);
    launches->copy_positions(b);
    ASSERT_EQ(a, b) << "frame " << frame;
  }
}

TEST(Cuda, WithoutADeviceItIsARuntimeError) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  const Scene scene = two_corner_scene();
  const ClothModel cloth = build_cloth(scene);
  EXPECT_THROW(make_cuda_solver(cloth, physics_params(scene)), RuntimeError);
}

}  // namespace
}  // namespace drape
