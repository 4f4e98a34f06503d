// Compiled instead of sdf_openvdb.cpp when OpenVDB is not available (e.g. the GPU check machine):
// analytic and .nvdb colliders still work.
#include "collision/collider.h"
#include "drape/error.h"

namespace drape {

bool have_openvdb() {
  return false;
}

SdfGrid build_mesh_sdf(const TriMesh&, double, int) {
  throw RuntimeError("mesh colliders need OpenVDB, and this drape was built without it");
}

MotionGrid build_surface_motion(const TriMesh&, const std::vector<glm::dvec3>&, double, int) {
  throw RuntimeError("mesh sequences need OpenVDB, and this drape was built without it");
}

SdfGrid load_vdb(const std::string& path, const std::string&) {
  throw RuntimeError(path +
                     ": reading .vdb files needs OpenVDB, and this drape was built without it");
}

}  // namespace drape
