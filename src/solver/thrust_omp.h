// Thrust's OpenMP system for the cpu backend, kept in one translation unit (thrust_omp.cpp): a
// sanitizer build runs it under AddressSanitizer only, since Thrust's tag dispatch upcasts null
// pointers to its system tags, which UBSan reports although nothing is dereferenced. Results do not
// depend on the thread count: the scan and the maximum are exact.
#pragma once

#include <cstdint>

namespace drape::exec::thrust_omp {

// out = exclusive prefix sum of in; returns the total.
std::uint32_t exclusive_scan(const std::uint32_t* in, std::uint32_t* out, std::uint32_t n,
                             int threads);

// The largest of in[0..n), or 0 when n = 0.
float max_value(const float* in, std::uint32_t n, int threads);
std::uint32_t max_value(const std::uint32_t* in, std::uint32_t n, int threads);

}  // namespace drape::exec::thrust_omp
