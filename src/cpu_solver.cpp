// The `cpu` backend: the coloured solver of parallel_solver.inl on OpenMP threads.
#include <omp.h>

#include "exec_cpu.h"
#include "parallel_solver.inl"

namespace drape {

int default_thread_count() {
  return omp_get_num_procs();
}

std::unique_ptr<Solver> make_cpu_solver(const ClothModel& cloth, const PhysicsParams& params,
                                        int threads, const std::vector<Collider>& colliders) {
  exec::CpuExec exec;
  exec.threads = threads > 0 ? threads : default_thread_count();
  return std::make_unique<ParallelSolver<exec::CpuExec>>(cloth, params, colliders, exec);
}

}  // namespace drape
