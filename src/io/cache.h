// Cache frames: PLY and OBJ encodings and their file names (written whole with
// write_file_atomically, io/atomic_file.h).
#pragma once

#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "drape/mesh.h"

namespace drape {

// DIR/NAME.%04d.EXT
std::string frame_path(const std::string& dir, const std::string& name, int frame,
                       const std::string& ext);

// A frame: `positions` on the triangles, texture coordinates and OBJ groups of `mesh` (whose own
// positions are not used).
//
// Binary little-endian PLY: float32 x y z per vertex (then s t with per-vertex UVs), then
// `list uchar int vertex_indices` per face (then `list uchar float texcoord`, u v per corner, with
// face-varying UVs, as MeshLab writes them).
// Unit normals per vertex, the area-weighted sum of its triangles' (0, 1, 0 where that is zero).
std::vector<glm::dvec3> vertex_normals(const std::vector<glm::dvec3>& positions,
                                       const std::vector<glm::uvec3>& triangles);

// With `normals`, PLY frames add float nx ny nz per vertex and OBJ frames `vn` lines (f v/vt/vn).
std::string encode_ply(const std::vector<glm::dvec3>& positions, const TriMesh& mesh,
                       bool normals = false);
// OBJ with 9 significant digits, 1-based faces; `vt` and `f v/vt` with UVs, `g` statements as read.
std::string encode_obj(const std::vector<glm::dvec3>& positions, const TriMesh& mesh,
                       bool normals = false);

}  // namespace drape
