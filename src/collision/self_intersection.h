// The self-intersection metric (design doc, "Quality metrics"): how many pairs of triangles that
// share no vertex intersect. Independent of the solvers' self-collision: its own broad phase
// (triangle bounding boxes binned into a grid of every cell they overlap) and a triangle-triangle
// test with exact signs (coordinates snapped to a grid of 2^-31 of the mesh's extent, orientations
// in 128-bit integers).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <glm/vec3.hpp>

#include "model/stitches.h"

namespace drape {

// Counts unordered pairs of triangles with no common vertex whose closed surfaces meet (touching
// counts; coplanar pairs count when they overlap). Triangles with a repeated vertex or no area
// (collinear corners) take no part.
// threads: host threads to count on, 0 = all cores. `seams`: vertices joined by a stitch count
// as common, so the two sides of a closed seam do not count as intersecting.
std::uint64_t count_self_intersections(const std::vector<glm::dvec3>& positions,
                                       const std::vector<glm::uvec3>& triangles, int threads = 0,
                                       const SeamNeighbours* seams = nullptr);

// An edge u-w of one triangle of an intersecting pair that passes through (or touches) the other
// triangle, by index.
struct Piercing {
  std::uint32_t u, w, triangle;
};

// The pairs the count above counts (triangle indices, each pair once) and their piercing edges,
// in an order that does not depend on the thread count.
struct SelfIntersections {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  std::vector<Piercing> piercings;
};
SelfIntersections find_self_intersections(const std::vector<glm::dvec3>& positions,
                                          const std::vector<glm::uvec3>& triangles, int threads = 0,
                                          const SeamNeighbours* seams = nullptr);

// Whether two triangles meet (the test above, for one pair).
bool triangles_intersect(const glm::dvec3 a[3], const glm::dvec3 b[3]);

}  // namespace drape
