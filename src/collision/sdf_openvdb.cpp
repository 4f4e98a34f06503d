// Level sets through OpenVDB (host only): mesh-to-volume, the library behind Houdini's VDB from
// Polygons (with the closest-polygon index grid for a surface's motion), and reading .vdb files;
// all converted to NanoVDB for the kernels.
#include <fstream>

#include <nanovdb/util/OpenToNanoVDB.h>
#include <openvdb/io/File.h>
#include <openvdb/openvdb.h>
#include <openvdb/tools/MeshToVolume.h>

#include "collision/collider.h"
#include "drape/error.h"
#include "kernels/geometry.h"

namespace drape {

bool have_openvdb() {
  return true;
}

namespace {

SdfGrid to_nano(const openvdb::FloatGrid& grid, const std::string& source) {
  auto handle = nanovdb::openToNanoVDB(grid);
  return SdfGrid(handle.data(), handle.size(), source);
}

std::vector<openvdb::Vec3I> vdb_triangles(const TriMesh& mesh) {
  std::vector<openvdb::Vec3I> triangles;
  triangles.reserve(mesh.triangles.size());
  for (const glm::uvec3& t : mesh.triangles) triangles.emplace_back(t.x, t.y, t.z);
  return triangles;
}

// The mesh's points divided by `scale` (1: world units; the voxel size: index space).
std::vector<openvdb::Vec3s> vdb_points(const TriMesh& mesh, double scale) {
  std::vector<openvdb::Vec3s> points;
  points.reserve(mesh.positions.size());
  for (const glm::dvec3& p : mesh.positions) {
    points.emplace_back(static_cast<float>(p.x / scale), static_cast<float>(p.y / scale),
                        static_cast<float>(p.z / scale));
  }
  return points;
}

}  // namespace

SdfGrid build_mesh_sdf(const TriMesh& mesh, double voxel_size, int band) {
  openvdb::initialize();
  const std::vector<openvdb::Vec3s> points = vdb_points(mesh, 1.0);
  const std::vector<openvdb::Vec3I> triangles = vdb_triangles(mesh);
  const auto transform = openvdb::math::Transform::createLinearTransform(voxel_size);
  const auto band_width = static_cast<float>(band);
  openvdb::FloatGrid::Ptr grid = openvdb::tools::meshToSignedDistanceField<openvdb::FloatGrid>(
      *transform, points, triangles, std::vector<openvdb::Vec4I>(), band_width, band_width);
  grid->setGridClass(openvdb::GRID_LEVEL_SET);
  grid->setName("surface");
  return to_nano(*grid, "mesh SDF");
}

MotionGrid build_surface_motion(const TriMesh& mesh, const std::vector<glm::dvec3>& displacement,
                                double voxel_size, int band) {
  openvdb::initialize();
  const std::vector<openvdb::Vec3s> points = vdb_points(mesh, voxel_size);  // index space
  const std::vector<openvdb::Vec3I> triangles = vdb_triangles(mesh);
  const auto transform = openvdb::math::Transform::createLinearTransform(voxel_size);
  const openvdb::tools::QuadAndTriangleDataAdapter<openvdb::Vec3s, openvdb::Vec3I> adapter(
      points, triangles);
  openvdb::Int32Grid nearest;  // the closest triangle of every voxel in the band
  const auto band_width = static_cast<float>(band);
  openvdb::tools::meshToVolume<openvdb::FloatGrid>(adapter, *transform, band_width, band_width, 0,
                                                   &nearest);
  openvdb::Vec3fGrid motion(openvdb::Vec3f(0.0f));
  motion.setTransform(transform);
  motion.setName("motion");
  motion.tree().topologyUnion(nearest.tree());
  const auto index = nearest.getConstAccessor();
  for (auto it = motion.tree().beginValueOn(); it; ++it) {
    const glm::uvec3 t = mesh.triangles[static_cast<std::size_t>(index.getValue(it.getCoord()))];
    const openvdb::Vec3d at = transform->indexToWorld(it.getCoord());
    float u, v, w;
    kernels::closest_on_triangle(glm::vec3(at.x(), at.y(), at.z()), glm::vec3(mesh.positions[t.x]),
                                 glm::vec3(mesh.positions[t.y]), glm::vec3(mesh.positions[t.z]), u,
                                 v, w);
    const glm::dvec3 d = static_cast<double>(u) * displacement[t.x] +
                         static_cast<double>(v) * displacement[t.y] +
                         static_cast<double>(w) * displacement[t.z];
    it.setValue(
        openvdb::Vec3f(static_cast<float>(d.x), static_cast<float>(d.y), static_cast<float>(d.z)));
  }
  auto handle = nanovdb::openToNanoVDB(motion);
  return MotionGrid(handle.data(), handle.size(), "surface motion");
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
