// The self-collision broad phase of the cpu backend, for tests and tools.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <glm/vec3.hpp>

#include "model/cloth.h"
#include "solver/solver.h"

namespace drape {

struct SelfCollisionPairs {
  // (vertex, triangle): the triangle's three vertices.
  std::vector<std::pair<std::uint32_t, glm::uvec3>> point_triangle;
  // (e, f), e < f: indices of topology edges.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edge_edge;
};

// The candidate pairs the cpu solver gathers with the cloth at `positions` (its rest shape being
// cloth.mesh.positions): vertex-triangle and edge-edge pairs that share no vertex, were not within
// the search radius (1.5 x thickness) at rest, are within it at `positions`, and have a vertex
// that is not pinned (cloth.inv_mass). Each vertex's pairs come in ascending order, the same for
// any cell size and thread count.
SelfCollisionPairs find_self_collision_pairs(const ClothModel& cloth,
                                             const SelfCollisionParams& params,
                                             const std::vector<glm::dvec3>& positions, int threads);

}  // namespace drape
