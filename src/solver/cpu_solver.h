// The `cpu` backend with a given thread governor (solver.h's make_cpu_solver makes its own).
#pragma once

#include <memory>
#include <vector>

#include "solver/solver.h"
#include "solver/thread_governor.h"

namespace drape {

std::unique_ptr<Solver> make_cpu_solver(const ClothModel& cloth, const PhysicsParams& params,
                                        std::shared_ptr<ThreadGovernor> governor,
                                        const std::vector<Collider>& colliders = {});

}  // namespace drape
