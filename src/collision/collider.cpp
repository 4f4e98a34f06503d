#include "collision/collider.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <unistd.h>
#include <cstring>
#include <fstream>

#include <nanovdb/NanoVDB.h>
#include <nanovdb/util/IO.h>
#include <nanovdb/util/SampleFromVoxels.h>
#include <glm/gtc/quaternion.hpp>

#include "drape/error.h"
#include "kernels/collider.h"

namespace drape {

GridBuffer::GridBuffer(const void* data, std::size_t size, const std::string& source) {
  if (size < sizeof(nanovdb::GridData) || !nanovdb::isValid(data)) {
    throw InputError(source + ": not a NanoVDB grid");
  }
  m_blocks.resize((size + sizeof(Block) - 1) / sizeof(Block));
  std::memcpy(m_blocks.data(), data, size);
  m_size = size;
}

namespace {

// Throws InputError naming `source` unless the grid holds `type` values (`what` they should be).
void require_values(const GridBuffer& g, nanovdb::GridType type, const char* what,
                    const std::string& source) {
  const auto* base = static_cast<const nanovdb::GridData*>(g.data());
  if (base->mGridType != type) {
    throw InputError(source + ": grid '" + base->mGridName + "' holds " +
                     nanovdb::toStr(base->mGridType) + " values, not " + what);
  }
}

}  // namespace

SdfGrid::SdfGrid(const void* data, std::size_t size, const std::string& source)
    : GridBuffer(data, size, source) {
  require_values(*this, nanovdb::GridType::Float, "float distances", source);
  const auto* grid = static_cast<const nanovdb::FloatGrid*>(this->data());
  if (!grid->isLevelSet()) {
    throw InputError(source + ": grid '" + grid->gridName() + "' is not a level set (class " +
                     nanovdb::toStr(grid->gridClass()) + ")");
  }
  if (grid->activeVoxelCount() == 0) throw InputError(source + ": the level set is empty");
  m_voxel_size = grid->voxelSize()[0];
  m_background = grid->tree().background();
  const nanovdb::BBox<nanovdb::Vec3R> box = grid->worldBBox();
  m_bbox_min = {box.min()[0], box.min()[1], box.min()[2]};
  m_bbox_max = {box.max()[0], box.max()[1], box.max()[2]};
}

MotionGrid::MotionGrid(const void* data, std::size_t size, const std::string& source)
    : GridBuffer(data, size, source) {
  require_values(*this, nanovdb::GridType::Vec3f, "Vec3f motion", source);
}

glm::dvec3 MotionGrid::sample(const glm::dvec3& local) const {
  const auto* grid = static_cast<const nanovdb::Vec3fGrid*>(data());
  const nanovdb::Vec3f m = kernels::sample_motion(*grid, glm::vec3(local));
  return {m[0], m[1], m[2]};
}

double SdfGrid::sample(const glm::dvec3& local) const {
  const auto* grid = static_cast<const nanovdb::FloatGrid*>(data());
  auto acc = grid->getAccessor();
  const auto sampler = nanovdb::createSampler<1, decltype(acc), false>(acc);
  return sampler(grid->worldToIndexF(nanovdb::Vec3f(
      static_cast<float>(local.x), static_cast<float>(local.y), static_cast<float>(local.z))));
}

namespace {

nanovdb::GridHandle<nanovdb::HostBuffer> read_nvdb(const std::string& path) {
  if (!std::ifstream(path)) throw InputError(path + ": cannot open: " + std::strerror(errno));
  nanovdb::GridHandle<nanovdb::HostBuffer> handle;
  try {
    handle = nanovdb::io::readGrid<nanovdb::HostBuffer>(path);
  } catch (const std::exception& e) {
    throw InputError(path + ": not a readable NanoVDB file (" + e.what() + ")");
  }
  if (!handle) throw InputError(path + ": the file holds no grid");
  return handle;
}

}  // namespace

SdfGrid load_nvdb(const std::string& path) {
  const auto handle = read_nvdb(path);
  return SdfGrid(handle.data(), handle.size(), path);
}

MotionGrid load_motion_nvdb(const std::string& path) {
  const auto handle = read_nvdb(path);
  return MotionGrid(handle.data(), handle.size(), path);
}

void save_nvdb(const GridBuffer& grid, const std::string& path) {
  nanovdb::HostBuffer buffer(grid.size());
  std::memcpy(buffer.data(), grid.data(), grid.size());
  nanovdb::GridHandle<nanovdb::HostBuffer> handle(std::move(buffer));
  // NanoVDB's writer seeks within its stream, so it writes a real file: a temporary beside the
  // target, renamed when whole.
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  try {
    nanovdb::io::writeGrid(tmp, handle);
  } catch (const std::exception& e) {
    std::remove(tmp.c_str());
    throw RuntimeError(path + ": cannot write: " + e.what());
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    std::remove(tmp.c_str());
    throw RuntimeError(path + ": cannot rename into place: " + std::strerror(saved));
  }
}

namespace {

glm::dquat euler_quat(const glm::dvec3& degrees) {
  const glm::dvec3 r = glm::radians(degrees);
  // R = Rz * Ry * Rx, as for the cloth transform.
  return glm::angleAxis(r.z, glm::dvec3(0, 0, 1)) * glm::angleAxis(r.y, glm::dvec3(0, 1, 0)) *
         glm::angleAxis(r.x, glm::dvec3(1, 0, 0));
}

}  // namespace

ColliderPose Collider::pose_at(double t) const {
  glm::dquat rotation = euler_quat(desc.transform.rotate_deg);
  glm::dvec3 translation = desc.transform.translate;
  const std::vector<MotionKey>& keys = desc.motion;
  if (!keys.empty()) {
    std::size_t k = 0;
    while (k + 1 < keys.size() && keys[k + 1].time <= t) ++k;
    const MotionKey& a = keys[k];
    const MotionKey& b = keys[std::min(k + 1, keys.size() - 1)];
    const double span = b.time - a.time;
    const double u = span > 0.0 ? std::clamp((t - a.time) / span, 0.0, 1.0) : 0.0;
    const glm::dquat motion_rotation =
        glm::slerp(euler_quat(a.rotate_deg), euler_quat(b.rotate_deg), u);
    const glm::dvec3 motion_translation = glm::mix(a.translate, b.translate, u);
    // world = M(T(local)): the keyed motion moves the collider as placed by its transform.
    translation = motion_rotation * translation + motion_translation;
    rotation = motion_rotation * rotation;
  }
  ColliderPose pose;
  pose.rotation = glm::mat3_cast(rotation);
  pose.translation = translation;
  pose.scale = desc.transform.scale;
  return pose;
}

PoseBlend Collider::blend_at(double t) const {
  PoseBlend b;
  if (poses.size() < 2) return b;
  const double u = std::max(0.0, t * pose_fps);
  const auto last = poses.size() - 1;
  b.k = std::min(static_cast<std::size_t>(u), last);
  b.next = std::min(b.k + 1, last);
  b.s = b.k < last ? u - static_cast<double>(b.k) : 0.0;
  return b;
}

std::vector<Collider> build_colliders(const Scene& scene) {
  std::vector<Collider> colliders;
  for (const ColliderDesc& desc : scene.colliders) {
    Collider c;
    c.desc = desc;
    switch (desc.shape) {
      case ColliderDesc::Shape::mesh:
        if (desc.sequence) {
          load_pose_sequence(c, scene.fps, scene.path);
          break;
        }
        c.grid = std::make_shared<SdfGrid>(
            build_mesh_sdf(load_mesh(desc.path), desc.voxel_size, desc.band));
        break;
      case ColliderDesc::Shape::vdb:
        c.grid = std::make_shared<SdfGrid>(load_vdb(desc.path, desc.grid_name));
        break;
      case ColliderDesc::Shape::nvdb:
        c.grid = std::make_shared<SdfGrid>(load_nvdb(desc.path));
        break;
      default:
        break;
    }
    if (c.grid && c.grid->background() * desc.transform.scale <= desc.thickness) {
      throw InputError(scene.path + ": " + desc.key + ": the level set's narrow band (" +
                       std::to_string(c.grid->background() * desc.transform.scale) +
                       " m) must be wider than the collider thickness (" +
                       std::to_string(desc.thickness) + " m)");
    }
    colliders.push_back(std::move(c));
  }
  return colliders;
}

}  // namespace drape
