// Preprocessing (spec section 1): constraints and their rest values, extracted from triangles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

namespace drape {

// Extraction order (design doc, "Conventions"): triangles in file order, edges (i, i+1 mod 3)
// of each triangle, first occurrence of each undirected edge (min, max) kept. A bend/shear pair
// exists for each edge shared by exactly two non-degenerate triangles, in edge order, with the
// shared edge stored (min, max) and the wing vertices sorted (min, max).
struct Topology {
  std::vector<std::uint32_t> edge_v0, edge_v1;
  std::vector<double> edge_rest_length;

  std::vector<std::uint32_t> bend_v1, bend_v2;  // shared edge
  std::vector<std::uint32_t> bend_v3, bend_v4;  // wing vertices, also the shear pair
  std::vector<double> bend_rest_angle;          // arccos(n1 . n2), spec 1.3
  std::vector<double> shear_rest_length;        // |p3 - p4|

  // Triangles with a repeated vertex or (near-)zero area: they make no edge and no pair.
  std::size_t degenerate_triangles = 0;
  // Edges of more than two triangles (or two triangles with the same wing): no bend/shear pair.
  std::size_t nonmanifold_edges = 0;
  std::size_t boundary_edges = 0;

  std::size_t edge_count() const { return edge_v0.size(); }
  std::size_t bend_count() const { return bend_v1.size(); }
};

Topology build_topology(const std::vector<glm::dvec3>& positions,
                        const std::vector<glm::uvec3>& triangles);

// The mean of the edges' rest lengths; 0 without edges.
double mean_rest_edge_length(const Topology& topology);

// True when a triangle makes no constraint: a repeated vertex, or an area that is zero relative
// to its longest edge.
bool is_degenerate(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c);

// Rest dihedral angle of the spec: arccos(clip(n1 . n2)) with n1 = (p2-p1) x (p3-p1) and
// n2 = (p2-p1) x (p4-p1), both normalised. A flat pair therefore rests at pi.
double dihedral_angle(const glm::dvec3& p1, const glm::dvec3& p2, const glm::dvec3& p3,
                      const glm::dvec3& p4);

}  // namespace drape
