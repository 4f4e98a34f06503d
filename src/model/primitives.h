// Generated meshes: the cloth grid of scene files, and closed shapes for colliders and tests.
#pragma once

#include "drape/mesh.h"
#include "drape/scene.h"

namespace drape {

TriMesh make_grid(const GridDesc& grid);

// A UV sphere with outward-wound triangles: `rings` bands from pole to pole, `segments` around.
TriMesh make_uv_sphere(const glm::dvec3& centre, double radius, int rings, int segments);

// A closed axis-aligned box of 12 outward-wound triangles.
TriMesh make_box(const glm::dvec3& lo, const glm::dvec3& hi);

}  // namespace drape
