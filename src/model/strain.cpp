#include "model/strain.h"

#include <cmath>

#include <glm/geometric.hpp>

namespace drape {

StrainStats edge_strain(const Topology& topology, const std::vector<glm::dvec3>& positions) {
  StrainStats s;
  std::size_t counted = 0;
  double sum = 0.0;
  for (std::size_t i = 0; i < topology.edge_count(); ++i) {
    const double rest = topology.edge_rest_length[i];
    if (!(rest > 0.0)) continue;
    const double length =
        glm::length(positions[topology.edge_v0[i]] - positions[topology.edge_v1[i]]);
    const double strain = std::abs(length - rest) / rest;
    s.max = std::max(s.max, strain);
    sum += strain;
    ++counted;
  }
  s.mean = counted > 0 ? sum / static_cast<double>(counted) : 0.0;
  return s;
}

}  // namespace drape
