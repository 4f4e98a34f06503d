// Triangle meshes as read from OBJ and PLY files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

namespace drape {

// A named set of vertices: an OBJ `g` group, or the vertices a PLY `pin` property marks.
struct VertexGroup {
  std::string name;
  std::vector<std::uint32_t> vertices;  // sorted, unique
};

struct TriMesh {
  std::vector<glm::dvec3> positions;  // in file order
  std::vector<glm::uvec3> triangles;  // in file order; polygons fan-triangulated in place
  std::vector<VertexGroup> groups;    // in order of first appearance
  std::size_t fan_triangulated_polygons = 0;

  // Texture coordinates, when the file has them: OBJ `vt`; PLY vertex properties s/t, u/v or
  // texture_u/texture_v, or a face list `texcoord`. Per vertex (uvs.size() == positions.size(),
  // uv_triangles empty) or per face corner: uv_triangles[i] indexes uvs for the corners of
  // triangles[i] (OBJ `f v/vt`), split into triangles like the faces.
  std::vector<glm::dvec2> uvs;
  std::vector<glm::uvec3> uv_triangles;
  bool face_varying_uvs() const { return !uv_triangles.empty(); }
  bool uvs_dropped = false;  // some faces had texture coordinates and others none: none kept

  // OBJ `g` statements as written (e.g. "sleeve left"), and for each triangle the statement in
  // force where its face was read; both empty when the file has none. Writers put them back.
  std::vector<std::string> group_statements;
  std::vector<std::uint32_t> triangle_group_statements;

  // OBJ statements drape does not use, by kind in order of first appearance, with their counts
  // (e.g. {"stitch", 851}: sewing lines, or an exporter's "File" header lines).
  std::vector<std::pair<std::string, std::size_t>> skipped_statements;
  std::size_t skipped(const std::string& kind) const;

  const VertexGroup* find_group(const std::string& name) const;
};

// Loads an OBJ or PLY file, chosen by extension (case-insensitive). Throws InputError naming the
// file (and line, for text formats) on anything malformed: missing or empty files, bad numbers,
// NaN or infinite coordinates, indices out of range, faces with fewer than three vertices.
TriMesh load_mesh(const std::string& path);
TriMesh load_obj(const std::string& path);
TriMesh load_ply(const std::string& path);

// Parses from memory; `name` is used in error messages.
TriMesh parse_obj(const std::string& text, const std::string& name);
TriMesh parse_ply(const std::string& bytes, const std::string& name);

}  // namespace drape
