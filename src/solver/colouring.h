// Graph colouring of constraints into independent batches: no two constraints of one colour
// share a vertex, so a colour can be projected in parallel and the result does not depend on the
// order within it (Gauss-Seidel across colours, Jacobi-free within).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace drape {

struct Colouring {
  // Constraint indices (into the topology's arrays) sorted by colour; within a colour, in
  // increasing index order.
  std::vector<std::uint32_t> order;
  // colour c holds order[offsets[c] .. offsets[c + 1]); size colours + 1.
  std::vector<std::uint32_t> offsets;

  std::size_t colour_count() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  std::size_t colour_size(std::size_t c) const { return offsets[c + 1] - offsets[c]; }
};

// Colours `count` constraints of `arity` vertices each; vertices[k][i] is the k-th vertex of
// constraint i. Deterministic: a greedy pass in index order fixes the number of colours, then a
// second pass in the same order gives each constraint the admissible colour that holds the fewest
// constraints so far, which evens out the colour sizes (it opens a new colour only when every
// existing one is blocked).
Colouring colour_constraints(const std::vector<const std::uint32_t*>& vertices, std::size_t count,
                             std::size_t vertex_count);

// True when no two constraints of one colour share a vertex and every constraint appears once.
bool is_valid_colouring(const Colouring& colouring,
                        const std::vector<const std::uint32_t*>& vertices, std::size_t count);

// A launch layer's buffer filled with values[order[k]] for every k, converted to its type: the
// constraint arrays in colour order.
template <template <class> class Buffer, class T, class S>
void upload_in_order(const std::vector<std::uint32_t>& order, const std::vector<S>& values,
                     Buffer<T>& buffer) {
  std::vector<T> sorted(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) sorted[k] = static_cast<T>(values[order[k]]);
  buffer.upload(sorted);
}

struct Topology;

// The three constraint types of a cloth, coloured.
struct ClothColouring {
  Colouring stretch, bend, shear;
};

ClothColouring colour_cloth(const Topology& topology, std::size_t vertex_count);

}  // namespace drape
