// The cpu backend's compaction and key sort (solver/host_primitives.h) against serial loops and
// std::stable_sort, on one and several threads, below and above the size that wakes the team.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "solver/host_primitives.h"

namespace drape {
namespace {

const std::uint32_t kSizes[] = {0, 1, 2, 100, 4095, 4096, 4097, 250000};
const int kThreads[] = {1, 2, 4};

TEST(HostPrimitives, SelectListsTheFlaggedIndicesAscending) {
  std::mt19937 rng(3);
  for (const std::uint32_t n : kSizes) {
    for (const double share : {0.0, 0.03, 0.5, 1.0}) {
      std::bernoulli_distribution flagged(share);
      std::vector<std::uint32_t> flags(n);
      // Any nonzero value counts as set.
      for (std::uint32_t& f : flags)
        f = flagged(rng) ? 1u + static_cast<std::uint32_t>(rng() % 7u) : 0u;
      std::vector<std::uint32_t> expected;
      for (std::uint32_t i = 0; i < n; ++i) {
        if (flags[i] != 0u) expected.push_back(i);
      }
      for (const int threads : kThreads) {
        std::vector<std::uint32_t> out(n + 1, 0xdeadbeefu);
        const std::uint32_t count = exec::host::select(flags.data(), n, out.data(), threads);
        ASSERT_EQ(count, expected.size()) << n << " items, " << threads << " threads";
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), out.begin()))
            << n << " items, " << threads << " threads";
        EXPECT_EQ(out[count], 0xdeadbeefu) << "nothing written past the count";
      }
    }
  }
}

TEST(HostPrimitives, SortPairsIsAStableSortByKey) {
  std::mt19937 rng(5);
  // Keys of one to four bytes, and all equal (no digit to sort on).
  for (const std::uint32_t most : {0u, 200u, 70000u, 0xffffffffu}) {
    for (const std::uint32_t n : kSizes) {
      std::uniform_int_distribution<std::uint32_t> key(0, most);
      std::vector<std::uint32_t> keys(n), values(n);
      for (std::uint32_t& k : keys) k = key(rng);
      std::iota(values.begin(), values.end(), 0u);
      std::vector<std::pair<std::uint32_t, std::uint32_t>> expected(n);
      for (std::uint32_t i = 0; i < n; ++i) expected[i] = {keys[i], values[i]};
      std::stable_sort(expected.begin(), expected.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (const int threads : kThreads) {
        std::vector<std::uint32_t> k = keys, v = values;
        exec::host::sort_pairs(k.data(), v.data(), n, threads);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> got(n);
        for (std::uint32_t i = 0; i < n; ++i) got[i] = {k[i], v[i]};
        EXPECT_EQ(got, expected) << n << " keys up to " << most << ", " << threads << " threads";
      }
    }
  }
}

}  // namespace
}  // namespace drape
