// The `cpu` backend: the coloured solver of solver/parallel_solver.h on OpenMP threads.
#include <algorithm>

#include "collision/self_collision_pairs.h"
#include "kernels/bend_pack.h"
#include "solver/cpu_solver.h"
#include "solver/exec_cpu.h"
#include "solver/parallel_solver.h"

namespace drape {

int default_thread_count() {
  return usable_cpus();
}

std::unique_ptr<Solver> make_cpu_solver(const ClothModel& cloth, const PhysicsParams& params,
                                        int threads, const std::vector<Collider>& colliders) {
  return make_cpu_solver(cloth, params, std::make_shared<ThreadGovernor>(threads), colliders);
}

std::unique_ptr<Solver> make_cpu_solver(const ClothModel& cloth, const PhysicsParams& params,
                                        std::shared_ptr<ThreadGovernor> governor,
                                        const std::vector<Collider>& colliders) {
  exec::CpuExec exec;
  exec.governor = std::move(governor);
  return std::make_unique<ParallelSolver<exec::CpuExec>>(cloth, params, colliders, exec);
}

SelfCollisionPairs find_self_collision_pairs(const ClothModel& cloth,
                                             const SelfCollisionParams& params,
                                             const std::vector<glm::dvec3>& positions,
                                             int threads) {
  exec::CpuExec exec(threads);
  exec::CpuExec::Buffer<float> w;
  w.upload(std::vector<float>(cloth.inv_mass.begin(), cloth.inv_mass.end()));
  exec::CpuExec::Buffer<glm::vec3> p;
  p.upload(std::vector<glm::vec3>(positions.begin(), positions.end()));
  SelfCollision<exec::CpuExec> self(cloth, params, w.data(), exec);
  CandidateRows<exec::CpuExec, std::uint64_t> rows;
  rows.resize(static_cast<std::uint32_t>(positions.size()));
  self.find_pairs(p.data(), w.data(), rows);
  const std::vector<glm::uvec3> triangles = self.triangles();
  SelfCollisionPairs pairs;
  for (const kernels::PairIds& ids : self.host_pairs(rows)) {
    if (ids.edge_edge) {
      const std::uint32_t e = self.topology_edge(ids.first), f = self.topology_edge(ids.second);
      pairs.edge_edge.emplace_back(std::min(e, f), std::max(e, f));
    } else {
      pairs.point_triangle.emplace_back(ids.first, triangles[ids.second]);
    }
  }
  return pairs;
}

}  // namespace drape
