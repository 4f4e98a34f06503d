// The `cuda` backend: the coloured solver of solver/parallel_solver.h as CUDA kernels, one launch
// per colour, with the cloth state resident on the device for the whole run; each solver
// iteration's launches are captured once into a CUDA graph and replayed.
#include "solver/exec_cuda.cuh"
#include "solver/parallel_solver.h"

namespace drape {

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error of a machine without a driver
    return 0;
  }
  return count;
}

std::string cuda_device_description() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) return std::string("none (") + cudaGetErrorString(status) + ")";
  if (count == 0) return "none (no CUDA device)";
  cudaDeviceProp prop{};
  DRAPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
         std::to_string(prop.minor) + ")";
}

std::unique_ptr<Solver> make_cuda_solver(const ClothModel& cloth, const PhysicsParams& params,
                                         const std::vector<Collider>& colliders, bool graphs) {
  if (cuda_device_count() == 0) {
    throw RuntimeError("the cuda backend needs an NVIDIA GPU, and there is none: " +
                       cuda_device_description());
  }
  exec::CudaExec exec;
  if (graphs) exec.graphs = std::make_shared<exec::GraphCache>();
  return std::make_unique<ParallelSolver<exec::CudaExec>>(cloth, params, colliders, exec);
}

}  // namespace drape
