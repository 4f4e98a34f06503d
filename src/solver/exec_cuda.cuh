// The `cuda` launch layer: kernels run as CUDA grids, state lives in device memory. Every CUDA
// call is checked; a failure throws RuntimeError naming the file, line and CUDA's message.
#pragma once

#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "drape/error.h"

#define DRAPE_CUDA_CHECK(call) ::drape::exec::cuda_check((call), #call, __FILE__, __LINE__)

namespace drape::exec {

inline void cuda_check(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    throw RuntimeError(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                       cudaGetErrorString(status));
  }
}

template <class F>
__global__ void for_each_kernel(std::uint32_t begin, std::uint32_t end, F f) {
  const std::uint32_t i = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < end) f(i);
}

// copy_if's test for select(): a named functor, whose result type Thrust can see on the host.
struct NonZero {
  __host__ __device__ bool operator()(std::uint32_t flag) const { return flag != 0u; }
};

// The stream a solver launches on and the CUDA graphs captured from it. A solver iteration is
// about 30 launches of a few microseconds each, so launch overhead, not memory traffic, bounds a
// frame up to large meshes (bench/gpu_paper.h); replaying an iteration as one graph launch
// removes most of it.
class GraphCache {
 public:
  GraphCache() { DRAPE_CUDA_CHECK(cudaStreamCreate(&m_stream)); }
  GraphCache(const GraphCache&) = delete;
  GraphCache& operator=(const GraphCache&) = delete;
  ~GraphCache() {
    for (cudaGraphExec_t g : m_graphs) {
      if (g != nullptr) cudaGraphExecDestroy(g);
    }
    cudaStreamDestroy(m_stream);
  }

  cudaStream_t stream() const { return m_stream; }

  // Launches `body`'s kernels: the first call for a slot captures them into a graph, and every
  // call launches that graph. The kernels `body` launches, and their arguments, must be the same
  // on every call (device memory they read may change in between).
  template <class Body>
  void replay(std::size_t slot, Body body) {
    if (slot >= m_graphs.size()) m_graphs.resize(slot + 1, nullptr);
    if (m_graphs[slot] == nullptr) {
      cudaGraph_t graph = nullptr;
      DRAPE_CUDA_CHECK(cudaStreamBeginCapture(m_stream, cudaStreamCaptureModeThreadLocal));
      body();
      DRAPE_CUDA_CHECK(cudaStreamEndCapture(m_stream, &graph));
      const cudaError_t status = cudaGraphInstantiateWithFlags(&m_graphs[slot], graph, 0);
      cudaGraphDestroy(graph);
      DRAPE_CUDA_CHECK(status);
    }
    DRAPE_CUDA_CHECK(cudaGraphLaunch(m_graphs[slot], m_stream));
  }

 private:
  cudaStream_t m_stream = nullptr;
  std::vector<cudaGraphExec_t> m_graphs;
};

struct CudaExec {
  // Null: kernels go to the legacy default stream one launch at a time (no graphs).
  std::shared_ptr<GraphCache> graphs;

  template <class T>
  class Buffer {
   public:
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    Buffer(Buffer&& other) noexcept : m_data(other.m_data), m_size(other.m_size) {
      other.m_data = nullptr;
      other.m_size = 0;
    }
    Buffer& operator=(Buffer&&) = delete;
    ~Buffer() {
      if (m_data != nullptr) cudaFree(m_data);
    }

    void upload(const std::vector<T>& host) {
      resize(host.size());
      if (m_size > 0) {
        DRAPE_CUDA_CHECK(cudaMemcpy(m_data, host.data(), bytes(), cudaMemcpyHostToDevice));
      }
    }

    void download(std::vector<T>& host) const {
      host.resize(m_size);
      if (m_size > 0) {
        DRAPE_CUDA_CHECK(cudaMemcpy(host.data(), m_data, bytes(), cudaMemcpyDeviceToHost));
      }
    }

    // Contents are undefined after a change of size.
    void resize(std::size_t n) {
      if (n == m_size) return;
      if (m_data != nullptr) DRAPE_CUDA_CHECK(cudaFree(m_data));
      m_data = nullptr;
      m_size = n;
      if (m_size > 0) DRAPE_CUDA_CHECK(cudaMalloc(&m_data, bytes()));
    }

    std::size_t size() const { return m_size; }
    T* data() { return m_data; }
    std::size_t bytes() const { return m_size * sizeof(T); }

   private:
    T* m_data = nullptr;
    std::size_t m_size = 0;
  };

  static constexpr std::uint32_t kBlock = 256;

  template <class F>
  void for_each(std::uint32_t begin, std::uint32_t end, F f) const {
    if (end <= begin) return;
    const std::uint32_t blocks = (end - begin + kBlock - 1) / kBlock;
    for_each_kernel<<<blocks, kBlock, 0, stream()>>>(begin, end, f);
    DRAPE_CUDA_CHECK(cudaGetLastError());
  }

  // Uneven iterations need no special schedule: the GPU's warps are scheduled as they finish.
  template <class F>
  void for_each_uneven(std::uint32_t begin, std::uint32_t end, F f) const {
    for_each(begin, end, f);
  }

  // One GPU thread per element: a chunk of one.
  template <class F>
  void for_each_chunk(std::uint32_t begin, std::uint32_t end, F f) const {
    for_each(begin, end, [=] __device__(std::uint32_t i) { f(i, i + 1); });
  }

  // One GPU thread per iteration: four-lane packs are a cpu matter (CpuExec::for_each_pack).
  template <class F>
  void for_each_pack(std::uint32_t begin, std::uint32_t end, F f) const {
    for_each(begin, end, f);
  }

  void sort_pairs(std::uint32_t* keys, std::uint32_t* values, std::uint32_t n) const {
    thrust::stable_sort_by_key(thrust::device, keys, keys + n, values);
    DRAPE_CUDA_CHECK(cudaGetLastError());
  }

  // out = exclusive prefix sum of in; returns the total.
  std::uint32_t exclusive_scan(const std::uint32_t* in, std::uint32_t* out, std::uint32_t n) const {
    if (n == 0) return 0;
    thrust::exclusive_scan(thrust::device, in, in + n, out);
    return read(out + n - 1) + read(in + n - 1);
  }

  // Writes the indices i with flags[i] != 0 to out, ascending; returns how many.
  std::uint32_t select(const std::uint32_t* flags, std::uint32_t n, std::uint32_t* out) const {
    std::uint32_t* last =
        thrust::copy_if(thrust::device, thrust::counting_iterator<std::uint32_t>(0),
                        thrust::counting_iterator<std::uint32_t>(n), flags, out, NonZero{});
    DRAPE_CUDA_CHECK(cudaGetLastError());
    return static_cast<std::uint32_t>(last - out);
  }

  template <class T>
  T max_value(const T* in, std::uint32_t n) const {
    return thrust::reduce(thrust::device, in, in + n, T(0), thrust::maximum<T>());
  }

  void synchronize() const { DRAPE_CUDA_CHECK(cudaDeviceSynchronize()); }

  // Runs `body`, replayed from a CUDA graph when graphs are on (GraphCache::replay).
  template <class Body>
  void replay(std::size_t slot, Body body) const {
    if (graphs) {
      graphs->replay(slot, body);
    } else {
      body();
    }
  }

  // The host backend times iterations to size its thread team; a GPU has nothing to tune.
  void iteration_begin() const {}
  void iteration_end() const {}
  int threads() const { return 0; }

 private:
  cudaStream_t stream() const { return graphs ? graphs->stream() : nullptr; }

  template <class T>
  static T read(const T* device) {
    T value;
    DRAPE_CUDA_CHECK(cudaMemcpy(&value, device, sizeof(T), cudaMemcpyDeviceToHost));
    return value;
  }
};

}  // namespace drape::exec
