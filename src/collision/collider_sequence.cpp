// Pose sequences of mesh colliders (collision/collider.h, load_pose_sequence).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <glm/geometric.hpp>

#include "collision/collider.h"
#include "drape/error.h"
#include "io/checkpoint.h"
#include "io/text_scan.h"

namespace drape {

namespace {

namespace fs = std::filesystem;

// The poses from first_frame on, up to the first missing file; a later pose with a gap before it
// is an error naming the missing file.
std::vector<std::string> pose_files(const ColliderDesc& d, const std::string& where) {
  std::vector<std::string> files;
  for (int k = d.first_frame; fs::exists(sequence_file(d.path, k)); ++k) {
    files.push_back(sequence_file(d.path, k));
  }
  if (files.empty()) {
    throw InputError(where + ": " + sequence_file(d.path, d.first_frame) +
                     ": cannot open (the sequence's first pose)");
  }
  const int after = d.first_frame + static_cast<int>(files.size());
  for (int k = after + 1; k <= after + 1000; ++k) {
    if (fs::exists(sequence_file(d.path, k))) {
      throw InputError(where + ": " + sequence_file(d.path, after) + " is missing: the sequence " +
                       "goes on with " + sequence_file(d.path, k));
    }
  }
  return files;
}

// `kind`: "" for a pose's level set, ".motion" for the motion from it to the next pose.
std::string cache_name(const std::string& file, const std::string& bytes, double voxel, int band,
                       const std::string& kind = "") {
  std::uint64_t h = fingerprint_bytes(bytes.data(), bytes.size(), 0);
  h = fingerprint_bytes(&voxel, sizeof voxel, h);
  h = fingerprint_bytes(&band, sizeof band, h);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  const fs::path p(file);
  return (p.parent_path() / ".drape-sdf" / (p.filename().string() + kind + "." + hex + ".nvdb"))
      .string();
}

// Loads a cached grid, or builds it and caches it (where the folder can be made; a run that
// cannot write there rebuilds next time).
template <class Grid, class Load, class Build>
std::shared_ptr<const Grid> cached(const std::string& path, Load load, Build build) {
  if (fs::exists(path)) return std::make_shared<Grid>(load(path));
  auto grid = std::make_shared<Grid>(build());
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (!ec) save_nvdb(*grid, path);
  return grid;
}

}  // namespace

void load_pose_sequence(Collider& c, double fps, const std::string& scene_path) {
  const ColliderDesc& d = c.desc;
  const std::string where = scene_path + ": " + d.key;
  const std::vector<std::string> files = pose_files(d, where);
  std::vector<TriMesh> meshes;
  double motion = 0.0;  // the most a vertex moves between two poses
  for (const std::string& file : files) {
    meshes.push_back(load_mesh(file));
    const TriMesh& m = meshes.back();
    const TriMesh& first = meshes.front();
    if (m.positions.size() != first.positions.size() || m.triangles != first.triangles) {
      throw InputError(where + ": " + file + " has other vertices or triangles than " +
                       files.front() + " (" + std::to_string(m.positions.size()) + " vertices, " +
                       std::to_string(first.positions.size()) + " in the first pose)");
    }
    if (meshes.size() > 1) {
      const TriMesh& before = meshes[meshes.size() - 2];
      for (std::size_t i = 0; i < m.positions.size(); ++i) {
        motion = std::max(motion, glm::length(m.positions[i] - before.positions[i]));
      }
    }
  }
  const int band = d.band + static_cast<int>(std::ceil(motion / d.voxel_size));
  // The surface's motion is smooth and only read for friction: a grid of kMotionVoxels level-set
  // voxels per voxel, over the same band.
  constexpr double kMotionVoxels = 4.0;
  const double motion_voxel = kMotionVoxels * d.voxel_size;
  const int motion_band = static_cast<int>(std::ceil(band / kMotionVoxels)) + 1;
  std::vector<std::string> bytes;
  for (const std::string& file : files) bytes.push_back(read_file(file));
  for (std::size_t k = 0; k < files.size(); ++k) {
    c.poses.push_back(
        cached<SdfGrid>(cache_name(files[k], bytes[k], d.voxel_size, band), load_nvdb,
                        [&] { return build_mesh_sdf(meshes[k], d.voxel_size, band); }));
    if (k + 1 == files.size()) break;
    c.motion.push_back(cached<MotionGrid>(
        cache_name(files[k], bytes[k] + bytes[k + 1], motion_voxel, motion_band, ".motion"),
        load_motion_nvdb, [&] {
          std::vector<glm::dvec3> displacement(meshes[k].positions.size());
          for (std::size_t i = 0; i < displacement.size(); ++i) {
            displacement[i] = meshes[k + 1].positions[i] - meshes[k].positions[i];
          }
          return build_surface_motion(meshes[k], displacement, motion_voxel, motion_band);
        }));
  }
  c.grid = c.poses.front();
  c.pose_triangles = meshes.front().triangles;
  for (TriMesh& m : meshes) c.pose_positions.push_back(std::move(m.positions));
  c.pose_fps = d.sequence_fps > 0.0 ? d.sequence_fps : fps;
}

}  // namespace drape
