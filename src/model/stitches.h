// Sewing (design doc, "Keys added for garments"): the stitches of cloth.stitches, checked
// against the cloth, as the solvers take them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "drape/scene.h"
#include "drape/stats.h"
#include "model/topology.h"

namespace drape {

// Stitch k sews vertex v[k] to the point (1 - t[k]) a[k] + t[k] b[k]; `length` is their distance
// in the start positions, from which a stitch shortens to zero over the sew time.
struct StitchSet {
  std::vector<std::uint32_t> v, a, b;
  std::vector<double> t, length;

  std::size_t size() const { return v.size(); }
  glm::dvec3 target(std::size_t k, const std::vector<glm::dvec3>& p) const {
    return (1.0 - t[k]) * p[a[k]] + t[k] * p[b[k]];
  }
};

// For each vertex, the vertices sewing brings against it, sorted: the two sides of a seam are
// neighbours, like the corners of one triangle. Joined are: the ends of a stitch (v to a and b,
// and back); two vertices sewn to a common vertex (where three panels meet, or a pleat's layers);
// and, for a stitch whose ends are at most two edges apart on the mesh (a tuck: the fabric between
// them folds flat), every vertex of a triangle at one end to every vertex of a triangle at the
// other.
struct SeamNeighbours {
  std::vector<std::uint32_t> offsets, vertices;  // vertex u's: vertices[offsets[u], offsets[u+1])

  bool empty() const { return vertices.empty(); }
  bool joined(std::uint32_t u, std::uint32_t w) const;
};
SeamNeighbours seam_neighbours(const StitchSet& stitches, const std::vector<glm::uvec3>& triangles,
                               std::size_t vertex_count);

// For each vertex, the vertices within `reach` of it along the sewn rest surface (itself
// included), sorted: paths over the rest edges (their rest lengths) that cross a stitch at no
// cost (a stitched vertex is one point with both ends of its edge), and an edge at a stitched
// vertex counts at most `reach`. The two sides of a seam are as near as sewing makes them, and
// the first ring of fabric around a seam is near it at any mesh resolution (nothing resists the
// panels folding flat onto each other there), while two layers of one panel that sewing gathers
// or folds onto each other stay as far apart as the fabric between them.
SeamNeighbours sewn_surface_neighbours(const StitchSet& stitches, const Topology& topology,
                                       std::size_t vertex_count, double reach);

// Positions with every stitch closed: Gauss-Seidel passes that move the stitched vertices and
// their edges towards each other (pinned vertices stay), starting from p.
std::vector<glm::dvec3> sewn_positions(const StitchSet& stitches, std::vector<glm::dvec3> p,
                                       const std::vector<double>& inv_mass);

// The `stitch v a b t` lines of a text file (an OBJ such as a sewing pattern's), 0-based indices.
// Throws InputError naming the file and line for a malformed line, or when there is none.
std::vector<StitchDesc> read_stitch_lines(const std::string& path);

// The scene's stitches against a mesh of `positions`: throws InputError naming the stitch
// (its entry or file line) for an index out of range, t outside [0, 1], or a vertex sewn to an
// edge it is on. Stitches whose three vertices are all pinned are dropped: they cannot move.
StitchSet build_stitches(const ClothDesc& cloth, const std::vector<glm::dvec3>& positions,
                         const std::vector<double>& inv_mass);

// Per-frame sewing metric: the largest and the mean distance between a stitched vertex and its
// point at positions p; both 0 without stitches.
StitchGapStats stitch_gap(const StitchSet& stitches, const std::vector<glm::dvec3>& p);

}  // namespace drape
