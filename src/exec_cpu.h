// The `cpu` launch layer: kernels run as OpenMP loops on host threads, state lives in host memory.
#pragma once

#include <cstdint>
#include <vector>

namespace drape::exec {

struct CpuExec {
  template <class T>
  class Buffer {
   public:
    void upload(const std::vector<T>& host) { m_data = host; }
    void download(std::vector<T>& host) const { host = m_data; }
    T* data() { return m_data.data(); }
    std::size_t bytes() const { return m_data.size() * sizeof(T); }

   private:
    std::vector<T> m_data;
  };

  int threads = 1;

  // Runs f(i) for i in [begin, end). Iterations of one call touch disjoint data, so the split
  // across threads never changes the result. Small batches stay on the calling thread: waking the
  // team costs more than they take.
  template <class F>
  void for_each(std::uint32_t begin, std::uint32_t end, F f) const {
    const std::int64_t b = begin, e = end;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && e - b >= 256)
    for (std::int64_t i = b; i < e; ++i) f(static_cast<std::uint32_t>(i));
  }

  void synchronize() const {}
};

}  // namespace drape::exec
