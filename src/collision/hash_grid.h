// The hash grid of self-collision on a launch layer (kernels/hash_grid.h computes, this holds the
// buffers and runs the passes): bucket keys, a stable sort by key with Thrust, the sorted entries'
// spheres, and the run bounds of every bucket.
#pragma once

#include <cstdint>

#include <glm/vec4.hpp>

#include "kernels/hash_grid.h"

namespace drape {

template <class Exec>
class HashGrid {
  template <class T>
  using Buffer = typename Exec::template Buffer<T>;

 public:
  // Hashes items [0, n) by their bounding spheres sphere(i) (centre, radius), cells of `cell`.
  template <class Sphere>
  void build(const Exec& exec, std::uint32_t n, float cell, Sphere sphere) {
    std::uint32_t table = 1;
    while (table < 8 * n) table *= 2;
    m_keys.resize(n);
    m_items.resize(n);
    m_spheres.resize(n);
    m_runs.resize(table);
    m_view.inv_cell = 1.0f / cell;
    m_view.mask = table - 1;
    std::uint32_t* keys = m_keys.data();
    std::uint32_t* items = m_items.data();
    glm::vec4* spheres = m_spheres.data();
    glm::uvec2* runs = m_runs.data();
    const float inv_cell = m_view.inv_cell;
    const std::uint32_t mask = m_view.mask;
    exec.for_each(0, n, [=] DRAPE_HD(std::uint32_t i) {
      const glm::vec4 s = sphere(i);
      keys[i] = kernels::bucket_of(kernels::cell_of(glm::vec3(s.x, s.y, s.z), inv_cell), mask);
      items[i] = i;
    });
    exec.sort_pairs(keys, items, n);
    // The entries' spheres in sorted order, read in sequence by the queries.
    exec.for_each(0, n, [=] DRAPE_HD(std::uint32_t k) { spheres[k] = sphere(items[k]); });
    exec.for_each(0, table, [=] DRAPE_HD(std::uint32_t b) { runs[b].x = kernels::kNone; });
    exec.for_each(0, n, [=] DRAPE_HD(std::uint32_t i) { kernels::mark_run(i, keys, n, runs); });
    m_view.runs = runs;
    m_view.keys = keys;
    m_view.items = items;
    m_view.spheres = spheres;
  }

  const kernels::HashGridView& view() const { return m_view; }
  std::size_t bytes() const {
    return m_keys.bytes() + m_items.bytes() + m_spheres.bytes() + m_runs.bytes();
  }

 private:
  Buffer<std::uint32_t> m_keys, m_items;
  Buffer<glm::uvec2> m_runs;
  Buffer<glm::vec4> m_spheres;
  kernels::HashGridView m_view;
};

}  // namespace drape
