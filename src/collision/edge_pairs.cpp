#include "collision/edge_pairs.h"

#include <algorithm>

namespace drape {

bool edge_pairs_near(EdgePairs mode, double thickness, const Topology& topology) {
  if (mode != EdgePairs::automatic) return mode == EdgePairs::near;
  const auto& lengths = topology.edge_rest_length;
  return std::all_of(lengths.begin(), lengths.end(),
                     [&](double l) { return l < kNearEdgesBelow * thickness; });
}

const char* edge_pairs_name(EdgePairs mode) {
  switch (mode) {
    case EdgePairs::all:
      return "all";
    case EdgePairs::near:
      return "near";
    case EdgePairs::automatic:
      break;
  }
  return "auto";
}

}  // namespace drape
