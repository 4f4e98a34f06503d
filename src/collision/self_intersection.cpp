#include "collision/self_intersection.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>

#include <glm/common.hpp>

namespace drape {

namespace {

// Exact predicates: coordinates are snapped to an integer grid of 2^-31 of the mesh's extent
// (about half a nanometre for a 1 m cloth), and every sign below is computed exactly in 128-bit
// integers, so no configuration is misjudged by rounding.
using P3 = std::array<std::int64_t, 3>;
__extension__ typedef __int128 Int128;

int sign(Int128 x) {
  return (x > 0) - (x < 0);
}

// The side of d relative to the plane of abc: +1 above (abc counter-clockwise seen from d), -1
// below, 0 in the plane.
int orient(const P3& a, const P3& b, const P3& c, const P3& d) {
  const Int128 bx = b[0] - a[0], by = b[1] - a[1], bz = b[2] - a[2];
  const Int128 cx = c[0] - a[0], cy = c[1] - a[1], cz = c[2] - a[2];
  const Int128 dx = d[0] - a[0], dy = d[1] - a[1], dz = d[2] - a[2];
  return sign(dx * (by * cz - bz * cy) + dy * (bz * cx - bx * cz) + dz * (bx * cy - by * cx));
}

// Segment pq against triangle t, p and q not both in its plane.
bool segment_meets_triangle(const P3& p, const P3& q, const P3 t[3]) {
  const int sp = orient(t[0], t[1], t[2], p), sq = orient(t[0], t[1], t[2], q);
  if (sp * sq > 0 || (sp == 0 && sq == 0)) return false;
  const int s0 = orient(p, q, t[0], t[1]);
  const int s1 = orient(p, q, t[1], t[2]);
  const int s2 = orient(p, q, t[2], t[0]);
  return (s0 >= 0 && s1 >= 0 && s2 >= 0) || (s0 <= 0 && s1 <= 0 && s2 <= 0);
}

using P2 = std::array<std::int64_t, 2>;

int cross2(const P2& o, const P2& a, const P2& b) {
  return sign(static_cast<Int128>(a[0] - o[0]) * (b[1] - o[1]) -
              static_cast<Int128>(a[1] - o[1]) * (b[0] - o[0]));
}

bool on_segment2(const P2& p, const P2& q, const P2& r) {
  return std::min(p[0], q[0]) <= r[0] && r[0] <= std::max(p[0], q[0]) &&
         std::min(p[1], q[1]) <= r[1] && r[1] <= std::max(p[1], q[1]);
}

bool segments_meet2(const P2& p1, const P2& p2, const P2& q1, const P2& q2) {
  const int d1 = cross2(q1, q2, p1), d2 = cross2(q1, q2, p2);
  const int d3 = cross2(p1, p2, q1), d4 = cross2(p1, p2, q2);
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  return (d1 == 0 && on_segment2(q1, q2, p1)) || (d2 == 0 && on_segment2(q1, q2, p2)) ||
         (d3 == 0 && on_segment2(p1, p2, q1)) || (d4 == 0 && on_segment2(p1, p2, q2));
}

bool inside2(const P2 t[3], const P2& p) {
  const int s0 = cross2(t[0], t[1], p), s1 = cross2(t[1], t[2], p), s2 = cross2(t[2], t[0], p);
  return (s0 >= 0 && s1 >= 0 && s2 >= 0) || (s0 <= 0 && s1 <= 0 && s2 <= 0);
}

// (t1 - t0) x (t2 - t0), exactly.
std::array<Int128, 3> normal(const P3 t[3]) {
  const Int128 ux = t[1][0] - t[0][0], uy = t[1][1] - t[0][1], uz = t[1][2] - t[0][2];
  const Int128 vx = t[2][0] - t[0][0], vy = t[2][1] - t[0][1], vz = t[2][2] - t[0][2];
  return {uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx};
}

// Two triangles of one plane: in 2D, dropping the axis of the normal's largest component.
bool coplanar_meet(const P3 a[3], const P3 b[3]) {
  std::array<Int128, 3> n = normal(a);
  for (Int128& c : n) c = c < 0 ? -c : c;
  const int drop = n[0] >= n[1] && n[0] >= n[2] ? 0 : (n[1] >= n[2] ? 1 : 2);
  const int u = drop == 0 ? 1 : 0, v = drop == 2 ? 1 : 2;
  P2 pa[3], pb[3];
  for (int i = 0; i < 3; ++i) {
    pa[i] = {a[i][u], a[i][v]};
    pb[i] = {b[i][u], b[i][v]};
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      if (segments_meet2(pa[i], pa[(i + 1) % 3], pb[j], pb[(j + 1) % 3])) return true;
    }
  }
  return inside2(pa, pb[0]) || inside2(pb, pa[0]);
}

bool meet(const P3 a[3], const P3 b[3]) {
  if (orient(a[0], a[1], a[2], b[0]) == 0 && orient(a[0], a[1], a[2], b[1]) == 0 &&
      orient(a[0], a[1], a[2], b[2]) == 0) {
    return coplanar_meet(a, b);
  }
  for (int i = 0; i < 3; ++i) {
    if (segment_meets_triangle(a[i], a[(i + 1) % 3], b)) return true;
    if (segment_meets_triangle(b[i], b[(i + 1) % 3], a)) return true;
  }
  return false;
}

bool collinear(const P3 t[3]) {
  const std::array<Int128, 3> n = normal(t);
  return n[0] == 0 && n[1] == 0 && n[2] == 0;
}

// The snapping of a set of points: p -> round((p - origin) / unit).
struct Grid {
  glm::dvec3 origin{0.0};
  double unit = 1.0;

  P3 operator()(const glm::dvec3& p) const {
    return {std::llround((p.x - origin.x) / unit), std::llround((p.y - origin.y) / unit),
            std::llround((p.z - origin.z) / unit)};
  }
};

Grid snapping(const glm::dvec3* p, std::size_t n) {
  glm::dvec3 lo(INFINITY), hi(-INFINITY);
  for (std::size_t i = 0; i < n; ++i) {
    lo = glm::min(lo, p[i]);
    hi = glm::max(hi, p[i]);
  }
  const glm::dvec3 span = hi - lo;
  const double extent = std::max({span.x, span.y, span.z});
  return {lo, extent > 0.0 ? extent / 2147483648.0 : 1.0};
}

struct Box {
  P3 lo, hi;
};

}  // namespace

bool triangles_intersect(const glm::dvec3 a[3], const glm::dvec3 b[3]) {
  const glm::dvec3 all[6] = {a[0], a[1], a[2], b[0], b[1], b[2]};
  const Grid grid = snapping(all, 6);
  const P3 pa[3] = {grid(a[0]), grid(a[1]), grid(a[2])};
  const P3 pb[3] = {grid(b[0]), grid(b[1]), grid(b[2])};
  if (collinear(pa) || collinear(pb)) return false;
  return meet(pa, pb);
}

SelfIntersections find_self_intersections(const std::vector<glm::dvec3>& positions,
                                          const std::vector<glm::uvec3>& triangles, int threads,
                                          const SeamNeighbours* seams) {
  SelfIntersections found;
  if (positions.empty()) return found;
  const Grid grid = snapping(positions.data(), positions.size());
  std::vector<P3> q(positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i) q[i] = grid(positions[i]);

  std::vector<std::uint32_t> live;
  std::vector<Box> boxes(triangles.size());
  std::int64_t extent = 0;
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    const glm::uvec3 v = triangles[t];
    const P3 p[3] = {q[v.x], q[v.y], q[v.z]};
    if (v.x == v.y || v.y == v.z || v.x == v.z || collinear(p)) continue;
    Box& b = boxes[t];
    for (int k = 0; k < 3; ++k) {
      b.lo[k] = std::min({p[0][k], p[1][k], p[2][k]});
      b.hi[k] = std::max({p[0][k], p[1][k], p[2][k]});
      extent += b.hi[k] - b.lo[k];
    }
    live.push_back(static_cast<std::uint32_t>(t));
  }
  if (live.size() < 2) return found;
  // Cells twice the mean box size, at most 2^20 along an axis (coordinates are below 2^31).
  const std::int64_t cell = std::max<std::int64_t>(
      {2 * extent / (3 * static_cast<std::int64_t>(live.size())), std::int64_t{1} << 11, 1});
  const auto key = [cell](const P3& p) {
    return (static_cast<std::uint64_t>(p[0] / cell) << 42) |
           (static_cast<std::uint64_t>(p[1] / cell) << 21) |
           static_cast<std::uint64_t>(p[2] / cell);
  };

  std::vector<std::pair<std::uint64_t, std::uint32_t>> binned;
  for (std::uint32_t t : live) {
    const Box& b = boxes[t];
    for (std::int64_t x = b.lo[0] / cell; x <= b.hi[0] / cell; ++x) {
      for (std::int64_t y = b.lo[1] / cell; y <= b.hi[1] / cell; ++y) {
        for (std::int64_t z = b.lo[2] / cell; z <= b.hi[2] / cell; ++z) {
          binned.emplace_back(key({x * cell, y * cell, z * cell}), t);
        }
      }
    }
  }
  std::sort(binned.begin(), binned.end());
  std::vector<std::size_t> runs;
  for (std::size_t i = 0; i < binned.size(); ++i) {
    if (i == 0 || binned[i].first != binned[i - 1].first) runs.push_back(i);
  }
  runs.push_back(binned.size());

  const auto sewn = [seams](const glm::uvec3& a, const glm::uvec3& b) {
    if (seams == nullptr || seams->empty()) return false;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        if (seams->joined(a[i], b[j])) return true;
      }
    }
    return false;
  };
  const auto n_runs = static_cast<std::int64_t>(runs.size()) - 1;
  const int team = threads > 0 ? threads : omp_get_num_procs();
  std::vector<SelfIntersections> per_run(
      static_cast<std::size_t>(std::max<std::int64_t>(n_runs, 0)));
#pragma omp parallel for schedule(dynamic, 64) num_threads(team)
  for (std::int64_t r = 0; r < n_runs; ++r) {
    SelfIntersections& out = per_run[static_cast<std::size_t>(r)];
    const std::uint64_t this_cell = binned[runs[r]].first;
    for (std::size_t i = runs[r]; i < runs[r + 1]; ++i) {
      const std::uint32_t s = binned[i].second;
      const glm::uvec3 vs = triangles[s];
      for (std::size_t j = i + 1; j < runs[r + 1]; ++j) {
        const std::uint32_t t = binned[j].second;
        const glm::uvec3 vt = triangles[t];
        if (vs.x == vt.x || vs.x == vt.y || vs.x == vt.z || vs.y == vt.x || vs.y == vt.y ||
            vs.y == vt.z || vs.z == vt.x || vs.z == vt.y || vs.z == vt.z || sewn(vs, vt)) {
          continue;
        }
        const Box& a = boxes[s];
        const Box& b = boxes[t];
        P3 overlap;
        bool apart = false;
        for (int k = 0; k < 3; ++k) {
          overlap[k] = std::max(a.lo[k], b.lo[k]);
          apart = apart || overlap[k] > std::min(a.hi[k], b.hi[k]);
        }
        // A pair shares every cell of its boxes' overlap; it is tested in the first of them.
        if (apart || key(overlap) != this_cell) continue;
        const P3 ps[3] = {q[vs.x], q[vs.y], q[vs.z]};
        const P3 pt[3] = {q[vt.x], q[vt.y], q[vt.z]};
        if (!meet(ps, pt)) continue;
        out.pairs.emplace_back(s, t);
        for (int k = 0; k < 3; ++k) {
          if (segment_meets_triangle(ps[k], ps[(k + 1) % 3], pt)) {
            out.piercings.push_back({vs[k], vs[(k + 1) % 3], t});
          }
          if (segment_meets_triangle(pt[k], pt[(k + 1) % 3], ps)) {
            out.piercings.push_back({vt[k], vt[(k + 1) % 3], s});
          }
        }
      }
    }
  }
  // In run order: the same lists on any number of threads.
  for (SelfIntersections& run : per_run) {
    found.pairs.insert(found.pairs.end(), run.pairs.begin(), run.pairs.end());
    found.piercings.insert(found.piercings.end(), run.piercings.begin(), run.piercings.end());
  }
  return found;
}

std::uint64_t count_self_intersections(const std::vector<glm::dvec3>& positions,
                                       const std::vector<glm::uvec3>& triangles, int threads,
                                       const SeamNeighbours* seams) {
  return find_self_intersections(positions, triangles, threads, seams).pairs.size();
}

}  // namespace drape
