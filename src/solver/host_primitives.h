// Compaction and key sort for the cpu backend, written for OpenMP host threads
// (host_primitives.cpp): Thrust's OpenMP system did both with temporary allocations and, for the
// sort, on one thread (a select over the 250k self-collision contacts of the 256² benchmark took
// 0.3 ms). Results do not depend on the thread count: the selection is ascending and the sort is
// stable.
#pragma once

#include <cstdint>

namespace drape::exec::host {

// Writes the indices i with flags[i] != 0 to out, ascending; returns how many.
std::uint32_t select(const std::uint32_t* flags, std::uint32_t n, std::uint32_t* out, int threads);

// Sorts (keys, values) by key, equal keys keeping their order (least significant digit first,
// only as many 8-bit digits as the largest key has).
void sort_pairs(std::uint32_t* keys, std::uint32_t* values, std::uint32_t n, int threads);

}  // namespace drape::exec::host
