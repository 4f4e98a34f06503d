// Stanford PLY, ASCII and binary little-endian. Vertex x, y, z (any numeric type), optional
// texture coordinates (s/t, u/v, texture_u/texture_v or texture_s/texture_t) and an optional `pin`
// property; faces as a list property `vertex_indices` (or `vertex_index`), optionally with a list
// `texcoord` of u, v per corner (MeshLab's face-varying form). Other elements and properties are
// read past.
#include <cmath>
#include <cstring>
#include <string_view>

#include "drape/error.h"
#include "drape/mesh.h"
#include "io/mesh_build.h"
#include "io/text_scan.h"

namespace drape {
namespace {

enum class Type { i8, u8, i16, u16, i32, u32, f32, f64 };

struct Property {
  std::string name;
  Type type = Type::f32;
  bool is_list = false;
  Type count_type = Type::u8;
};

struct Element {
  std::string name;
  std::size_t count = 0;
  std::vector<Property> properties;
};

std::size_t type_size(Type t) {
  switch (t) {
    case Type::i8:
    case Type::u8:
      return 1;
    case Type::i16:
    case Type::u16:
      return 2;
    case Type::i32:
    case Type::u32:
    case Type::f32:
      return 4;
    case Type::f64:
      return 8;
  }
  return 1;
}

bool parse_type(std::string_view s, Type& t) {
  static const std::pair<const char*, Type> names[] = {
      {"char", Type::i8},   {"int8", Type::i8},     {"uchar", Type::u8},   {"uint8", Type::u8},
      {"short", Type::i16}, {"int16", Type::i16},   {"ushort", Type::u16}, {"uint16", Type::u16},
      {"int", Type::i32},   {"int32", Type::i32},   {"uint", Type::u32},   {"uint32", Type::u32},
      {"float", Type::f32}, {"float32", Type::f32}, {"double", Type::f64}, {"float64", Type::f64}};
  for (const auto& [name, type] : names) {
    if (s == name) {
      t = type;
      return true;
    }
  }
  return false;
}

// Reads values one at a time from the body, in either encoding; every read is bounds-checked.
class BodyReader {
 public:
  BodyReader(std::string_view body, bool binary, const std::string& name, std::size_t first_line)
      : m_body(body), m_line(first_line), m_binary(binary), m_name(name) {}

  double read(Type t) { return m_binary ? read_binary(t) : read_ascii(); }

  std::size_t remaining() const { return m_body.size() - m_pos; }
  bool binary() const { return m_binary; }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(m_name + (m_binary ? "" : ":" + std::to_string(m_line)) + ": " + what);
  }

 private:
  double read_ascii() {
    while (m_pos < m_body.size() && std::isspace(static_cast<unsigned char>(m_body[m_pos]))) {
      if (m_body[m_pos] == '\n') ++m_line;
      ++m_pos;
    }
    std::size_t end = m_pos;
    while (end < m_body.size() && !std::isspace(static_cast<unsigned char>(m_body[end]))) ++end;
    if (end == m_pos) fail("file ends early (truncated?)");
    double value = 0.0;
    if (!parse_double(m_body.substr(m_pos, end - m_pos), value)) fail("bad number");
    m_pos = end;
    return value;
  }

  template <class T>
  double take() {
    T v;
    std::memcpy(&v, m_body.data() + m_pos, sizeof(T));
    m_pos += sizeof(T);
    return static_cast<double>(v);
  }

  double read_binary(Type t) {
    if (remaining() < type_size(t)) fail("file ends early (truncated?)");
    switch (t) {
      case Type::i8:
        return take<std::int8_t>();
      case Type::u8:
        return take<std::uint8_t>();
      case Type::i16:
        return take<std::int16_t>();
      case Type::u16:
        return take<std::uint16_t>();
      case Type::i32:
        return take<std::int32_t>();
      case Type::u32:
        return take<std::uint32_t>();
      case Type::f32:
        return take<float>();
      case Type::f64:
        return take<double>();
    }
    return 0.0;
  }

  std::string_view m_body;
  std::size_t m_pos = 0;
  std::size_t m_line;
  bool m_binary;
  const std::string& m_name;
};

struct Header {
  bool binary = false;
  std::vector<Element> elements;
  std::size_t body_offset = 0;
  std::size_t lines = 0;
};

Header parse_header(std::string_view bytes, const std::string& name) {
  Header h;
  std::size_t pos = 0;
  bool have_format = false;
  auto fail = [&](const std::string& what) -> void {
    throw InputError(name + ":" + std::to_string(h.lines) + ": " + what);
  };
  while (true) {
    const std::size_t end = bytes.find('\n', pos);
    if (end == std::string_view::npos) throw InputError(name + ": header has no end_header line");
    std::string_view line = bytes.substr(pos, end - pos);
    pos = end + 1;
    ++h.lines;
    std::string_view keyword = next_token(line);
    if (h.lines == 1) {
      if (keyword != "ply") throw InputError(name + ": not a PLY file (no 'ply' magic line)");
    } else if (keyword == "format") {
      std::string_view encoding = next_token(line);
      if (encoding == "ascii") {
        h.binary = false;
      } else if (encoding == "binary_little_endian") {
        h.binary = true;
      } else {
        fail("unsupported PLY format '" + std::string(encoding.substr(0, 32)) + "'");
      }
      have_format = true;
    } else if (keyword == "element") {
      Element e;
      e.name = std::string(next_token(line));
      std::int64_t count = 0;
      if (!parse_int(next_token(line), count) || count < 0) fail("bad element count");
      e.count = static_cast<std::size_t>(count);
      h.elements.push_back(std::move(e));
    } else if (keyword == "property") {
      if (h.elements.empty()) fail("property before any element");
      Property p;
      std::string_view type = next_token(line);
      if (type == "list") {
        p.is_list = true;
        if (!parse_type(next_token(line), p.count_type)) fail("bad list count type");
        type = next_token(line);
      }
      if (!parse_type(type, p.type)) fail("unknown property type '" + std::string(type) + "'");
      p.name = std::string(next_token(line));
      h.elements.back().properties.push_back(std::move(p));
    } else if (keyword == "end_header") {
      break;
    } else if (keyword != "comment" && keyword != "obj_info" && !keyword.empty()) {
      fail("unknown header line '" + std::string(keyword.substr(0, 32)) + "'");
    }
  }
  if (!have_format) throw InputError(name + ": PLY header has no format line");
  h.body_offset = pos;
  return h;
}

int find_property(const Element& e, const char* name) {
  for (std::size_t i = 0; i < e.properties.size(); ++i) {
    if (e.properties[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

void read_vertices(const Element& e, BodyReader& in, MeshBuilder& builder) {
  const int ix = find_property(e, "x"), iy = find_property(e, "y"), iz = find_property(e, "z");
  if (ix < 0 || iy < 0 || iz < 0) in.fail("vertex element lacks x, y or z");
  const int ipin = find_property(e, "pin");
  int iu = -1, iv = -1;
  for (const auto& [u, v] :
       {std::pair{"s", "t"}, std::pair{"u", "v"}, std::pair{"texture_u", "texture_v"},
        std::pair{"texture_s", "texture_t"}}) {
    if (iu < 0 && find_property(e, u) >= 0 && find_property(e, v) >= 0) {
      iu = find_property(e, u);
      iv = find_property(e, v);
    }
  }
  const std::size_t pin_group = ipin >= 0 ? builder.group_index("pin") : 0;
  std::vector<double> values(e.properties.size());
  for (std::size_t v = 0; v < e.count; ++v) {
    for (std::size_t p = 0; p < e.properties.size(); ++p) {
      const Property& prop = e.properties[p];
      if (prop.is_list) {
        const double n = in.read(prop.count_type);
        for (double k = 0; k < n; ++k) in.read(prop.type);
      } else {
        values[p] = in.read(prop.type);
      }
    }
    const glm::dvec3 pos{values[ix], values[iy], values[iz]};
    if (!std::isfinite(pos.x) || !std::isfinite(pos.y) || !std::isfinite(pos.z)) {
      in.fail("vertex " + std::to_string(v) + " has a coordinate that is not finite");
    }
    builder.add_vertex(pos);
    if (iu >= 0) {
      if (!std::isfinite(values[iu]) || !std::isfinite(values[iv])) {
        in.fail("vertex " + std::to_string(v) + " has a texture coordinate that is not finite");
      }
      builder.add_uv({values[iu], values[iv]});
    }
    if (ipin >= 0 && values[ipin] != 0.0)
      builder.add_to_group(pin_group, static_cast<std::uint32_t>(v));
  }
}

void read_faces(const Element& e, BodyReader& in, MeshBuilder& builder, std::size_t vertices) {
  int ilist = find_property(e, "vertex_indices");
  if (ilist < 0) ilist = find_property(e, "vertex_index");
  if (ilist < 0 || !e.properties[ilist].is_list)
    in.fail("face element lacks a vertex_indices list");
  // Face-varying texture coordinates, unless the vertices already carry them.
  const int itex = builder.mesh().uvs.empty() ? find_property(e, "texcoord") : -1;
  std::vector<std::uint32_t> polygon, uv_polygon;
  const std::vector<std::size_t> no_groups;
  for (std::size_t f = 0; f < e.count; ++f) {
    uv_polygon.clear();
    for (std::size_t p = 0; p < e.properties.size(); ++p) {
      const Property& prop = e.properties[p];
      const double n = prop.is_list ? in.read(prop.count_type) : 0.0;
      if (!prop.is_list) {
        in.read(prop.type);
        continue;
      }
      if (static_cast<int>(p) == itex) {
        if (n < 0 || n != std::floor(n)) in.fail("face " + std::to_string(f) + ": bad texcoord");
        for (double k = 0; k + 1 < n; k += 2) {
          const double u = in.read(prop.type), v = in.read(prop.type);
          if (!std::isfinite(u) || !std::isfinite(v)) {
            in.fail("face " + std::to_string(f) + " has a texture coordinate that is not finite");
          }
          uv_polygon.push_back(static_cast<std::uint32_t>(builder.mesh().uvs.size()));
          builder.add_uv({u, v});
        }
        if (static_cast<std::size_t>(n) % 2 != 0) in.read(prop.type);
        continue;
      }
      if (static_cast<int>(p) != ilist) {
        for (double k = 0; k < n; ++k) in.read(prop.type);
        continue;
      }
      if (n < 3 || n != std::floor(n))
        in.fail("face " + std::to_string(f) + " has fewer than 3 vertices");
      polygon.clear();
      for (double k = 0; k < n; ++k) {
        const double index = in.read(prop.type);
        if (index < 0 || index >= static_cast<double>(vertices) || index != std::floor(index)) {
          in.fail("face " + std::to_string(f) + " has vertex index " + std::to_string(index) +
                  " out of range (" + std::to_string(vertices) + " vertices)");
        }
        polygon.push_back(static_cast<std::uint32_t>(index));
      }
    }
    if (itex >= 0 && uv_polygon.size() != polygon.size()) {
      in.fail("face " + std::to_string(f) + " has " + std::to_string(uv_polygon.size()) +
              " texture coordinates for " + std::to_string(polygon.size()) + " corners");
    }
    builder.add_polygon(polygon, no_groups, uv_polygon);
  }
}

// The smallest number of bytes one element can occupy, to refuse absurd counts before
// allocating for them.
std::size_t min_element_bytes(const Element& e, bool binary) {
  std::size_t bytes = 0;
  for (const Property& p : e.properties) {
    bytes += binary ? (p.is_list ? type_size(p.count_type) : type_size(p.type)) : 2;
  }
  return bytes;
}

}  // namespace

TriMesh parse_ply(const std::string& bytes, const std::string& name) {
  const Header header = parse_header(bytes, name);
  BodyReader in(std::string_view(bytes).substr(header.body_offset), header.binary, name,
                header.lines + 1);
  MeshBuilder builder;
  bool have_vertices = false;
  for (const Element& e : header.elements) {
    if (e.count > 0 &&
        e.count > in.remaining() / std::max<std::size_t>(1, min_element_bytes(e, header.binary))) {
      in.fail("element '" + e.name + "' claims " + std::to_string(e.count) +
              " entries, more than the file holds");
    }
    if (e.name == "vertex") {
      builder.reserve(e.count, 0);
      read_vertices(e, in, builder);
      have_vertices = true;
    } else if (e.name == "face") {
      if (!have_vertices) in.fail("face element comes before the vertex element");
      read_faces(e, in, builder, builder.mesh().positions.size());
    } else {
      for (std::size_t i = 0; i < e.count; ++i) {
        for (const Property& p : e.properties) {
          const double n = p.is_list ? in.read(p.count_type) : 1.0;
          for (double k = 0; k < n; ++k) in.read(p.type);
        }
      }
    }
  }
  if (builder.mesh().triangles.empty()) throw InputError(name + ": no faces");
  return builder.finish(name);
}

TriMesh load_ply(const std::string& path) {
  return parse_ply(read_file(path), path);
}

}  // namespace drape
