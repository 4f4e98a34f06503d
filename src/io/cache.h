// Cache writers: one file per frame, written whole under a temporary name and then renamed.
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

// Writes to a temporary file beside `path`, then renames it. Throws RuntimeError on failure and
// leaves nothing behind.
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace drape
