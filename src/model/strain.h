// Edge strain of a cloth at some positions, for the per-frame stats.
#pragma once

#include <vector>

#include <glm/vec3.hpp>

#include "drape/stats.h"
#include "model/topology.h"

namespace drape {

StrainStats edge_strain(const Topology& topology, const std::vector<glm::dvec3>& positions);

}  // namespace drape
