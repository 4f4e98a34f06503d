// Scenes shared by the test suites.
#pragma once

#include <nanovdb/util/Primitives.h>

#include "collision/collider.h"
#include "model/primitives.h"
#include "drape/scene.h"

namespace drape::testing {

// An n x n grid cloth of `size` metres in the XZ plane at `center`, nothing else set.
inline Scene grid_scene(int n, double size, const glm::dvec3& center) {
  Scene s = make_grid_scene(n, size, center);
  s.path = "test";
  return s;
}

// The parallel issue's agreement case: a 32 x 32 cloth, 1 m, pinned at two corners under gravity
// and wind.
inline Scene two_corner_scene() {
  Scene s = grid_scene(32, 1.0, {0, 1, 0});
  s.cloth.pins.kind = PinDesc::Kind::indices;
  s.cloth.pins.indices = {0, 31};
  s.wind = {0, 0, 2};
  return s;
}

// A NanoVDB level-set sphere (NanoVDB's own generator: needs no OpenVDB, as on the GPU machine).
inline SdfGrid level_set_sphere(double radius, double voxel, double band_voxels) {
  const auto handle = nanovdb::createLevelSetSphere<float>(
      static_cast<float>(radius), nanovdb::Vec3f(0.0f), voxel, band_voxels);
  return SdfGrid(handle.data(), handle.size(), "sphere");
}

// Two 0.5 m sheets, 2 cm apart, one above the other, as one mesh.
inline Scene stacked_sheets(int n, bool self_collision) {
  auto mesh = std::make_shared<TriMesh>();
  for (double y : {0.45, 0.47}) {
    const TriMesh sheet = make_grid({n, n, 0.5, 0.5, glm::dvec3(0.02, y, 0.01)});
    const auto base = static_cast<std::uint32_t>(mesh->positions.size());
    mesh->positions.insert(mesh->positions.end(), sheet.positions.begin(), sheet.positions.end());
    for (const glm::uvec3& t : sheet.triangles) mesh->triangles.push_back(t + base);
  }
  Scene s = grid_scene(2, 1.0, {0, 0, 0});
  s.cloth.grid.reset();
  s.cloth.mesh_data = mesh;
  s.cloth.thickness = 0.008;
  s.cloth.self_collision = self_collision;
  s.solver.substeps = 8;
  return s;
}

}  // namespace drape::testing
