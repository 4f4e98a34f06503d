#include "solver/colouring.h"

#include <algorithm>

#include "kernels/views.h"
#include "model/topology.h"

namespace drape {
namespace {

using kernels::kNone;

// Constraints, the vertices they touch, and the colour each one has so far.
class ConflictGraph {
 public:
  ConflictGraph(const std::vector<const std::uint32_t*>& vertices, std::size_t count,
                std::size_t vertex_count)
      : m_vertices(vertices), m_colour(count, kNone), m_first(vertex_count + 1, 0) {
    for (const std::uint32_t* vs : vertices) {
      for (std::size_t i = 0; i < count; ++i) ++m_first[vs[i] + 1];
    }
    for (std::size_t v = 0; v < vertex_count; ++v) m_first[v + 1] += m_first[v];
    m_incident.resize(m_first.back());
    std::vector<std::uint32_t> next(m_first.begin(), m_first.end() - 1);
    for (std::size_t i = 0; i < count; ++i) {
      for (const std::uint32_t* vs : vertices)
        m_incident[next[vs[i]]++] = static_cast<std::uint32_t>(i);
    }
  }

  std::size_t size() const { return m_colour.size(); }
  std::uint32_t colour(std::size_t i) const { return m_colour[i]; }
  void set_colour(std::size_t i, std::uint32_t c) { m_colour[i] = c; }

  // Calls f(j) for every other constraint j sharing a vertex with i (j may repeat).
  template <class F>
  void for_each_neighbour(std::size_t i, F f) const {
    for (const std::uint32_t* vs : m_vertices) {
      const std::uint32_t v = vs[i];
      for (std::uint32_t k = m_first[v]; k < m_first[v + 1]; ++k) {
        if (m_incident[k] != i) f(m_incident[k]);
      }
    }
  }

  // blocked[c] != stamp afterwards means colour c is free for i.
  void mark_blocked(std::size_t i, std::vector<std::uint32_t>& blocked, std::uint32_t stamp) const {
    for_each_neighbour(i, [&](std::uint32_t j) {
      const std::uint32_t c = m_colour[j];
      if (c == kNone) return;
      if (c >= blocked.size()) blocked.resize(c + 1, 0);
      blocked[c] = stamp;
    });
  }

 private:
  const std::vector<const std::uint32_t*>& m_vertices;
  std::vector<std::uint32_t> m_colour;
  std::vector<std::uint32_t> m_first, m_incident;
};

class Colourer {
 public:
  explicit Colourer(ConflictGraph& g) : m_graph(g) {}

  std::uint32_t greedy(const std::vector<std::uint32_t>& order) {
    std::uint32_t colours = 0;
    for (std::uint32_t i : order) {
      const std::uint32_t c = first_free(i, 0, kNone);
      m_graph.set_colour(i, c);
      colours = std::max(colours, c + 1);
    }
    return colours;
  }

  // Tries to empty the highest colour: each of its constraints moves to a lower colour where it
  // is free, or where a single constraint blocks it and that one can be moved on in turn (a chain
  // of up to kDepth moves). A search budget bounds the work on meshes where no colour can go.
  bool remove_top_colour(std::uint32_t colours) {
    const std::uint32_t top = colours - 1;
    m_budget = 4'000'000;
    for (std::size_t i = 0; i < m_graph.size(); ++i) {
      if (m_graph.colour(i) == top && !recolour(i, top, kDepth)) return false;
    }
    return true;
  }

  // Moves constraints out of crowded colours into admissible colours with fewer members, in
  // passes over all constraints until a pass moves nothing (or a few passes are done).
  void balance(std::uint32_t colours) {
    std::vector<std::size_t> sizes(colours, 0);
    for (std::size_t i = 0; i < m_graph.size(); ++i) ++sizes[m_graph.colour(i)];
    for (int pass = 0; pass < 4; ++pass) {
      if (!balance_pass(sizes)) break;
    }
  }

 private:
  bool balance_pass(std::vector<std::size_t>& sizes) {
    const auto colours = static_cast<std::uint32_t>(sizes.size());
    bool moved = false;
    for (std::size_t i = 0; i < m_graph.size(); ++i) {
      const std::uint32_t from = m_graph.colour(i);
      const std::uint32_t stamp = next_stamp();
      m_graph.mark_blocked(i, m_blocked, stamp);
      std::uint32_t best = from;
      for (std::uint32_t c = 0; c < colours; ++c) {
        if (c < m_blocked.size() && m_blocked[c] == stamp) continue;
        if (sizes[c] + 1 < sizes[best]) best = c;
      }
      if (best == from) continue;
      m_graph.set_colour(i, best);
      --sizes[from];
      ++sizes[best];
      moved = true;
    }
    return moved;
  }

  std::uint32_t next_stamp() { return ++m_stamp; }

  // The smallest colour >= from that no neighbour of i uses, skipping `skip`.
  std::uint32_t first_free(std::size_t i, std::uint32_t from, std::uint32_t skip) {
    const std::uint32_t stamp = next_stamp();
    m_graph.mark_blocked(i, m_blocked, stamp);
    std::uint32_t c = from;
    while ((c < m_blocked.size() && m_blocked[c] == stamp) || c == skip) ++c;
    return c;
  }

  // Gives i a colour below `top` other than its own, recolouring at most `depth` blockers in a
  // chain. On failure every colour is as it was.
  bool recolour(std::size_t i, std::uint32_t top, int depth) {
    const std::uint32_t old = m_graph.colour(i);
    for (std::uint32_t c = 0; c < top; ++c) {
      if (c == old || m_budget == 0) continue;
      --m_budget;
      std::uint32_t blocker = kNone;
      bool single = true;
      m_graph.for_each_neighbour(i, [&](std::uint32_t j) {
        if (m_graph.colour(j) != c) return;
        if (blocker != kNone && blocker != j) single = false;
        blocker = j;
      });
      if (blocker == kNone) {
        m_graph.set_colour(i, c);
        return true;
      }
      if (!single || depth == 0) continue;
      m_graph.set_colour(i, c);
      if (recolour(blocker, top, depth - 1)) return true;
      m_graph.set_colour(i, old);
    }
    return false;
  }

  static constexpr int kDepth = 3;
  ConflictGraph& m_graph;
  std::vector<std::uint32_t> m_blocked;
  std::uint32_t m_stamp = 0;
  std::size_t m_budget = 0;
};

}  // namespace

Colouring colour_constraints(const std::vector<const std::uint32_t*>& vertices, std::size_t count,
                             std::size_t vertex_count) {
  ConflictGraph graph(vertices, count, vertex_count);
  Colourer colourer(graph);
  std::vector<std::uint32_t> order(count);
  for (std::size_t i = 0; i < count; ++i) order[i] = static_cast<std::uint32_t>(i);
  std::uint32_t colours = count > 0 ? colourer.greedy(order) : 0;
  while (colours > 1 && colourer.remove_top_colour(colours)) --colours;
  colourer.balance(colours);

  Colouring out;
  out.offsets.assign(colours + 1, 0);
  for (std::size_t i = 0; i < count; ++i) ++out.offsets[graph.colour(i) + 1];
  for (std::uint32_t c = 0; c < colours; ++c) out.offsets[c + 1] += out.offsets[c];
  out.order.resize(count);
  std::vector<std::uint32_t> next(out.offsets.begin(), out.offsets.end() - 1);
  for (std::size_t i = 0; i < count; ++i) {
    out.order[next[graph.colour(i)]++] = static_cast<std::uint32_t>(i);
  }
  return out;
}

bool is_valid_colouring(const Colouring& colouring,
                        const std::vector<const std::uint32_t*>& vertices, std::size_t count) {
  if (colouring.order.size() != count || colouring.offsets.empty() ||
      colouring.offsets.back() != count) {
    return false;
  }
  std::vector<bool> seen(count, false);
  std::vector<std::size_t> last_colour_of_vertex;
  for (std::size_t c = 0; c < colouring.colour_count(); ++c) {
    for (std::uint32_t k = colouring.offsets[c]; k < colouring.offsets[c + 1]; ++k) {
      const std::uint32_t i = colouring.order[k];
      if (i >= count || seen[i]) return false;
      seen[i] = true;
      for (const std::uint32_t* vs : vertices) {
        const std::uint32_t v = vs[i];
        if (v >= last_colour_of_vertex.size()) {
          last_colour_of_vertex.resize(v + 1, std::numeric_limits<std::size_t>::max());
        }
        if (last_colour_of_vertex[v] == c) return false;
        last_colour_of_vertex[v] = c;
      }
    }
  }
  return true;
}

ClothColouring colour_cloth(const Topology& t, std::size_t vertex_count) {
  ClothColouring out;
  out.stretch =
      colour_constraints({t.edge_v0.data(), t.edge_v1.data()}, t.edge_count(), vertex_count);
  out.bend =
      colour_constraints({t.bend_v1.data(), t.bend_v2.data(), t.bend_v3.data(), t.bend_v4.data()},
                         t.bend_count(), vertex_count);
  out.shear =
      colour_constraints({t.bend_v3.data(), t.bend_v4.data()}, t.bend_count(), vertex_count);
  return out;
}

}  // namespace drape
