#include "drape/error.h"
#include "solver/solver.h"

namespace drape {

std::unique_ptr<Solver> make_solver(const std::string& backend, const ClothModel& cloth,
                                    const PhysicsParams& params, const SolverOptions& options,
                                    const std::vector<Collider>& colliders) {
  if (backend == "reference") return make_reference_solver(cloth, params, colliders);
  if (backend == "cpu") return make_cpu_solver(cloth, params, options.threads, colliders);
  if (backend == "cuda") return make_cuda_solver(cloth, params, colliders);
  throw InputError("unknown backend '" + backend + "'");
}

}  // namespace drape
