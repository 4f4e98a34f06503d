#include "model/stitches.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <queue>
#include <string_view>

#include <glm/geometric.hpp>

#include "drape/error.h"
#include "io/text_scan.h"

namespace drape {

std::vector<StitchDesc> read_stitch_lines(const std::string& path) {
  const std::string text = read_file(path);
  std::vector<StitchDesc> out;
  std::string_view rest = text;
  for (std::size_t line_no = 1; !rest.empty(); ++line_no) {
    const std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    if (next_token(line) != "stitch") continue;
    StitchDesc s;
    s.where = path + ":" + std::to_string(line_no);
    std::int64_t* indices[3] = {&s.v, &s.a, &s.b};
    bool ok = true;
    for (std::int64_t* i : indices) ok = ok && parse_int(next_token(line), *i) && *i >= 0;
    ok = ok && parse_double(next_token(line), s.t);
    skip_blanks(line);
    if (!ok || !(line.empty() || line == "\r")) {
      throw InputError(s.where +
                       ": expected 'stitch v a b t' (vertex indices from 0, t in [0, 1])");
    }
    out.push_back(std::move(s));
  }
  if (out.empty()) throw InputError(path + ": cloth.stitches: the file has no 'stitch' lines");
  return out;
}

StitchSet build_stitches(const ClothDesc& cloth, const std::vector<glm::dvec3>& positions,
                         const std::vector<double>& inv_mass) {
  const std::vector<StitchDesc> stitches =
      cloth.stitches_path.empty() ? cloth.stitches : read_stitch_lines(cloth.stitches_path);
  const auto n = static_cast<std::int64_t>(positions.size());
  StitchSet out;
  for (const StitchDesc& s : stitches) {
    const auto fail = [&](const std::string& what) {
      char t[32];
      std::snprintf(t, sizeof t, "%g", s.t);
      throw InputError(s.where + ": stitch " + std::to_string(s.v) + " " + std::to_string(s.a) +
                       " " + std::to_string(s.b) + " " + t + ": " + what);
    };
    for (std::int64_t i : {s.v, s.a, s.b}) {
      if (i >= n) {
        fail("vertex " + std::to_string(i) + " is past the last vertex (" + std::to_string(n - 1) +
             ")");
      }
    }
    if (!(s.t >= 0.0 && s.t <= 1.0)) fail("t must be in [0, 1]");
    if (s.v == s.a || s.v == s.b) fail("the vertex is sewn to an edge it is on");
    const auto v = static_cast<std::uint32_t>(s.v), a = static_cast<std::uint32_t>(s.a),
               b = static_cast<std::uint32_t>(s.b);
    if (inv_mass[v] + inv_mass[a] + inv_mass[b] <= 0.0) continue;
    out.v.push_back(v);
    out.a.push_back(a);
    out.b.push_back(b);
    out.t.push_back(a == b ? 0.0 : s.t);
    out.length.push_back(glm::length(positions[v] - out.target(out.size() - 1, positions)));
  }
  return out;
}

StitchGapStats stitch_gap(const StitchSet& stitches, const std::vector<glm::dvec3>& p) {
  StitchGapStats gap;
  for (std::size_t k = 0; k < stitches.size(); ++k) {
    const double d = glm::length(p[stitches.v[k]] - stitches.target(k, p));
    gap.max = std::max(gap.max, d);
    gap.mean += d;
  }
  if (stitches.size() > 0) gap.mean /= static_cast<double>(stitches.size());
  return gap;
}

}  // namespace drape

namespace drape {

bool SeamNeighbours::joined(std::uint32_t u, std::uint32_t w) const {
  if (vertices.empty() || u + 1 >= offsets.size()) return false;
  return std::binary_search(vertices.begin() + offsets[u], vertices.begin() + offsets[u + 1], w);
}

namespace {

std::vector<std::vector<std::uint32_t>> sorted_unique(
    std::vector<std::vector<std::uint32_t>> lists) {
  for (auto& list : lists) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return lists;
}

// The vertices of the triangles around each vertex (itself included), sorted.
std::vector<std::vector<std::uint32_t>> one_rings(const std::vector<glm::uvec3>& triangles,
                                                  std::size_t vertex_count) {
  std::vector<std::vector<std::uint32_t>> ring(vertex_count);
  for (const glm::uvec3& t : triangles) {
    for (int i = 0; i < 3; ++i) ring[t[i]].insert(ring[t[i]].end(), {t.x, t.y, t.z});
  }
  return sorted_unique(std::move(ring));
}

bool share_any(const std::vector<std::uint32_t>& x, const std::vector<std::uint32_t>& y) {
  auto i = x.begin();
  auto j = y.begin();
  while (i != x.end() && j != y.end()) {
    if (*i == *j) return true;
    *i < *j ? ++i : ++j;
  }
  return false;
}

}  // namespace

SeamNeighbours seam_neighbours(const StitchSet& stitches, const std::vector<glm::uvec3>& triangles,
                               std::size_t vertex_count) {
  SeamNeighbours out;
  if (stitches.size() == 0) return out;
  std::vector<std::vector<std::uint32_t>> direct(vertex_count);
  for (std::size_t k = 0; k < stitches.size(); ++k) {
    for (std::uint32_t end : {stitches.a[k], stitches.b[k]}) {
      direct[stitches.v[k]].push_back(end);
      direct[end].push_back(stitches.v[k]);
    }
  }
  direct = sorted_unique(std::move(direct));
  std::vector<std::vector<std::uint32_t>> lists = direct;
  for (std::size_t u = 0; u < vertex_count; ++u) {
    for (std::uint32_t w : direct[u]) {
      for (std::uint32_t x : direct[w]) {
        if (x != u) lists[u].push_back(x);
      }
    }
  }
  const std::vector<std::vector<std::uint32_t>> ring = one_rings(triangles, vertex_count);
  for (std::size_t k = 0; k < stitches.size(); ++k) {
    const std::uint32_t v = stitches.v[k];
    for (std::uint32_t end : {stitches.a[k], stitches.b[k]}) {
      if (!share_any(ring[v], ring[end])) continue;  // more than two edges apart
      for (std::uint32_t x : ring[v]) {
        for (std::uint32_t y : ring[end]) {
          if (x == y) continue;
          lists[x].push_back(y);
          lists[y].push_back(x);
        }
      }
    }
  }
  lists = sorted_unique(std::move(lists));
  out.offsets.push_back(0);
  for (const auto& list : lists) {
    out.vertices.insert(out.vertices.end(), list.begin(), list.end());
    out.offsets.push_back(static_cast<std::uint32_t>(out.vertices.size()));
  }
  return out;
}

SeamNeighbours sewn_surface_neighbours(const StitchSet& stitches, const Topology& topology,
                                       std::size_t vertex_count, double reach) {
  const std::size_t n = vertex_count;
  std::vector<std::vector<std::pair<std::uint32_t, double>>> adjacent(n);
  const auto link = [&](std::uint32_t u, std::uint32_t w, double length) {
    adjacent[u].push_back({w, length});
    adjacent[w].push_back({u, length});
  };
  std::vector<char> stitched(n, 0);
  for (std::size_t k = 0; k < stitches.size(); ++k) {
    link(stitches.v[k], stitches.a[k], 0.0);
    link(stitches.v[k], stitches.b[k], 0.0);
    stitched[stitches.v[k]] = stitched[stitches.a[k]] = stitched[stitches.b[k]] = 1;
  }
  for (std::size_t e = 0; e < topology.edge_count(); ++e) {
    const std::uint32_t u = topology.edge_v0[e], w = topology.edge_v1[e];
    const double length = topology.edge_rest_length[e];
    link(u, w, stitched[u] || stitched[w] ? std::min(length, reach) : length);
  }
  SeamNeighbours out;
  out.offsets.push_back(0);
  std::vector<double> distance(n, INFINITY);
  std::vector<std::uint32_t> reached;
  using Item = std::pair<double, std::uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  for (std::uint32_t source = 0; source < n; ++source) {
    distance[source] = 0.0;
    reached.assign(1, source);
    queue.push({0.0, source});
    while (!queue.empty()) {
      const auto [d, u] = queue.top();
      queue.pop();
      if (d > distance[u]) continue;
      for (const auto& [w, length] : adjacent[u]) {
        if (d + length <= reach && d + length < distance[w]) {
          if (distance[w] == INFINITY) reached.push_back(w);
          distance[w] = d + length;
          queue.push({distance[w], w});
        }
      }
    }
    for (std::uint32_t u : reached) distance[u] = INFINITY;
    std::sort(reached.begin(), reached.end());
    out.vertices.insert(out.vertices.end(), reached.begin(), reached.end());
    out.offsets.push_back(static_cast<std::uint32_t>(out.vertices.size()));
  }
  return out;
}

std::vector<glm::dvec3> sewn_positions(const StitchSet& stitches, std::vector<glm::dvec3> p,
                                       const std::vector<double>& inv_mass) {
  constexpr int kPasses = 100;
  for (int pass = 0; pass < kPasses; ++pass) {
    for (std::size_t k = 0; k < stitches.size(); ++k) {
      const std::uint32_t v = stitches.v[k], a = stitches.a[k], b = stitches.b[k];
      const double t = stitches.t[k];
      const double wv = inv_mass[v] > 0.0 ? 1.0 : 0.0, wa = inv_mass[a] > 0.0 ? 1.0 : 0.0,
                   wb = inv_mass[b] > 0.0 ? 1.0 : 0.0;
      const double w = wv + (1.0 - t) * (1.0 - t) * wa + t * t * wb;
      if (!(w > 0.0)) continue;
      const glm::dvec3 d = (p[v] - stitches.target(k, p)) / w;
      p[v] -= wv * d;
      p[a] += (1.0 - t) * wa * d;
      p[b] += t * wb * d;
    }
  }
  return p;
}

}  // namespace drape
