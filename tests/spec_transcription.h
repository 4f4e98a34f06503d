// A line-by-line transcription of the spec's Python prototype (spec sections 1.1-1.3 and 2),
// independent of drape's own preprocessing and solver, in double precision. It exists only to
// check that the reference backend is faithful to the spec. Deliberate differences from the
// Python, each one a decision of the design doc: k' uses the iteration count, and d is clamped
// before arccos and sqrt(1 - d^2). Operations are evaluated in the order numpy evaluates the
// Python expressions (left to right, division where the Python divides): the spec's bend skips a
// pair when sum w|q|^2 < EPSILON, and a nearly flat pair sits at that threshold, so a difference
// of one rounding can switch a correction of ~1e-5 m on or off.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace spec {

using Vec = std::array<double, 3>;

inline Vec add(Vec a, Vec b) {
  return {a[0] + b[0], a[1] + b[1], a[2] + b[2]};
}
inline Vec sub(Vec a, Vec b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
inline Vec mul(Vec a, double s) {
  return {a[0] * s, a[1] * s, a[2] * s};
}
inline Vec div(Vec a, double s) {
  return {a[0] / s, a[1] / s, a[2] / s};
}
inline Vec neg(Vec a) {
  return {-a[0], -a[1], -a[2]};
}
inline double dot(Vec a, Vec b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
inline double norm(Vec a) {
  return std::sqrt(dot(a, a));
}
inline Vec cross(Vec a, Vec b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

struct Cloth {
  std::vector<Vec> pos, vel, predicted_pos;
  std::vector<double> inv_mass;
  std::vector<int> stretch_edge_v0, stretch_edge_v1;
  std::vector<double> rest_lengths;
  std::vector<int> bend_shared_edge_v0, bend_shared_edge_v1;
  std::vector<int> bend_non_shared_edge_v0, bend_non_shared_edge_v1;
  std::vector<double> rest_angles, shear_lengths;
};

// Section 1: preprocessing, with a Python dict's insertion order kept by `order`.
inline Cloth preprocess(const std::vector<Vec>& points,
                        const std::vector<std::array<int, 3>>& prims,
                        const std::set<int>& fixed_points) {
  Cloth c;
  c.pos = points;
  c.vel.assign(points.size(), Vec{0, 0, 0});
  c.inv_mass.assign(points.size(), 1.0);
  for (int p : fixed_points) c.inv_mass[p] = 0.0;

  std::set<std::pair<int, int>> seen_edges;
  for (const auto& pts : prims) {
    for (int i = 0; i < 3; ++i) {
      const int p0 = pts[i], p1 = pts[(i + 1) % 3];
      const std::pair<int, int> edge{std::min(p0, p1), std::max(p0, p1)};
      if (seen_edges.count(edge)) continue;
      seen_edges.insert(edge);
      c.stretch_edge_v0.push_back(edge.first);
      c.stretch_edge_v1.push_back(edge.second);
      c.rest_lengths.push_back(norm(sub(points[p0], points[p1])));
    }
  }

  std::map<std::pair<int, int>, std::vector<int>> edge_to_opposite_vertex;
  std::vector<std::pair<int, int>> order;
  for (const auto& pts : prims) {
    for (int i = 0; i < 3; ++i) {
      const int p0 = pts[i], p1 = pts[(i + 1) % 3], p2 = pts[(i + 2) % 3];
      const std::pair<int, int> edge{std::min(p0, p1), std::max(p0, p1)};
      if (!edge_to_opposite_vertex.count(edge)) order.push_back(edge);
      edge_to_opposite_vertex[edge].push_back(p2);
    }
  }
  for (const auto& edge : order) {
    const std::vector<int>& wings = edge_to_opposite_vertex[edge];
    if (wings.size() != 2) continue;
    const int p1 = edge.first, p2 = edge.second;
    const int p3 = std::min(wings[0], wings[1]), p4 = std::max(wings[0], wings[1]);
    c.bend_shared_edge_v0.push_back(p1);
    c.bend_shared_edge_v1.push_back(p2);
    c.bend_non_shared_edge_v0.push_back(p3);
    c.bend_non_shared_edge_v1.push_back(p4);
    const Vec e0 = sub(points[p2], points[p1]), e1 = sub(points[p3], points[p1]),
              e2 = sub(points[p4], points[p1]);
    Vec n1 = cross(e0, e1);
    n1 = div(n1, norm(n1));
    Vec n2 = cross(e0, e2);
    n2 = div(n2, norm(n2));
    c.rest_angles.push_back(std::acos(std::clamp(dot(n1, n2), -1.0, 1.0)));
    c.shear_lengths.push_back(norm(sub(points[p3], points[p4])));
  }
  return c;
}

struct Settings {
  int substeps = 4, iterations = 10;
  double fps = 24, damping = 0.99;
  double k_stretch = 1, k_shear = 1, k_bend = 0.1;
  Vec gravity{0, -9.81, 0}, wind{0, 0, 0};
};

constexpr double EPSILON = 1e-9;

inline void project_stretch_constraints(Cloth& c, const Settings& s) {
  const double k_prime = 1 - std::pow(1 - s.k_stretch, 1.0 / s.iterations);
  std::vector<Vec>& pos = c.predicted_pos;
  for (std::size_t i = 0; i < c.stretch_edge_v0.size(); ++i) {
    const int idx0 = c.stretch_edge_v0[i], idx1 = c.stretch_edge_v1[i];
    const Vec p0 = pos[idx0], p1 = pos[idx1];
    const double w0 = c.inv_mass[idx0], w1 = c.inv_mass[idx1];
    if ((w0 + w1) < EPSILON) continue;
    const double length = norm(sub(p0, p1));
    const double diff = length - c.rest_lengths[i];
    const Vec n = div(sub(p0, p1), length + EPSILON);
    pos[idx0] = add(pos[idx0], mul(mul(n, -w0 / (w0 + w1) * diff), k_prime));
    pos[idx1] = add(pos[idx1], mul(mul(n, w1 / (w0 + w1) * diff), k_prime));
  }
}

inline void project_bend_constraints(Cloth& c, const Settings& s) {
  const double k_prime = 1 - std::pow(1 - s.k_bend, 1.0 / s.iterations);
  std::vector<Vec>& pos = c.predicted_pos;
  for (std::size_t i = 0; i < c.bend_shared_edge_v0.size(); ++i) {
    const int idx1 = c.bend_shared_edge_v0[i], idx2 = c.bend_shared_edge_v1[i];
    const int idx3 = c.bend_non_shared_edge_v0[i], idx4 = c.bend_non_shared_edge_v1[i];
    const Vec p1 = pos[idx1], p2 = pos[idx2], p3 = pos[idx3], p4 = pos[idx4];
    const double w1 = c.inv_mass[idx1], w2 = c.inv_mass[idx2], w3 = c.inv_mass[idx3],
                 w4 = c.inv_mass[idx4];
    const Vec e2 = sub(p2, p1), e3 = sub(p3, p1), e4 = sub(p4, p1);
    const Vec n1 = div(cross(e2, e3), norm(cross(e2, e3)) + EPSILON);
    const Vec n2 = div(cross(e2, e4), norm(cross(e2, e4)) + EPSILON);
    const double d = dot(n1, n2);
    const double dc = std::clamp(d, -1.0, 1.0);
    const double diff_angle = std::acos(dc) - c.rest_angles[i];
    const Vec q3 = div(add(cross(e2, n2), mul(cross(n1, e2), d)), norm(cross(e2, e3)) + EPSILON);
    const Vec q4 = div(add(cross(e2, n1), mul(cross(n2, e2), d)), norm(cross(e2, e4)) + EPSILON);
    const Vec q2 =
        sub(div(neg(add(cross(e3, n2), mul(cross(n1, e3), d))), norm(cross(e2, e3)) + EPSILON),
            div(add(cross(e4, n1), mul(cross(n2, e4), d)), norm(cross(e2, e4)) + EPSILON));
    const Vec q1 = sub(sub(neg(q2), q3), q4);
    const double denom = w1 * dot(q1, q1) + w2 * dot(q2, q2) + w3 * dot(q3, q3) + w4 * dot(q4, q4);
    if (denom < EPSILON) continue;
    const double coeff = (std::sqrt(1 - dc * dc) * diff_angle / denom) * k_prime;
    pos[idx1] = sub(pos[idx1], mul(mul(q1, w1), coeff));
    pos[idx2] = sub(pos[idx2], mul(mul(q2, w2), coeff));
    pos[idx3] = sub(pos[idx3], mul(mul(q3, w3), coeff));
    pos[idx4] = sub(pos[idx4], mul(mul(q4, w4), coeff));
  }
}

inline void project_shear_constraints(Cloth& c, const Settings& s) {
  const double k_prime = 1 - std::pow(1 - s.k_shear, 1.0 / s.iterations);
  std::vector<Vec>& pos = c.predicted_pos;
  for (std::size_t i = 0; i < c.bend_non_shared_edge_v0.size(); ++i) {
    const int idx1 = c.bend_non_shared_edge_v0[i], idx2 = c.bend_non_shared_edge_v1[i];
    const Vec p1 = pos[idx1], p2 = pos[idx2];
    const double w1 = c.inv_mass[idx1], w2 = c.inv_mass[idx2];
    if ((w1 + w2) < EPSILON) continue;
    const Vec diff_vec = sub(p1, p2);
    const double curr_len = norm(diff_vec);
    const double diff = curr_len - c.shear_lengths[i];
    const Vec n = div(diff_vec, curr_len + EPSILON);
    pos[idx1] = add(pos[idx1], mul(mul(n, -w1 / (w1 + w2) * diff), k_prime));
    pos[idx2] = add(pos[idx2], mul(mul(n, w2 / (w1 + w2) * diff), k_prime));
  }
}

// Section 2: one frame of pbd_solve().
inline void pbd_solve(Cloth& c, const Settings& s) {
  const double dt = 1.0 / (s.fps * s.substeps);
  const Vec f_ext = add(s.gravity, s.wind);
  c.predicted_pos.resize(c.pos.size());
  for (int substep = 0; substep < s.substeps; ++substep) {
    for (std::size_t i = 0; i < c.pos.size(); ++i) {
      c.vel[i] = add(c.vel[i], mul(f_ext, dt * c.inv_mass[i]));
      c.vel[i] = mul(c.vel[i], s.damping);
      c.predicted_pos[i] = add(c.pos[i], mul(c.vel[i], dt));
    }
    for (int iteration = 0; iteration < s.iterations; ++iteration) {
      project_stretch_constraints(c, s);
      project_bend_constraints(c, s);
      project_shear_constraints(c, s);
    }
    for (std::size_t i = 0; i < c.pos.size(); ++i) {
      c.vel[i] = div(sub(c.predicted_pos[i], c.pos[i]), dt);
      c.pos[i] = c.predicted_pos[i];
    }
  }
}

}  // namespace spec
