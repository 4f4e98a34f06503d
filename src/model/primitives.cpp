#include "model/primitives.h"

#include <cmath>

namespace drape {

TriMesh make_grid(const GridDesc& g) {
  TriMesh mesh;
  mesh.positions.reserve(static_cast<std::size_t>(g.nx) * g.nz);
  for (int iz = 0; iz < g.nz; ++iz) {
    for (int ix = 0; ix < g.nx; ++ix) {
      const double u = static_cast<double>(ix) / (g.nx - 1) - 0.5;
      const double v = static_cast<double>(iz) / (g.nz - 1) - 0.5;
      mesh.positions.push_back(g.center + glm::dvec3(u * g.size_x, 0.0, v * g.size_z));
    }
  }
  // Every quad is split along the same diagonal (Houdini's Grid SOP "Triangles" connectivity),
  // and every triangle winds so that its normal points along +Y.
  mesh.triangles.reserve(2 * static_cast<std::size_t>(g.nx - 1) * (g.nz - 1));
  for (int iz = 0; iz + 1 < g.nz; ++iz) {
    for (int ix = 0; ix + 1 < g.nx; ++ix) {
      const auto v00 = static_cast<unsigned>(iz * g.nx + ix);
      const unsigned v10 = v00 + 1, v01 = v00 + static_cast<unsigned>(g.nx), v11 = v01 + 1;
      mesh.triangles.emplace_back(v00, v01, v11);
      mesh.triangles.emplace_back(v00, v11, v10);
    }
  }
  return mesh;
}

TriMesh make_uv_sphere(const glm::dvec3& centre, double radius, int rings, int segments) {
  constexpr double kPi = 3.14159265358979323846;
  TriMesh m;
  m.positions.push_back(centre + glm::dvec3(0, radius, 0));
  for (int r = 1; r < rings; ++r) {
    const double theta = kPi * r / rings;
    for (int s = 0; s < segments; ++s) {
      const double phi = 2 * kPi * s / segments;
      m.positions.push_back(centre + radius * glm::dvec3(std::sin(theta) * std::cos(phi),
                                                         std::cos(theta),
                                                         std::sin(theta) * std::sin(phi)));
    }
  }
  m.positions.push_back(centre - glm::dvec3(0, radius, 0));
  const auto at = [&](int r, int s) {
    return static_cast<unsigned>(1 + (r - 1) * segments + (s % segments));
  };
  const auto bottom = static_cast<unsigned>(m.positions.size() - 1);
  for (int s = 0; s < segments; ++s) {
    m.triangles.emplace_back(0u, at(1, s + 1), at(1, s));
    for (int r = 1; r + 1 < rings; ++r) {
      m.triangles.emplace_back(at(r, s), at(r, s + 1), at(r + 1, s + 1));
      m.triangles.emplace_back(at(r, s), at(r + 1, s + 1), at(r + 1, s));
    }
    m.triangles.emplace_back(bottom, at(rings - 1, s), at(rings - 1, s + 1));
  }
  return m;
}

TriMesh make_box(const glm::dvec3& lo, const glm::dvec3& hi) {
  TriMesh m;
  for (int i = 0; i < 8; ++i) {
    m.positions.push_back({i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z});
  }
  const unsigned faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& f : faces) {
    m.triangles.emplace_back(f[0], f[1], f[2]);
    m.triangles.emplace_back(f[0], f[2], f[3]);
  }
  return m;
}

}  // namespace drape
