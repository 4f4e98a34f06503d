// Cache frames: PLY and OBJ encodings and their file names (written whole with
// write_file_atomically, io/atomic_file.h).
#pragma once

#include <string>
#include <vector>

#include <glm/vec3.hpp>

namespace drape {

// DIR/NAME.%04d.EXT
std::string frame_path(const std::string& dir, const std::string& name, int frame,
                       const std::string& ext);

// Binary little-endian PLY: float32 x y z per vertex, then `list uchar int vertex_indices`.
std::string encode_ply(const std::vector<glm::dvec3>& positions,
                       const std::vector<glm::uvec3>& triangles);
// OBJ with 9 significant digits, 1-based faces.
std::string encode_obj(const std::vector<glm::dvec3>& positions,
                       const std::vector<glm::uvec3>& triangles);

}  // namespace drape
