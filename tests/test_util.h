// Helpers shared by the test suites: temporary folders and files, meshes for the writers.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "drape/backend.h"
#include "drape/mesh.h"
#include "solver/solver.h"

namespace drape::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "drape-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    m_path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return m_path; }
  std::string file(const std::string& name) const { return m_path + "/" + name; }

  std::string write(const std::string& name, const std::string& contents) const {
    const std::string p = file(name);
    std::ofstream(p, std::ios::binary) << contents;
    return p;
  }

 private:
  std::string m_path;
};

// A mesh of these triangles and nothing else, for the cache writers (which take positions apart).
inline TriMesh faces(std::vector<glm::uvec3> triangles) {
  TriMesh m;
  m.triangles = std::move(triangles);
  return m;
}

// The backends a test can run here: reference and cpu always, cuda where a device exists (so a
// GPU machine checks the cuda backend against the same bars).
inline std::vector<Backend> backends() {
  std::vector<Backend> out{Backend::reference, Backend::cpu};
  if (cuda_device_count() > 0) out.push_back(Backend::cuda);
  return out;
}

}  // namespace drape::testing
