// A cloth ready to simulate: its mesh in world space, inverse masses and constraints.
#pragma once

#include <vector>

#include "drape/mesh.h"
#include "drape/scene.h"
#include "model/primitives.h"
#include "model/topology.h"

namespace drape {

struct ClothModel {
  TriMesh mesh;                  // world-space positions, input order
  std::vector<double> inv_mass;  // w = 1, pins w = 0 (spec 1.1)
  Topology topology;
  std::size_t pinned = 0;
};

// Loads or generates the mesh, applies the transform, resolves pins and extracts constraints.
ClothModel build_cloth(const Scene& scene);

// p' = R(rotate_deg) * (scale * p) + translate, R = Rz * Ry * Rx.
void apply_transform(const Transform& transform, std::vector<glm::dvec3>& positions);

}  // namespace drape
