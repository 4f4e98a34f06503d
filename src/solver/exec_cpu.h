// The `cpu` launch layer: kernels run as OpenMP loops on host threads, state lives in host memory.
#pragma once

#include <omp.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/hd.h"
#include "kernels/simd_pack.h"
#include "solver/host_primitives.h"
#include "solver/thread_governor.h"
#include "solver/thrust_omp.h"

namespace drape::exec {

struct CpuExec {
  template <class T>
  class Buffer {
   public:
    void upload(const std::vector<T>& host) { m_data = host; }
    void download(std::vector<T>& host) const { host = m_data; }
    void resize(std::size_t n) { m_data.resize(n); }
    std::size_t size() const { return m_data.size(); }
    T* data() { return m_data.data(); }
    std::size_t bytes() const { return m_data.size() * sizeof(T); }

   private:
    std::vector<T> m_data;
  };

  // Shared by every copy of this executor (the solver's, self-collision's), so one decision
  // covers all of a solver's work.
  std::shared_ptr<ThreadGovernor> governor = std::make_shared<ThreadGovernor>(1);

  CpuExec() = default;
  // threads > 0: that many; 0: as many as pay off, up to the usable CPUs (ThreadGovernor).
  explicit CpuExec(int threads) : governor(std::make_shared<ThreadGovernor>(threads)) {}

  int threads() const { return governor->threads(); }

  // Runs body (the cuda backend replays it from a CUDA graph).
  template <class Body>
  void replay(std::size_t, Body body) const {
    body();
  }

  // One solver iteration: the unit the governor times.
  void iteration_begin() const { governor->begin(); }
  void iteration_end() const { governor->end(); }

  // Runs f(i) for i in [begin, end). Iterations of one call touch disjoint data, so the split
  // across threads never changes the result. Small batches stay on the calling thread: waking the
  // team costs more than they take.
  template <class F>
  void for_each(std::uint32_t begin, std::uint32_t end, F f) const {
    const std::int64_t b = begin, e = end;
    const int team = threads();
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1 && e - b >= 256)
    for (std::int64_t i = b; i < e; ++i) f(static_cast<std::uint32_t>(i));
  }

  // for_each for iterations of uneven cost (the self-collision queries, heavier where the cloth
  // lies folded): threads take chunks of 64 as they finish. Still the same result on any split.
  template <class F>
  void for_each_uneven(std::uint32_t begin, std::uint32_t end, F f) const {
    const std::int64_t b = begin, e = end;
    const int team = threads();
#pragma omp parallel for schedule(dynamic, 64) num_threads(team) if (team > 1 && e - b >= 256)
    for (std::int64_t i = b; i < e; ++i) f(static_cast<std::uint32_t>(i));
  }

  // Runs f(chunk_begin, chunk_end) once per thread over a static split of [begin, end).
  template <class F>
  void for_each_chunk(std::uint32_t begin, std::uint32_t end, F f) const {
    const std::int64_t n = static_cast<std::int64_t>(end) - begin;
    const int teams = n >= 256 ? threads() : 1;
#pragma omp parallel num_threads(teams)
    {
      const std::int64_t t = omp_get_thread_num(), count = omp_get_num_threads();
      f(static_cast<std::uint32_t>(begin + n * t / count),
        static_cast<std::uint32_t>(begin + n * (t + 1) / count));
    }
  }

  // Runs f on [begin, end) a pack of iterations at a time where f has a pack form:
  // project_pack(f, k, pack), found by argument-dependent lookup (kernels/bend_pack.h), computes
  // iterations k..k+lanes-1 bit for bit as f does one by one. Eight at a time in AVX registers on a
  // CPU that has AVX (a function compiled for it), else four in SSE. Packs are formed from the
  // range alone and the remainder runs f, so the result does not depend on the thread count (nor
  // on the pack width). Iterations of one call touch disjoint data.
  template <class F>
  void for_each_pack(std::uint32_t begin, std::uint32_t end, F f) const {
#if defined(__x86_64__)
    if (kHasAvx) {
      for_each_pack_of<8>(begin, end, f, &CpuExec::run_packs_avx<F>);
      return;
    }
#endif
    for_each_pack_of<4>(begin, end, f, &CpuExec::run_packs<kernels::F4, F>);
  }

  // Sorts (keys, values) by key, equal keys keeping their order (host_primitives.cpp).
  void sort_pairs(std::uint32_t* keys, std::uint32_t* values, std::uint32_t n) const {
    host::sort_pairs(keys, values, n, threads());
  }

  // out = exclusive prefix sum of in; returns the total.
  std::uint32_t exclusive_scan(const std::uint32_t* in, std::uint32_t* out, std::uint32_t n) const {
    return thrust_omp::exclusive_scan(in, out, n, threads());
  }

  // Writes the indices i with flags[i] != 0 to out, ascending; returns how many.
  std::uint32_t select(const std::uint32_t* flags, std::uint32_t n, std::uint32_t* out) const {
    return host::select(flags, n, out, threads());
  }

  template <class T>
  T max_value(const T* in, std::uint32_t n) const {
    return thrust_omp::max_value(in, n, threads());
  }

  void synchronize() const {}

 private:
  // Packs [begin, end) of f's iterations split statically over the team, each thread's range run
  // by run_range(f, first, last).
  template <std::uint32_t lanes, class F, class Run>
  void for_each_pack_of(std::uint32_t begin, std::uint32_t end, const F& f, Run run_range) const {
    const std::int64_t packs = (static_cast<std::int64_t>(end) - begin) / lanes;
    const int team = threads();
#pragma omp parallel num_threads(team) if (team > 1 && packs >= 64)
    {
      const std::int64_t t = omp_get_thread_num(), count = omp_get_num_threads();
      run_range(f, begin + static_cast<std::uint32_t>(lanes * (packs * t / count)),
                begin + static_cast<std::uint32_t>(lanes * (packs * (t + 1) / count)));
    }
    for (std::uint32_t k = begin + lanes * static_cast<std::uint32_t>(packs); k < end; ++k) f(k);
  }

  // Forced inline, so that in run_packs_avx it is compiled for AVX.
  template <class Pack, class F>
  DRAPE_INLINE static void run_packs(const F& f, std::uint32_t first, std::uint32_t last) {
    for (std::uint32_t k = first; k < last; k += Pack::lanes) project_pack(f, k, Pack{});
  }

#if defined(__x86_64__)
  // __builtin_cpu_init first: this may run among the static constructors, before libgcc's.
  static bool cpu_has_avx() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx");
  }
  static inline const bool kHasAvx = cpu_has_avx();

  // run_packs of F8, compiled for AVX (the pack code is all forced inline, so it is too).
  template <class F>
  __attribute__((target("avx"))) static void run_packs_avx(const F& f, std::uint32_t first,
                                                           std::uint32_t last) {
    run_packs<kernels::F8>(f, first, last);
  }
#endif
};

}  // namespace drape::exec
