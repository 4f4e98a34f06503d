// The USD cache: one NAME.usda with a Mesh prim whose points, normals, extent and velocities are
// time-sampled, one sample per frame. Samples are appended to NAME.usda.*.partial files as
// frames arrive (so memory does not grow with the frame count), and the .usda is assembled from
// them, under a temporary name then renamed, only when the run finishes: a run that stops early
// leaves no USD file.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "drape/mesh.h"

namespace drape {

class UsdCacheWriter {
 public:
  // `resume_frame` >= 0 continues partial files written up to that frame (later samples, from an
  // interrupted frame, are dropped); `resume_positions` are that frame's positions.
  // `mesh` gives the triangles and texture coordinates (primvars:st); its positions are unused.
  UsdCacheWriter(std::string dir, std::string name, double fps, const TriMesh& mesh,
                 int resume_frame, const std::vector<glm::dvec3>& resume_positions);

  void add_frame(int frame, const std::vector<glm::dvec3>& positions);
  // Writes NAME.usda for frames 0..last_frame and removes the partial files.
  void finish(int last_frame);

  std::string path() const;

 private:
  std::string partial(const char* attribute) const;
  void append_st(std::ostream& usd) const;

  std::string m_dir, m_name;
  double m_fps;
  std::vector<glm::uvec3> m_triangles, m_uv_triangles;
  std::vector<glm::dvec2> m_uvs;
  std::vector<glm::dvec3> m_previous;
  std::ofstream m_points, m_normals, m_extent, m_velocities;
};

}  // namespace drape
