#include "drape/cloth.h"

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

}  // namespace drape
