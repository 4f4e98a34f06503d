#include "solver/thrust_omp.h"

#include <omp.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/system/omp/execution_policy.h>

namespace drape::exec::thrust_omp {

namespace {

// Runs f with `threads` OpenMP threads for the parallel regions it opens on this thread.
template <class F>
void with_threads(int threads, F f) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(threads > 0 ? threads : saved);
  f();
  omp_set_num_threads(saved);
}

template <class T>
T largest(const T* in, std::uint32_t n, int threads) {
  T result = T(0);
  with_threads(threads, [&] {
    result = thrust::reduce(thrust::omp::par, in, in + n, T(0), thrust::maximum<T>());
  });
  return result;
}

}  // namespace

std::uint32_t exclusive_scan(const std::uint32_t* in, std::uint32_t* out, std::uint32_t n,
                             int threads) {
  if (n == 0) return 0;
  with_threads(threads, [&] { thrust::exclusive_scan(thrust::omp::par, in, in + n, out); });
  return out[n - 1] + in[n - 1];
}

float max_value(const float* in, std::uint32_t n, int threads) {
  return largest(in, n, threads);
}

std::uint32_t max_value(const std::uint32_t* in, std::uint32_t n, int threads) {
  return largest(in, n, threads);
}

}  // namespace drape::exec::thrust_omp
