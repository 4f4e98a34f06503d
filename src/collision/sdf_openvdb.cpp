// Level sets through OpenVDB (host only): mesh-to-volume, the library behind Houdini's VDB from
// Polygons, and reading .vdb files; both converted to NanoVDB for the kernels.
#include <fstream>

#include <nanovdb/util/OpenToNanoVDB.h>
#include <openvdb/io/File.h>
#include <openvdb/openvdb.h>
#include <openvdb/tools/MeshToVolume.h>

#include "collision/collider.h"
#include "drape/error.h"

namespace drape {

bool have_openvdb() {
  return true;
}

namespace {

SdfGrid to_nano(const openvdb::FloatGrid& grid, const std::string& source) {
  auto handle = nanovdb::openToNanoVDB(grid);
  return SdfGrid(handle.data(), handle.size(), source);
}

}  // namespace

SdfGrid build_mesh_sdf(const TriMesh& mesh, double voxel_size, int band) {
  openvdb::initialize();
  std::vector<openvdb::Vec3s> points;
  points.reserve(mesh.positions.size());
  for (const glm::dvec3& p : mesh.positions) {
    points.emplace_back(static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z));
  }
  std::vector<openvdb::Vec3I> triangles;
  triangles.reserve(mesh.triangles.size());
  for (const glm::uvec3& t : mesh.triangles) triangles.emplace_back(t.x, t.y, t.z);
  const auto transform = openvdb::math::Transform::createLinearTransform(voxel_size);
  const auto band_width = static_cast<float>(band);
  openvdb::FloatGrid::Ptr grid = openvdb::tools::meshToSignedDistanceField<openvdb::FloatGrid>(
      *transform, points, triangles, std::vector<openvdb::Vec4I>(), band_width, band_width);
  grid->setGridClass(openvdb::GRID_LEVEL_SET);
  grid->setName("surface");
  return to_nano(*grid, "mesh SDF");
}

SdfGrid load_vdb(const std::string& path, const std::string& grid_name) {
  if (!std::ifstream(path)) throw InputError(path + ": cannot open: " + std::strerror(errno));
  openvdb::initialize();
  openvdb::GridPtrVecPtr grids;
  try {
    openvdb::io::File file(path);
    file.open();
    grids = file.getGrids();
    file.close();
  } catch (const std::exception& e) {
    throw InputError(path + ": not a readable OpenVDB file (" + e.what() + ")");
  }
  for (const openvdb::GridBase::Ptr& base : *grids) {
    if (!grid_name.empty() && base->getName() != grid_name) continue;
    if (grid_name.empty() && base->getGridClass() != openvdb::GRID_LEVEL_SET) continue;
    if (base->getGridClass() != openvdb::GRID_LEVEL_SET) {
      throw InputError(path + ": grid '" + grid_name + "' is not a level set");
    }
    auto grid = openvdb::gridPtrCast<openvdb::FloatGrid>(base);
    if (!grid) throw InputError(path + ": grid '" + base->getName() + "' does not hold floats");
    return to_nano(*grid, path);
  }
  throw InputError(path + (grid_name.empty() ? ": holds no level-set grid"
                                             : ": holds no grid named '" + grid_name + "'"));
}

}  // namespace drape
