// Shared assembly step of the OBJ and PLY readers: fan triangulation and vertex groups.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "drape/mesh.h"

namespace drape {

class MeshBuilder {
 public:
  void reserve(std::size_t vertices, std::size_t triangles);
  void add_vertex(const glm::dvec3& p) { m_mesh.positions.push_back(p); }
  void add_uv(const glm::dvec2& uv) { m_mesh.uvs.push_back(uv); }
  // A polygon of n >= 3 vertices becomes the fan (0, i, i+1); its vertices join `groups`.
  // `uv_polygon`, when not empty, holds the polygon's texture coordinate indices, split alike.
  void add_polygon(const std::vector<std::uint32_t>& polygon,
                   const std::vector<std::size_t>& groups,
                   const std::vector<std::uint32_t>& uv_polygon = {});
  // A statement of a kind the reader skips, counted by kind.
  void skip_statement(const std::string& kind);
  // An OBJ `g` statement: the faces that follow belong to it.
  void begin_group_statement(const std::string& text);
  std::size_t group_index(const std::string& name);
  // Adds a vertex to a group directly (PLY `pin`).
  void add_to_group(std::size_t group, std::uint32_t vertex);
  const TriMesh& mesh() const { return m_mesh; }
  TriMesh finish(const std::string& name);

 private:
  TriMesh m_mesh;
  std::unordered_map<std::string, std::size_t> m_group_ids;
  bool m_in_group_statement = false;
  bool m_mixed_uvs = false;
};

}  // namespace drape
