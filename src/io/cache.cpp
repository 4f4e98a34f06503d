#include "io/cache.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <glm/geometric.hpp>

namespace drape {

std::string frame_path(const std::string& dir, const std::string& name, int frame,
                       const std::string& ext) {
  char number[16];
  std::snprintf(number, sizeof number, "%04d", frame);
  return (dir.empty() ? "" : dir + "/") + name + "." + number + "." + ext;
}

namespace {

template <class T>
void append_raw(std::string& out, const T& value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // x86-64 and aarch64 are little-endian, as PLY asks
  out.append(bytes, sizeof(T));
}

}  // namespace

std::vector<glm::dvec3> vertex_normals(const std::vector<glm::dvec3>& x,
                                       const std::vector<glm::uvec3>& triangles) {
  std::vector<glm::dvec3> n(x.size(), glm::dvec3(0.0));
  for (const glm::uvec3& t : triangles) {
    const glm::dvec3 area = glm::cross(x[t.y] - x[t.x], x[t.z] - x[t.x]);  // area-weighted
    n[t.x] += area;
    n[t.y] += area;
    n[t.z] += area;
  }
  for (glm::dvec3& v : n) {
    const double len = glm::length(v);
    v = len > 0.0 ? v / len : glm::dvec3(0.0, 1.0, 0.0);
  }
  return n;
}

std::string encode_ply(const std::vector<glm::dvec3>& positions, const TriMesh& mesh,
                       bool normals) {
  const std::vector<glm::dvec3> n =
      normals ? vertex_normals(positions, mesh.triangles) : std::vector<glm::dvec3>();
  const bool vertex_uvs = !mesh.uvs.empty() && !mesh.face_varying_uvs();
  const bool corner_uvs = mesh.face_varying_uvs();
  std::string out = "ply\nformat binary_little_endian 1.0\ncomment written by drape\n";
  out += "element vertex " + std::to_string(positions.size()) + "\n";
  out += "property float x\nproperty float y\nproperty float z\n";
  if (normals) out += "property float nx\nproperty float ny\nproperty float nz\n";
  if (vertex_uvs) out += "property float s\nproperty float t\n";
  out += "element face " + std::to_string(mesh.triangles.size()) + "\n";
  out += "property list uchar int vertex_indices\n";
  if (corner_uvs) out += "property list uchar float texcoord\n";
  out += "end_header\n";
  out.reserve(out.size() + positions.size() * (vertex_uvs ? 20 : 12) +
              mesh.triangles.size() * (corner_uvs ? 38 : 13));
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const glm::dvec3& p = positions[i];
    append_raw(out, static_cast<float>(p.x));
    append_raw(out, static_cast<float>(p.y));
    append_raw(out, static_cast<float>(p.z));
    if (normals) {
      for (int c = 0; c < 3; ++c) append_raw(out, static_cast<float>(n[i][c]));
    }
    if (vertex_uvs) {
      append_raw(out, static_cast<float>(mesh.uvs[i].x));
      append_raw(out, static_cast<float>(mesh.uvs[i].y));
    }
  }
  for (std::size_t k = 0; k < mesh.triangles.size(); ++k) {
    const glm::uvec3& t = mesh.triangles[k];
    append_raw(out, std::uint8_t{3});
    append_raw(out, static_cast<std::int32_t>(t.x));
    append_raw(out, static_cast<std::int32_t>(t.y));
    append_raw(out, static_cast<std::int32_t>(t.z));
    if (corner_uvs) {
      append_raw(out, std::uint8_t{6});
      for (int c = 0; c < 3; ++c) {
        const glm::dvec2& uv = mesh.uvs[mesh.uv_triangles[k][c]];
        append_raw(out, static_cast<float>(uv.x));
        append_raw(out, static_cast<float>(uv.y));
      }
    }
  }
  return out;
}

std::string encode_obj(const std::vector<glm::dvec3>& positions, const TriMesh& mesh,
                       bool normals) {
  std::string out = "# written by drape\n";
  out.reserve(positions.size() * 48 + mesh.uvs.size() * 32 + mesh.triangles.size() * 40);
  char buf[32];
  auto append_number = [&](double x) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, 9);
    out.append(buf, end);
  };
  // "KEY x y ..." with 9 significant digits.
  const auto append_line = [&](const char* key, const auto& values) {
    out += key;
    for (glm::length_t c = 0; c < values.length(); ++c) {
      out += ' ';
      append_number(values[c]);
    }
    out += '\n';
  };
  for (const glm::dvec3& p : positions) append_line("v", p);
  if (normals) {
    for (const glm::dvec3& n : vertex_normals(positions, mesh.triangles)) append_line("vn", n);
  }
  for (const glm::dvec2& uv : mesh.uvs) append_line("vt", uv);
  const bool uvs = !mesh.uvs.empty();
  const bool grouped = !mesh.triangle_group_statements.empty();
  std::uint32_t statement = 0xffffffffu;
  for (std::size_t k = 0; k < mesh.triangles.size(); ++k) {
    if (grouped && mesh.triangle_group_statements[k] != statement) {
      statement = mesh.triangle_group_statements[k];
      const std::string& text = mesh.group_statements[statement];
      out += text.empty() ? "g\n" : "g " + text + '\n';
    }
    // Per-vertex UVs share the vertex's index.
    const glm::uvec3 t = mesh.triangles[k] + 1u;
    const glm::uvec3 vt = (mesh.face_varying_uvs() ? mesh.uv_triangles[k] : mesh.triangles[k]) + 1u;
    out += 'f';
    for (int c = 0; c < 3; ++c) {
      out += ' ' + std::to_string(t[c]);
      if (uvs || normals) out += '/';
      if (uvs) out += std::to_string(vt[c]);
      if (normals) out += '/' + std::to_string(t[c]);
    }
    out += '\n';
  }
  return out;
}

}  // namespace drape
