// Scenes shared by the test suites.
#pragma once

#include <fstream>
#include <random>
#include <string>

#include <nanovdb/util/Primitives.h>
#include <glm/geometric.hpp>

#include "collision/collider.h"
#include "drape/scene.h"
#include "model/cloth.h"
#include "model/primitives.h"

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

// The stacked sheets (20 x 20) with the upper one poked 3 cm down through the lower one around a
// point, their unpoked shape written to `rest` (an OBJ) as the rest mesh.
inline Scene poked_sheets(bool untangle, const std::string& rest) {
  Scene scene = stacked_sheets(20, true);
  std::ofstream obj(rest);
  for (const glm::dvec3& p : scene.cloth.mesh_data->positions) {
    obj << "v " << p.x << " " << p.y << " " << p.z << "\n";
  }
  for (const glm::uvec3& t : scene.cloth.mesh_data->triangles) {
    obj << "f " << t.x + 1 << " " << t.y + 1 << " " << t.z + 1 << "\n";
  }
  scene.cloth.rest_mesh_path = rest;
  auto mesh = std::make_shared<TriMesh>(*scene.cloth.mesh_data);
  const glm::dvec3 centre(0.02, 0.47, 0.01);
  for (std::size_t i = mesh->positions.size() / 2; i < mesh->positions.size(); ++i) {
    if (glm::distance(mesh->positions[i], centre) < 0.06) mesh->positions[i].y -= 0.03;
  }
  scene.cloth.mesh_data = mesh;
  scene.cloth.self_collision_untangle = untangle;
  return scene;
}

// A random triangle soup of `vertices` points in a cube of side `box`, every vertex free.
inline ClothModel soup(std::mt19937& rng, int vertices, int triangles, double box) {
  std::uniform_real_distribution<double> u(0.0, box);
  std::uniform_int_distribution<std::uint32_t> pick(0, static_cast<std::uint32_t>(vertices) - 1);
  ClothModel c;
  for (int i = 0; i < vertices; ++i) c.mesh.positions.push_back({u(rng), u(rng), u(rng)});
  while (static_cast<int>(c.mesh.triangles.size()) < triangles) {
    const glm::uvec3 t(pick(rng), pick(rng), pick(rng));
    if (t.x == t.y || t.y == t.z || t.x == t.z) continue;
    c.mesh.triangles.push_back(t);
  }
  c.inv_mass.assign(c.mesh.positions.size(), 1.0);
  c.topology = build_topology(c.mesh.positions, c.mesh.triangles);
  return c;
}

}  // namespace drape::testing
