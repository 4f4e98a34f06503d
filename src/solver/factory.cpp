#include "drape/error.h"
#include "solver/solver.h"

namespace drape {

std::unique_ptr<Solver> make_solver(Backend backend, const ClothModel& cloth,
                                    const PhysicsParams& params, const SolverOptions& options,
                                    const std::vector<Collider>& colliders) {
  switch (backend) {
    case Backend::reference:
      return make_reference_solver(cloth, params, colliders);
    case Backend::cpu:
      return make_cpu_solver(cloth, params, options.threads, colliders);
    case Backend::cuda:
      return make_cuda_solver(cloth, params, colliders, options.cuda_graphs);
  }
  throw RuntimeError("unknown backend");
}

}  // namespace drape
