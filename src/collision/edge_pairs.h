// Where self-collision gathers edge-edge contacts (EdgePairs, README "Self-collision").
//
// Two triangles that share no vertex cross only where an edge of one passes through the other,
// and the nearer end of that edge is then within half the edge's length of the triangle. So while
// every rest edge is shorter than kNearEdgesBelow x thickness, a point must sink at least a
// quarter of the thickness into a layer, against its point-triangle contacts, before an edge of
// its can cross that layer: between layers that lie on each other, point-triangle contacts are
// enough. They are not where the cloth bends sharply onto itself (at the crease of a fold a point
// can sit beside a triangle, projecting outside it, while their edges cross), so edge-edge
// contacts are kept between groups whose vertices lie within kEdgeReach search radii of each other
// in the rest shape: the pairs across the crease of a fold, which lie up to the search radius
// (1.5 x thickness) plus the crease's arc (about pi / 2 x thickness) apart at rest.
#pragma once

#include "drape/scene.h"
#include "model/topology.h"

namespace drape {

constexpr double kNearEdgesBelow = 1.5;
constexpr float kEdgeReach = 2.0f;

// Whether edge-edge contacts are gathered only between parts near each other in the rest shape:
// `near`, or `automatic` with every rest edge shorter than kNearEdgesBelow x thickness.
bool edge_pairs_near(EdgePairs mode, double thickness, const Topology& topology);

// "auto", "all" or "near".
const char* edge_pairs_name(EdgePairs mode);

}  // namespace drape
