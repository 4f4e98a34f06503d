// Wavefront OBJ: `v`, `vt` and `f` statements (texture coordinates kept per face corner), `g`
// groups; other standard statements (vn, o, s, usemtl, ...) carry nothing a cloth needs and are
// skipped, and other words (`stitch`, `seam`, an exporter's header lines) are skipped and counted
// in TriMesh::skipped_statements, for a warning.
#include <cmath>
#include <cstdio>
#include <string_view>
#include <unordered_map>

#include "drape/error.h"
#include "drape/mesh.h"
#include "io/mesh_build.h"
#include "io/text_scan.h"

namespace drape {
namespace {

class ObjParser {
 public:
  explicit ObjParser(const std::string& name) : m_name(name) {}

  TriMesh parse(std::string_view text) {
    std::size_t line_no = 0;
    while (!text.empty()) {
      std::size_t end = text.find('\n');
      std::string_view line = text.substr(0, end);
      text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
      ++line_no;
      parse_line(line, line_no);
    }
    if (m_builder.mesh().triangles.empty()) throw InputError(m_name + ": no faces");
    TriMesh mesh = m_builder.finish(m_name);
    if (mesh.uv_triangles.empty()) mesh.uvs.clear();  // `vt` lines no face uses
    return mesh;
  }

 private:
  [[noreturn]] void fail(std::size_t line_no, const std::string& what) const {
    throw InputError(m_name + ":" + std::to_string(line_no) + ": " + what);
  }

  void parse_line(std::string_view line, std::size_t line_no) {
    std::string_view keyword = next_token(line);
    if (keyword == "v") {
      parse_vertex(line, line_no);
    } else if (keyword == "f") {
      parse_face(line, line_no);
    } else if (keyword == "vt") {
      parse_uv(line, line_no);
    } else if (keyword == "g") {
      skip_blanks(line);
      std::string_view text = line;
      while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
      }
      m_builder.begin_group_statement(std::string(text));
      m_current_groups.clear();
      for (std::string_view name = next_token(line); !name.empty(); name = next_token(line)) {
        m_current_groups.push_back(m_builder.group_index(std::string(name)));
      }
    } else if (!keyword.empty() && keyword.front() != '#' && !is_standard_statement(keyword)) {
      // A word drape does not know (an exporter's header line, `stitch`, `seam`) is counted and
      // skipped; anything else means the file is not OBJ text at all.
      if (!is_word(keyword)) {
        fail(line_no, "unknown statement '" + std::string(keyword.substr(0, 32)) + "'");
      }
      m_builder.skip_statement(std::string(keyword.substr(0, 32)));
    }
  }

  // Standard OBJ statements that carry nothing a cloth needs.
  static bool is_standard_statement(std::string_view k) {
    for (const char* known : {"vn", "vp", "o", "s", "l", "p", "usemtl", "mtllib", "cstype", "deg",
                              "curv", "surf", "parm", "end", "mg"}) {
      if (k == known) return true;
    }
    return false;
  }

  static bool is_word(std::string_view k) {
    const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    if (!letter(k.front())) return false;
    for (char c : k) {
      if (!letter(c) && !(c >= '0' && c <= '9') && c != '_' && c != '-' && c != ':') return false;
    }
    return true;
  }

  void parse_vertex(std::string_view rest, std::size_t line_no) {
    double xyz[3];
    for (double& c : xyz) {
      if (!parse_double(next_token(rest), c)) fail(line_no, "bad vertex coordinate");
      if (!std::isfinite(c)) fail(line_no, "vertex coordinate is not finite");
    }
    m_builder.add_vertex({xyz[0], xyz[1], xyz[2]});
  }

  // `vt u v [w]`: w is dropped.
  void parse_uv(std::string_view rest, std::size_t line_no) {
    double uv[2];
    for (double& c : uv) {
      if (!parse_double(next_token(rest), c)) fail(line_no, "bad texture coordinate");
      if (!std::isfinite(c)) fail(line_no, "texture coordinate is not finite");
    }
    m_builder.add_uv({uv[0], uv[1]});
  }

  // OBJ indices are 1-based; negative ones count back from the last one read so far.
  // `what` names the index ("" for a vertex, "texture coordinate "), `unit` what it counts.
  std::uint32_t resolve(std::string_view token, std::int64_t count, const std::string& what,
                        const char* unit, std::size_t line_no) const {
    std::int64_t index = 0;
    if (!parse_int(token, index) || index == 0) {
      fail(line_no, "bad face " + what + "index '" + std::string(token.substr(0, 32)) + "'");
    }
    const std::int64_t resolved = index > 0 ? index - 1 : count + index;
    if (resolved < 0 || resolved >= count) {
      fail(line_no, "face " + what + "index " + std::to_string(index) + " is out of range (" +
                        std::to_string(count) + " " + unit + " so far)");
    }
    return static_cast<std::uint32_t>(resolved);
  }

  // `f v v v ...`, each corner `v`, `v/vt`, `v//vn` or `v/vt/vn`.
  void parse_face(std::string_view rest, std::size_t line_no) {
    m_face.clear();
    m_uv_face.clear();
    const auto vertices = static_cast<std::int64_t>(m_builder.mesh().positions.size());
    const auto uvs = static_cast<std::int64_t>(m_builder.mesh().uvs.size());
    for (std::string_view token = next_token(rest); !token.empty(); token = next_token(rest)) {
      const std::size_t slash = token.find('/');
      if (token.substr(0, slash).empty()) {
        fail(line_no, "bad face index '" + std::string(token.substr(0, 32)) + "'");
      }
      m_face.push_back(resolve(token.substr(0, slash), vertices, "", "vertices", line_no));
      std::string_view vt = slash == std::string_view::npos ? "" : token.substr(slash + 1);
      vt = vt.substr(0, vt.find('/'));
      if (!vt.empty()) {
        m_uv_face.push_back(resolve(vt, uvs, "texture coordinate ", "coordinates", line_no));
      }
    }
    if (m_face.size() < 3) fail(line_no, "face has fewer than 3 vertices");
    if (!m_uv_face.empty() && m_uv_face.size() != m_face.size()) {
      fail(line_no, "face has texture coordinates on some corners only");
    }
    m_builder.add_polygon(m_face, m_current_groups, m_uv_face);
  }

  std::string m_name;
  MeshBuilder m_builder;
  std::vector<std::size_t> m_current_groups;
  std::vector<std::uint32_t> m_face, m_uv_face;
};

}  // namespace

TriMesh parse_obj(const std::string& text, const std::string& name) {
  return ObjParser(name).parse(text);
}

TriMesh load_obj(const std::string& path) {
  return parse_obj(read_file(path), path);
}

}  // namespace drape
