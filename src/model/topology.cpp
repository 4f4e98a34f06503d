#include "model/topology.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <glm/geometric.hpp>

namespace drape {

bool is_degenerate(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c) {
  const double longest2 =
      std::max({glm::dot(b - a, b - a), glm::dot(c - b, c - b), glm::dot(a - c, a - c)});
  const double twice_area = glm::length(glm::cross(b - a, c - a));
  // Relative test: a sliver whose height is 1e-9 of its longest edge has no usable normal.
  return !(twice_area > 1e-9 * longest2);
}

double dihedral_angle(const glm::dvec3& p1, const glm::dvec3& p2, const glm::dvec3& p3,
                      const glm::dvec3& p4) {
  const glm::dvec3 n1 = glm::normalize(glm::cross(p2 - p1, p3 - p1));
  const glm::dvec3 n2 = glm::normalize(glm::cross(p2 - p1, p4 - p1));
  return std::acos(std::clamp(glm::dot(n1, n2), -1.0, 1.0));
}

namespace {

struct EdgeRecord {
  std::uint32_t v0, v1;
  std::uint32_t wings[2];
  std::uint32_t triangles = 0;  // non-degenerate triangles sharing the edge
};

std::uint64_t edge_key(std::uint32_t a, std::uint32_t b) {
  return (static_cast<std::uint64_t>(std::min(a, b)) << 32) | std::max(a, b);
}

}  // namespace

Topology build_topology(const std::vector<glm::dvec3>& positions,
                        const std::vector<glm::uvec3>& triangles) {
  Topology topo;
  std::vector<EdgeRecord> edges;
  edges.reserve(triangles.size() * 3 / 2 + 16);
  std::unordered_map<std::uint64_t, std::uint32_t> edge_ids;
  edge_ids.reserve(triangles.size() * 3 / 2 + 16);

  for (const glm::uvec3& t : triangles) {
    const std::uint32_t v[3] = {t.x, t.y, t.z};
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2] ||
        is_degenerate(positions[v[0]], positions[v[1]], positions[v[2]])) {
      ++topo.degenerate_triangles;
      continue;
    }
    for (int i = 0; i < 3; ++i) {
      const std::uint32_t a = v[i], b = v[(i + 1) % 3], opposite = v[(i + 2) % 3];
      auto [it, inserted] =
          edge_ids.emplace(edge_key(a, b), static_cast<std::uint32_t>(edges.size()));
      if (inserted) edges.push_back({std::min(a, b), std::max(a, b), {0, 0}, 0});
      EdgeRecord& e = edges[it->second];
      if (e.triangles < 2) e.wings[e.triangles] = opposite;
      ++e.triangles;
    }
  }

  const std::size_t n = edges.size();
  topo.edge_v0.reserve(n);
  topo.edge_v1.reserve(n);
  topo.edge_rest_length.reserve(n);
  for (const EdgeRecord& e : edges) {
    topo.edge_v0.push_back(e.v0);
    topo.edge_v1.push_back(e.v1);
    topo.edge_rest_length.push_back(glm::length(positions[e.v0] - positions[e.v1]));
    if (e.triangles == 1) {
      ++topo.boundary_edges;
      continue;
    }
    if (e.triangles > 2 || e.wings[0] == e.wings[1]) {
      ++topo.nonmanifold_edges;
      continue;
    }
    const std::uint32_t p3 = std::min(e.wings[0], e.wings[1]);
    const std::uint32_t p4 = std::max(e.wings[0], e.wings[1]);
    topo.bend_v1.push_back(e.v0);
    topo.bend_v2.push_back(e.v1);
    topo.bend_v3.push_back(p3);
    topo.bend_v4.push_back(p4);
    topo.bend_rest_angle.push_back(
        dihedral_angle(positions[e.v0], positions[e.v1], positions[p3], positions[p4]));
    topo.shear_rest_length.push_back(glm::length(positions[p3] - positions[p4]));
  }
  return topo;
}

double mean_rest_edge_length(const Topology& topology) {
  double sum = 0.0;
  for (double l : topology.edge_rest_length) sum += l;
  return topology.edge_count() > 0 ? sum / static_cast<double>(topology.edge_count()) : 0.0;
}

}  // namespace drape
