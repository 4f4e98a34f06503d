// Colliders at run time: signed distance fields (analytic shapes or NanoVDB level sets) and their
// placement over time.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <glm/mat3x3.hpp>
#include <glm/vec3.hpp>

#include "drape/mesh.h"
#include "drape/scene.h"

namespace drape {

// A NanoVDB grid held as its raw, position-independent buffer (32-byte aligned, as NanoVDB
// requires), so it can be copied to a device as it is.
class GridBuffer {
 public:
  struct alignas(32) Block {
    unsigned char bytes[32];
  };

  const void* data() const { return m_blocks.data(); }
  std::size_t size() const { return m_size; }
  const std::vector<Block>& blocks() const { return m_blocks; }

 protected:
  // Copies a NanoVDB grid buffer; throws InputError naming `source` unless it is one.
  GridBuffer(const void* data, std::size_t size, const std::string& source);

 private:
  std::vector<Block> m_blocks;
  std::size_t m_size = 0;
};

// A NanoVDB float level set.
class SdfGrid : public GridBuffer {
 public:
  // Throws InputError naming `source` unless the buffer holds a non-empty float level set.
  SdfGrid(const void* data, std::size_t size, const std::string& source);

  double voxel_size() const { return m_voxel_size; }
  double background() const { return m_background; }  // narrow-band half width, world units
  glm::dvec3 bbox_min() const { return m_bbox_min; }  // active voxels, local coordinates
  glm::dvec3 bbox_max() const { return m_bbox_max; }
  // Signed distance at a local point (background outside the band), for tests and tools.
  double sample(const glm::dvec3& local) const;

 private:
  double m_voxel_size = 0.0, m_background = 0.0;
  glm::dvec3 m_bbox_min{0.0}, m_bbox_max{0.0};
};

// A NanoVDB Vec3f grid: how far the surface point nearest to each voxel moves from one pose of a
// sequence to the next (local units), zero outside its band.
class MotionGrid : public GridBuffer {
 public:
  // Throws InputError naming `source` unless the buffer holds a Vec3f grid.
  MotionGrid(const void* data, std::size_t size, const std::string& source);
  // Trilinear sample at a local point, for tests and tools.
  glm::dvec3 sample(const glm::dvec3& local) const;
};

// Level sets from files and meshes. The OpenVDB-based ones throw RuntimeError in a build without
// OpenVDB.
SdfGrid load_nvdb(const std::string& path);
MotionGrid load_motion_nvdb(const std::string& path);
void save_nvdb(const GridBuffer& grid, const std::string& path);  // atomically
SdfGrid load_vdb(const std::string& path, const std::string& grid_name);
// Mesh -> signed distance field (OpenVDB's mesh-to-volume), `band` voxels each side.
SdfGrid build_mesh_sdf(const TriMesh& mesh, double voxel_size, int band);
// The motion of a mesh's surface: `displacement` per vertex, carried to every voxel within `band`
// voxels of the mesh from the point of its nearest triangle (barycentric).
MotionGrid build_surface_motion(const TriMesh& mesh, const std::vector<glm::dvec3>& displacement,
                                double voxel_size, int band);
bool have_openvdb();

struct ColliderPose {
  glm::dmat3 rotation{1.0};
  glm::dvec3 translation{0.0};
  double scale = 1.0;
};

// Where a pose sequence is at a time: between poses k and next (k + 1, or k after the last),
// weight s of the next.
struct PoseBlend {
  std::size_t k = 0, next = 0;
  double s = 0.0;
};

struct Collider {
  ColliderDesc desc;
  std::shared_ptr<const SdfGrid> grid;  // mesh, vdb, nvdb; a sequence's first pose
  // A pose sequence: one level set per pose, `pose_fps` poses a second.
  std::vector<std::shared_ptr<const SdfGrid>> poses;
  // motion[k]: the surface's motion from pose k to pose k + 1, at the points nearest to voxels.
  std::vector<std::shared_ptr<const MotionGrid>> motion;
  double pose_fps = 0.0;
  // A sequence's pose meshes (local coordinates), for attachments to its surface.
  std::vector<std::vector<glm::dvec3>> pose_positions;
  std::vector<glm::uvec3> pose_triangles;

  // Static transform composed with the motion at time t (linear translation, slerped rotation,
  // held before the first and after the last key).
  ColliderPose pose_at(double t) const;
  PoseBlend blend_at(double t) const;
};

// The level sets of a pose sequence (desc.sequence): every pose file from first_frame on, each
// with the first's vertex count and triangles, its level set built once and cached on disk in
// .drape-sdf/ beside the poses. The narrow band is widened by the largest motion of a vertex
// between two poses, so that two poses' bands overlap wherever the body moves. `fps`: the scene's.
void load_pose_sequence(Collider& collider, double fps, const std::string& scene_path);

// Builds or loads every collider of a scene (SDFs are built once, here).
std::vector<Collider> build_colliders(const Scene& scene);

}  // namespace drape
