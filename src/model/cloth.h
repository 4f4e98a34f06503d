// A cloth ready to simulate: its mesh in world space, inverse masses and constraints.
#pragma once

#include <vector>

#include "drape/mesh.h"
#include "drape/scene.h"
#include "model/primitives.h"
#include "model/stitches.h"
#include "model/topology.h"

namespace drape {

struct ClothModel {
  TriMesh mesh;                  // world-space positions, input order
  std::vector<double> inv_mass;  // w = 1 or 1 / (area mass), pins w = 0 (spec 1.1)
  Topology topology;             // rest values from cloth.rest_mesh when given
  // The rest shape: cloth.rest_mesh's positions, or the mesh's; empty: the mesh's.
  std::vector<glm::dvec3> rest;
  std::size_t pinned = 0;
  // XPBD compliance (1 / stiffness) per constraint, in topology order; empty for PBD.
  std::vector<double> stretch_compliance, shear_compliance, bend_compliance;
  // Long-range attachments (cloth.max_strain with pins): each vertex's nearest pin along the
  // rest mesh (kNoPin: none) and the geodesic rest distance to it.
  std::vector<std::uint32_t> attach_pin;
  std::vector<double> attach_length;
  // The triangles around each vertex (air forces): vertex_triangles[offsets[v], offsets[v+1]).
  std::vector<std::uint32_t> vertex_triangle_offsets, vertex_triangles;
  StitchSet stitches;  // cloth.stitches
  // cloth.attach: vertex k follows collider[k]'s placement; hard ones have w = 0, soft ones are
  // pulled with `stiffness` (pbd) or `compliance` (xpbd, m/N).
  struct Attachments {
    std::vector<std::uint32_t> vertex, collider;
    std::vector<std::uint8_t> hard;
    std::vector<double> stiffness, compliance;
    std::size_t size() const { return vertex.size(); }
  } attachments;
};

constexpr std::uint32_t kNoPin = 0xffffffffu;

// Loads or generates the mesh, applies the transform, resolves pins and extracts constraints.
ClothModel build_cloth(const Scene& scene);

// p' = R(rotate_deg) * (scale * p) + translate, R = Rz * Ry * Rx.
void apply_transform(const Transform& transform, std::vector<glm::dvec3>& positions);

}  // namespace drape
