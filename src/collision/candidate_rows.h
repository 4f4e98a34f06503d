// Fixed-capacity rows of candidate pairs on a launch layer, one per query, compacted into a list.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/pair_keys.h"

namespace drape {

// Candidate pairs of queries [0, n): query(i, row, capacity) writes up to `capacity` entries
// (partners of i, of type T) into its row and returns how many it found; rows that overflow make
// the capacity double and the pass run again. The counts' prefix sum then places every query's
// pairs in a list.
template <class Exec, class T>
class CandidateRows {
  template <class U>
  using Buffer = typename Exec::template Buffer<U>;

 public:
  void resize(std::uint32_t n) {
    m_n = n;
    m_counts.resize(n);
    m_offsets.resize(n);
  }

  // Returns the number of pairs.
  template <class Query>
  std::uint32_t gather(const Exec& exec, Query query) {
    std::uint32_t* counts = m_counts.data();
    for (;;) {
      m_rows.resize(static_cast<std::size_t>(m_n) * m_capacity);
      T* rows = m_rows.data();
      const std::uint32_t capacity = m_capacity;
      exec.for_each_uneven(0, m_n, [=] DRAPE_HD(std::uint32_t i) {
        counts[i] = query(i, rows + static_cast<std::size_t>(i) * capacity, capacity);
      });
      const std::uint32_t most = m_n > 0 ? exec.max_value(counts, m_n) : 0u;
      if (most <= m_capacity) break;
      while (m_capacity < most) m_capacity *= 2;
    }
    return exec.exclusive_scan(counts, m_offsets.data(), m_n);
  }

  // Calls make(i, entry, base + index in the list) for every pair. Rows are uneven (a fold's
  // vertices hold most pairs, in one run of the numbering), so threads take them as they finish.
  template <class Make>
  void emit(const Exec& exec, std::uint32_t base, Make make) {
    const std::uint32_t* counts = m_counts.data();
    const std::uint32_t* offsets = m_offsets.data();
    const T* rows = m_rows.data();
    const std::uint32_t capacity = m_capacity;
    exec.for_each_uneven(0, m_n, [=] DRAPE_HD(std::uint32_t i) {
      for (std::uint32_t j = 0; j < counts[i]; ++j) {
        make(i, rows[static_cast<std::size_t>(i) * capacity + j], base + offsets[i] + j);
      }
    });
  }

  kernels::PairRows<T> pairs() { return {m_rows.data(), m_counts.data(), m_capacity}; }

  // The pairs (query, entry) on the host, in list order.
  std::vector<std::pair<std::uint32_t, T>> download() const {
    std::vector<std::uint32_t> counts;
    std::vector<T> rows;
    m_counts.download(counts);
    m_rows.download(rows);
    std::vector<std::pair<std::uint32_t, T>> pairs;
    for (std::uint32_t i = 0; i < m_n; ++i) {
      for (std::uint32_t j = 0; j < counts[i]; ++j) {
        pairs.emplace_back(i, rows[static_cast<std::size_t>(i) * m_capacity + j]);
      }
    }
    return pairs;
  }

  std::size_t bytes() const { return m_counts.bytes() + m_offsets.bytes() + m_rows.bytes(); }

 private:
  std::uint32_t m_n = 0, m_capacity = 16;
  Buffer<std::uint32_t> m_counts, m_offsets;
  Buffer<T> m_rows;
};

}  // namespace drape
