// The cuda backend: agreement with cpu on a device, and a plain runtime error without one.
#include <gtest/gtest.h>

#include <glm/geometric.hpp>

#include "drape/cloth.h"
#include "drape/error.h"
#include "drape/solver.h"

namespace drape {
namespace {

Scene two_corner_scene() {
  Scene s;
  s.path = "test";
  GridDesc g;
  g.nx = g.nz = 32;
  g.center = {0, 1, 0};
  s.cloth.grid = g;
  s.cloth.pins.kind = PinDesc::Kind::indices;
  s.cloth.pins.indices = {0, 31};
  s.wind = {0, 0, 2};
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

TEST(Cuda, WithoutADeviceItIsARuntimeError) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  const Scene scene = two_corner_scene();
  const ClothModel cloth = build_cloth(scene);
  EXPECT_THROW(make_cuda_solver(cloth, physics_params(scene)), RuntimeError);
}

}  // namespace
}  // namespace drape
