// Thrust's OpenMP system for the cpu backend, kept in one translation unit (thrust_omp.cpp): a
// sanitizer build runs it under AddressSanitizer only, since Thrust's tag dispatch upcasts null
// pointers to its system tags, which UBSan reports although nothing is dereferenced. Results do not
// depend on the thread count: the sort is stable, the scan and the maximum are exact.
#pragma once

#include <cstdint>

namespace drape::exec::thrust_omp {

// Sorts (keys, values) by key, equal keys keeping their order.
void sort_pairs(std::uint32_t* keys, std::uint32_t* values, std::uint32_t n, int threads);

// out = exclusive prefix sum of in; returns the total.
std::uint32_t exclusive_scan(const std::uint32_t* in, std::uint32_t* out, std::uint32_t n,
                             int threads);

// Writes the indices i with flags[i] != 0 to out, ascending; returns how many.
std::uint32_t select(const std::uint32_t* flags, std::uint32_t n, std::uint32_t* out, int threads);

// The largest of in[0..n), or 0 when n = 0.
float max_value(const float* in, std::uint32_t n, int threads);
std::uint32_t max_value(const std::uint32_t* in, std::uint32_t n, int threads);

}  // namespace drape::exec::thrust_omp
