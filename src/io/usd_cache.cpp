#include "io/usd_cache.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include <glm/geometric.hpp>

#include "drape/error.h"
#include "io/atomic_file.h"
#include "io/cache.h"
#include "io/text_scan.h"

namespace drape {

namespace {

constexpr const char* kAttributes[] = {"points", "normals", "extent", "velocities"};

// A float tuple as USD text. Values are rounded to float first and printed in the shortest form
// that reads back as the same float, so the points equal the PLY cache's float32 bit for bit.
template <int N>
void append_floats(std::string& out, const glm::vec<N, double>& v) {
  char buf[64];
  char* p = buf;
  *p++ = '(';
  for (int i = 0; i < N; ++i) {
    if (i > 0) {
      *p++ = ',';
      *p++ = ' ';
    }
    p = std::to_chars(p, buf + sizeof buf, static_cast<float>(v[i])).ptr;
  }
  *p++ = ')';
  out.append(buf, p);
}

std::string sample_line(int frame, const std::vector<glm::dvec3>& values) {
  std::string line = "            " + std::to_string(frame) + ": [";
  line.reserve(line.size() + values.size() * 40);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) line += ", ";
    append_floats(line, values[i]);
  }
  line += "],\n";
  return line;
}

// Keeps the lines of a partial file whose sample frame is at most `frame`.
void truncate_samples(const std::string& path, int frame) {
  std::ifstream in(path);
  std::string kept, line;
  while (std::getline(in, line)) {
    std::string_view rest(line);
    std::int64_t f = 0;
    std::string_view token = next_token(rest);
    if (!token.empty() && token.back() == ':') token.remove_suffix(1);
    if (parse_int(token, f) && f <= frame) kept += line + "\n";
  }
  in.close();
  write_file_atomically(path, kept);
}

}  // namespace

UsdCacheWriter::UsdCacheWriter(std::string dir, std::string name, double fps, const TriMesh& mesh,
                               int resume_frame, const std::vector<glm::dvec3>& resume_positions)
    : m_dir(std::move(dir)),
      m_name(std::move(name)),
      m_fps(fps),
      m_triangles(mesh.triangles),
      m_uv_triangles(mesh.uv_triangles),
      m_uvs(mesh.uvs),
      m_previous(resume_positions) {
  std::ofstream* streams[] = {&m_points, &m_normals, &m_extent, &m_velocities};
  for (int a = 0; a < 4; ++a) {
    const std::string file = partial(kAttributes[a]);
    if (resume_frame >= 0) truncate_samples(file, resume_frame);
    streams[a]->open(file, resume_frame >= 0 ? std::ios::app : std::ios::trunc);
    if (!*streams[a]) throw RuntimeError(file + ": cannot write");
  }
}

// Texture coordinates as the `st` primvar: per vertex, or per face corner through st's indices.
void UsdCacheWriter::append_st(std::ostream& usd) const {
  if (m_uvs.empty()) return;
  std::string values;
  for (std::size_t i = 0; i < m_uvs.size(); ++i) {
    if (i > 0) values += ", ";
    append_floats(values, m_uvs[i]);
  }
  const bool corners = !m_uv_triangles.empty();
  usd << "    texCoord2f[] primvars:st = [" << values << "] (\n        interpolation = \""
      << (corners ? "faceVarying" : "vertex") << "\"\n    )\n";
  if (!corners) return;
  usd << "    int[] primvars:st:indices = [";
  for (std::size_t i = 0; i < m_uv_triangles.size(); ++i) {
    const glm::uvec3& t = m_uv_triangles[i];
    usd << (i ? ", " : "") << t.x << ", " << t.y << ", " << t.z;
  }
  usd << "]\n";
}

std::string UsdCacheWriter::path() const {
  return (m_dir.empty() ? "" : m_dir + "/") + m_name + ".usda";
}

std::string UsdCacheWriter::partial(const char* attribute) const {
  return path() + "." + attribute + ".partial";
}

void UsdCacheWriter::add_frame(int frame, const std::vector<glm::dvec3>& x) {
  glm::dvec3 lo(1e300), hi(-1e300);
  for (const glm::dvec3& p : x) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  std::vector<glm::dvec3> velocities(x.size(), glm::dvec3(0.0));
  if (!m_previous.empty()) {
    for (std::size_t i = 0; i < x.size(); ++i) velocities[i] = (x[i] - m_previous[i]) * m_fps;
  }
  m_points << sample_line(frame, x);
  m_normals << sample_line(frame, vertex_normals(x, m_triangles));
  m_extent << sample_line(frame, {lo, hi});
  m_velocities << sample_line(frame, velocities);
  for (std::ofstream* s : {&m_points, &m_normals, &m_extent, &m_velocities}) {
    s->flush();
    if (!*s) throw RuntimeError(path() + ": cannot write the time samples");
  }
  m_previous = x;
}

void UsdCacheWriter::finish(int last_frame) {
  for (std::ofstream* s : {&m_points, &m_normals, &m_extent, &m_velocities}) s->close();
  std::ostringstream usd;
  usd << "#usda 1.0\n(\n    defaultPrim = \"" << m_name << "\"\n    doc = \"written by drape\"\n"
      << "    endTimeCode = " << last_frame << "\n    metersPerUnit = 1\n"
      << "    startTimeCode = 0\n    timeCodesPerSecond = " << m_fps << "\n"
      << "    framesPerSecond = " << m_fps << "\n    upAxis = \"Y\"\n)\n\n"
      << "def Mesh \"" << m_name << "\"\n{\n    int[] faceVertexCounts = [";
  for (std::size_t i = 0; i < m_triangles.size(); ++i) usd << (i ? ", 3" : "3");
  usd << "]\n    int[] faceVertexIndices = [";
  for (std::size_t i = 0; i < m_triangles.size(); ++i) {
    const glm::uvec3& t = m_triangles[i];
    usd << (i ? ", " : "") << t.x << ", " << t.y << ", " << t.z;
  }
  usd << "]\n    uniform token orientation = \"rightHanded\"\n"
      << "    uniform token subdivisionScheme = \"none\"\n";
  usd << "    normal3f[] normals (\n        interpolation = \"vertex\"\n    )\n";
  append_st(usd);
  const char* types[] = {"point3f[]", "normal3f[]", "float3[]", "vector3f[]"};
  for (int a = 0; a < 4; ++a) {
    usd << "    " << types[a] << " " << kAttributes[a] << ".timeSamples = {\n"
        << read_file(partial(kAttributes[a])) << "    }\n";
  }
  usd << "}\n";
  write_file_atomically(path(), usd.str());
  for (const char* a : kAttributes) std::filesystem::remove(partial(a));
}

}  // namespace drape
