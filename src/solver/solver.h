// Solver backends: one frame at a time, positions out in input order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "collision/collider.h"
#include "drape/backend.h"
#include "model/cloth.h"
#include "solver/physics.h"

namespace drape {

// Positions and velocities in input order (float backends convert exactly both ways) and the
// number of substeps taken, which places moving colliders in time.
struct SolverState {
  std::vector<glm::dvec3> positions, velocities;
  long long substeps_done = 0;
};

class Solver {
 public:
  virtual ~Solver() = default;
  // Advances one frame of 1/fps seconds: `substeps` substeps of predict, project, update.
  virtual void step_frame() = 0;
  virtual void copy_positions(std::vector<glm::dvec3>& out) const = 0;
  virtual void copy_velocities(std::vector<glm::dvec3>& out) const = 0;
  // Constraint projections one frame performs, for throughput figures.
  virtual double projections_per_frame() const = 0;
  // Bytes of solver state and constraints held in the backend's memory (0 if not tracked).
  virtual std::size_t memory_bytes() const { return 0; }
  // Self-collision contacts gathered during the last frame, summed over its rebuilds.
  virtual std::uint64_t self_contacts() const { return 0; }
  // Host threads that pay off now for work beside the solver (per-frame stats): the `cpu`
  // backend's current team (its ThreadGovernor), 0 = all cores for the others.
  virtual int host_threads() const { return 0; }
  // Everything a later step depends on, for checkpoints: restoring a state saved after frame k
  // and stepping gives bit for bit what stepping on from frame k gives.
  virtual SolverState state() const = 0;
  virtual void restore(const SolverState& state) = 0;
};

struct SolverOptions {
  int threads = 0;          // `cpu` backend: worker threads, 0 = chosen while it runs
  bool cuda_graphs = true;  // `cuda` backend: replay each iteration from a CUDA graph
};

// The serial double-precision solver that follows the spec's loop exactly.
// Every backend takes the colliders of the scene (copied; their SDFs are shared) and projects them
// after shear in each iteration, as the spec does.
std::unique_ptr<Solver> make_reference_solver(const ClothModel& cloth, const PhysicsParams& params,
                                              const std::vector<Collider>& colliders = {});

// The graph-coloured float32 solver on host threads.
std::unique_ptr<Solver> make_cpu_solver(const ClothModel& cloth, const PhysicsParams& params,
                                        int threads, const std::vector<Collider>& colliders = {});
int default_thread_count();

// The same coloured solver on an NVIDIA GPU. Throws RuntimeError when this build has no CUDA
// backend or no device is present. graphs: replay each iteration's launches from a CUDA graph
// (false: launch them one by one, for comparison).
std::unique_ptr<Solver> make_cuda_solver(const ClothModel& cloth, const PhysicsParams& params,
                                         const std::vector<Collider>& colliders = {},
                                         bool graphs = true);
// Number of usable CUDA devices; 0 without CUDA, a driver or a device.
int cuda_device_count();
// "NAME (sm_XY)" of device 0, or why there is none.
std::string cuda_device_description();

std::unique_ptr<Solver> make_solver(Backend backend, const ClothModel& cloth,
                                    const PhysicsParams& params, const SolverOptions& options = {},
                                    const std::vector<Collider>& colliders = {});

}  // namespace drape
