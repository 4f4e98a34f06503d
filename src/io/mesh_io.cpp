#include <algorithm>
#include <cctype>

#include "drape/error.h"
#include "drape/mesh.h"
#include "io/mesh_build.h"

namespace drape {

const VertexGroup* TriMesh::find_group(const std::string& name) const {
  for (const VertexGroup& g : groups) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

std::size_t TriMesh::skipped(const std::string& kind) const {
  for (const auto& [name, count] : skipped_statements) {
    if (name == kind) return count;
  }
  return 0;
}

void MeshBuilder::reserve(std::size_t vertices, std::size_t triangles) {
  m_mesh.positions.reserve(vertices);
  m_mesh.triangles.reserve(triangles);
}

void MeshBuilder::add_polygon(const std::vector<std::uint32_t>& polygon,
                              const std::vector<std::size_t>& groups,
                              const std::vector<std::uint32_t>& uv_polygon) {
  // A face with texture coordinates after one without (or the other way round): the mesh has
  // none that cover it, and keeps none.
  const bool with_uvs = !uv_polygon.empty();
  if (!m_mesh.triangles.empty() && with_uvs != !m_mesh.uv_triangles.empty()) m_mixed_uvs = true;
  for (std::size_t i = 1; i + 1 < polygon.size(); ++i) {
    m_mesh.triangles.emplace_back(polygon[0], polygon[i], polygon[i + 1]);
    if (with_uvs) {
      m_mesh.uv_triangles.emplace_back(uv_polygon[0], uv_polygon[i], uv_polygon[i + 1]);
    }
    if (m_in_group_statement) {
      m_mesh.triangle_group_statements.push_back(
          static_cast<std::uint32_t>(m_mesh.group_statements.size() - 1));
    }
  }
  if (polygon.size() > 3) ++m_mesh.fan_triangulated_polygons;
  for (std::size_t g : groups) {
    std::vector<std::uint32_t>& members = m_mesh.groups[g].vertices;
    members.insert(members.end(), polygon.begin(), polygon.end());
  }
}

void MeshBuilder::skip_statement(const std::string& kind) {
  auto& skipped = m_mesh.skipped_statements;
  const auto it = std::find_if(skipped.begin(), skipped.end(),
                               [&](const auto& entry) { return entry.first == kind; });
  if (it != skipped.end()) {
    ++it->second;
  } else {
    skipped.emplace_back(kind, 1);
  }
}

void MeshBuilder::begin_group_statement(const std::string& text) {
  // Faces before the first `g` belong to none: give them an empty statement.
  if (!m_in_group_statement && !m_mesh.triangles.empty()) {
    m_mesh.group_statements.emplace_back();
    m_mesh.triangle_group_statements.assign(m_mesh.triangles.size(), 0);
  }
  m_in_group_statement = true;
  m_mesh.group_statements.push_back(text);
}

std::size_t MeshBuilder::group_index(const std::string& name) {
  auto [it, inserted] = m_group_ids.emplace(name, m_mesh.groups.size());
  if (inserted) m_mesh.groups.push_back({name, {}});
  return it->second;
}

void MeshBuilder::add_to_group(std::size_t group, std::uint32_t vertex) {
  m_mesh.groups[group].vertices.push_back(vertex);
}

TriMesh MeshBuilder::finish(const std::string& name) {
  const std::size_t n = m_mesh.positions.size();
  for (const glm::uvec3& t : m_mesh.triangles) {
    if (t.x >= n || t.y >= n || t.z >= n) {
      throw InputError(name + ": a face references a vertex past the last one (" +
                       std::to_string(n) + " vertices)");
    }
  }
  if (m_mixed_uvs) {
    m_mesh.uvs.clear();
    m_mesh.uv_triangles.clear();
    m_mesh.uvs_dropped = true;
  }
  for (VertexGroup& g : m_mesh.groups) {
    std::sort(g.vertices.begin(), g.vertices.end());
    g.vertices.erase(std::unique(g.vertices.begin(), g.vertices.end()), g.vertices.end());
  }
  return std::move(m_mesh);
}

static std::string lower_extension(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  const std::size_t slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

TriMesh load_mesh(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == "obj") return load_obj(path);
  if (ext == "ply") return load_ply(path);
  throw InputError(path + ": unknown mesh format (expected .obj or .ply)");
}

}  // namespace drape
