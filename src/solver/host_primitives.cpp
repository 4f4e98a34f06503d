#include "solver/host_primitives.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace drape::exec::host {

namespace {

// Below this many items one thread does the work: waking the team costs more.
constexpr std::uint32_t kParallelFrom = 4096;

int team_for(std::uint32_t n, int threads) {
  return n >= kParallelFrom && threads > 1 ? threads : 1;
}

// [begin, end) of part t of n split into `parts`.
std::pair<std::uint32_t, std::uint32_t> part(std::uint32_t n, int t, int parts) {
  const std::uint64_t size = n;
  return {static_cast<std::uint32_t>(size * t / parts),
          static_cast<std::uint32_t>(size * (t + 1) / parts)};
}

using Histogram = std::array<std::uint32_t, 256>;

}  // namespace

std::uint32_t select(const std::uint32_t* flags, std::uint32_t n, std::uint32_t* out, int threads) {
  const int team = team_for(n, threads);
  // Scratch kept between calls, as in sort_pairs (these run every contact pass). It belongs to
  // the calling thread, so the team reaches it through a pointer.
  thread_local std::vector<std::uint32_t> scratch;
  scratch.assign(static_cast<std::size_t>(team) + 1, 0);
  std::uint32_t* first = scratch.data();
  int used = 1;
#pragma omp parallel num_threads(team)
  {
    const int t = omp_get_thread_num(), parts = omp_get_num_threads();
#pragma omp single nowait
    used = parts;
    const auto [begin, end] = part(n, t, parts);
    std::uint32_t count = 0;
    for (std::uint32_t i = begin; i < end; ++i) count += flags[i] != 0u ? 1u : 0u;
    first[t + 1] = count;
#pragma omp barrier
#pragma omp single
    for (int k = 0; k < parts; ++k) first[k + 1] += first[k];
    std::uint32_t* o = out + first[t];
    for (std::uint32_t i = begin; i < end; ++i) {
      if (flags[i] != 0u) *o++ = i;
    }
  }
  return first[used];
}

void sort_pairs(std::uint32_t* keys, std::uint32_t* values, std::uint32_t n, int threads) {
  if (n < 2) return;
  const std::uint32_t most = *std::max_element(keys, keys + n);
  int digits = 0;
  while (digits < 4 && (most >> (8 * digits)) != 0u) ++digits;
  if (digits == 0) return;
  // Each pass moves the pairs between the caller's arrays and these; after an odd number of passes
  // they are copied back.
  thread_local std::vector<std::uint32_t> other_keys, other_values;
  if (other_keys.size() < n) {
    other_keys.resize(n);
    other_values.resize(n);
  }
  const int team = team_for(n, threads);
  thread_local std::vector<Histogram> histograms;
  if (histograms.size() < static_cast<std::size_t>(team)) {
    histograms.resize(static_cast<std::size_t>(team));
  }
  Histogram* counts = histograms.data();
  std::uint32_t *from_k = keys, *from_v = values, *to_k = other_keys.data(),
                *to_v = other_values.data();
  for (int digit = 0; digit < digits; ++digit) {
    const int shift = 8 * digit;
#pragma omp parallel num_threads(team)
    {
      const int t = omp_get_thread_num(), parts = omp_get_num_threads();
      const auto [begin, end] = part(n, t, parts);
      Histogram& mine = counts[t];
      mine.fill(0);
      for (std::uint32_t i = begin; i < end; ++i) ++mine[(from_k[i] >> shift) & 255u];
#pragma omp barrier
#pragma omp single
      {
        // Where each thread's run of each digit starts: digit by digit, thread by thread.
        std::uint32_t at = 0;
        for (int d = 0; d < 256; ++d) {
          for (int k = 0; k < parts; ++k) {
            const std::uint32_t c = counts[k][d];
            counts[k][d] = at;
            at += c;
          }
        }
      }
      for (std::uint32_t i = begin; i < end; ++i) {
        const std::uint32_t at = mine[(from_k[i] >> shift) & 255u]++;
        to_k[at] = from_k[i];
        to_v[at] = from_v[i];
      }
    }
    std::swap(from_k, to_k);
    std::swap(from_v, to_v);
  }
  if (from_k != keys) {
    std::copy(from_k, from_k + n, keys);
    std::copy(from_v, from_v + n, values);
  }
}

}  // namespace drape::exec::host
