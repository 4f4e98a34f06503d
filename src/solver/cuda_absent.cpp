// Compiled instead of cuda_solver.cu when drape is built without a CUDA compiler.
#include "drape/error.h"
#include "solver/solver.h"

namespace drape {

std::unique_ptr<Solver> make_cuda_solver(const ClothModel&, const PhysicsParams&,
                                         const std::vector<Collider>&, bool) {
  throw RuntimeError(
      "the cuda backend is not available: this drape was built without a CUDA compiler");
}

int cuda_device_count() {
  return 0;
}

std::string cuda_device_description() {
  return "none (built without CUDA)";
}

}  // namespace drape
