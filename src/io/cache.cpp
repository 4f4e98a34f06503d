#include "io/cache.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>

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

std::string encode_ply(const std::vector<glm::dvec3>& positions,
                       const std::vector<glm::uvec3>& triangles) {
  std::string out = "ply\nformat binary_little_endian 1.0\ncomment written by drape\n";
  out += "element vertex " + std::to_string(positions.size()) + "\n";
  out += "property float x\nproperty float y\nproperty float z\n";
  out += "element face " + std::to_string(triangles.size()) + "\n";
  out += "property list uchar int vertex_indices\nend_header\n";
  out.reserve(out.size() + positions.size() * 12 + triangles.size() * 13);
  for (const glm::dvec3& p : positions) {
    append_raw(out, static_cast<float>(p.x));
    append_raw(out, static_cast<float>(p.y));
    append_raw(out, static_cast<float>(p.z));
  }
  for (const glm::uvec3& t : triangles) {
    append_raw(out, std::uint8_t{3});
    append_raw(out, static_cast<std::int32_t>(t.x));
    append_raw(out, static_cast<std::int32_t>(t.y));
    append_raw(out, static_cast<std::int32_t>(t.z));
  }
  return out;
}

std::string encode_obj(const std::vector<glm::dvec3>& positions,
                       const std::vector<glm::uvec3>& triangles) {
  std::string out = "# written by drape\n";
  out.reserve(positions.size() * 48 + triangles.size() * 24);
  char buf[32];
  auto append_number = [&](double x) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, 9);
    out.append(buf, end);
  };
  for (const glm::dvec3& p : positions) {
    out += "v ";
    append_number(p.x);
    out += ' ';
    append_number(p.y);
    out += ' ';
    append_number(p.z);
    out += '\n';
  }
  for (const glm::uvec3& t : triangles) {
    out += "f " + std::to_string(t.x + 1) + ' ' + std::to_string(t.y + 1) + ' ' +
           std::to_string(t.z + 1) + '\n';
  }
  return out;
}

}  // namespace drape
