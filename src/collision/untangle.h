// Recovery from self-intersections (README, "Self-collision"): a contact keeps the side its pair
// had at the start of the substep, so a pair that ends a substep crossed would be held crossed.
// Where the cloth intersects itself at the start of a substep, each edge that passes through a
// triangle has one end on the wrong side: the end nearer the triangle's plane (the shallower
// one). Its contact with that triangle takes the other end's side, and pushes it back through;
// the other contacts among the corners of intersecting triangles are released for the substep.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

#include "collision/self_intersection.h"

namespace drape {

// Per vertex (offsets into the entries, vertex_count + 1 of them): the triangles it must end up
// on one side of, as their corners, and the side as +1 or -1 along the triangle's normal
// (b - a) x (c - a); `crossed`: 1 for each corner of an intersecting triangle.
struct CrossingSides {
  std::vector<std::uint32_t> offsets;
  std::vector<glm::uvec3> triangles;
  std::vector<float> sides;
  std::vector<std::uint8_t> crossed;

  bool empty() const { return triangles.empty() && crossed.empty(); }
};

// From the intersections found at `positions`; empty when there are none.
CrossingSides crossing_sides(const SelfIntersections& found,
                             const std::vector<glm::dvec3>& positions,
                             const std::vector<glm::uvec3>& triangles);

}  // namespace drape
