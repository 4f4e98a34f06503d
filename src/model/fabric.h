// The fabric of a cloth as built: vertex masses from the area density, XPBD compliances from the
// material and the rest geometry, long-range attachments to pins, the vertex-triangle adjacency.
#pragma once

#include <vector>

#include <glm/vec3.hpp>

#include "drape/scene.h"
#include "model/cloth.h"

namespace drape {

// Fills the fabric fields of `cloth` (whose mesh, pins and topology are built) from the rest
// positions `rest` (the same vertices and triangles as cloth.mesh).
void apply_fabric(const ClothDesc& desc, const std::vector<glm::dvec3>& rest, ClothModel& cloth);

// Area of each triangle at rest, 0 for degenerate ones.
std::vector<double> triangle_areas(const std::vector<glm::dvec3>& rest,
                                   const std::vector<glm::uvec3>& triangles);

}  // namespace drape
