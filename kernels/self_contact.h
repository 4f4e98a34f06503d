// Self-collision contacts (spec section 3): a candidate pair becomes a one-sided constraint that
// keeps the side the pair had at the start of the substep, projected Jacobi-style so that the
// result does not depend on the thread count.
#pragma once

#include <cstdint>

#include <glm/common.hpp>
#include <glm/exponential.hpp>
#include <glm/geometric.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "kernels/geometry.h"
#include "kernels/hd.h"
#include "kernels/self_candidates.h"
#include "kernels/views.h"

namespace drape::kernels {

// `released`: a contact among the corners of intersecting triangles, left out for the substep
// (collision/untangle.h).
enum class ContactKind : std::uint32_t { point_triangle = 0, edge_edge = 1, released = 2 };

// A contact of four vertices: point-triangle (point, a, b, c) or edge-edge (a, b, c, d). `side`
// is the unit direction the first element must stay on, taken at the start of the substep: the
// triangle's normal towards the point, or from edge cd to edge ab.
struct Contact {
  std::uint32_t v[4];
  ContactKind kind;
  glm::vec3 side;
};

// The side of a point-triangle pair at positions x: the unit normal of abc turned towards the
// point. False when the triangle is degenerate.
DRAPE_HD inline bool point_triangle_side(const glm::vec3& p, const glm::vec3& a, const glm::vec3& b,
                                         const glm::vec3& c, glm::vec3& side) {
  const glm::vec3 n = glm::cross(b - a, c - a);
  const float len = glm::length(n);
  if (!(len > 1e-12f)) return false;
  side = glm::dot(p - a, n) >= 0.0f ? n / len : -n / len;
  return true;
}

// The side of an edge pair at positions x: from the closest point of cd to that of ab; where the
// edges touch, the normal of the plane they span, turned towards fallback() (the same at
// positions p), which is called only then.
template <class Fallback>
DRAPE_HD bool edge_edge_side(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c,
                             const glm::vec3& d, Fallback fallback, glm::vec3& side) {
  float s, t;
  closest_on_segments(a, b, c, d, s, t);
  glm::vec3 n = (a + s * (b - a)) - (c + t * (d - c));
  float len = glm::length(n);
  if (!(len > 1e-9f)) {
    n = glm::cross(b - a, d - c);
    len = glm::length(n);
    if (!(len > 1e-12f)) return false;
    if (glm::dot(n, fallback()) < 0.0f) n = -n;
  }
  side = n / len;
  return true;
}

// A candidate pair as a contact, its side taken at the start positions (at the current ones when
// the start is degenerate).
DRAPE_HD inline Contact make_point_triangle(std::uint32_t v, std::uint32_t t, ParticleView s,
                                            const SelfView& sv) {
  const glm::uvec3 tri = sv.triangles[t];
  Contact c{{v, tri.x, tri.y, tri.z}, ContactKind::point_triangle, glm::vec3(0.0f)};
  if (!point_triangle_side(s.x[v], s.x[tri.x], s.x[tri.y], s.x[tri.z], c.side)) {
    point_triangle_side(s.p[v], s.p[tri.x], s.p[tri.y], s.p[tri.z], c.side);
  }
  return c;
}

DRAPE_HD inline Contact make_edge_edge(std::uint32_t e, std::uint32_t f, ParticleView s,
                                       const SelfView& sv) {
  const std::uint32_t a = sv.edge_v0[e], b = sv.edge_v1[e], c = sv.edge_v0[f], d = sv.edge_v1[f];
  Contact k{{a, b, c, d}, ContactKind::edge_edge, glm::vec3(0.0f)};
  // The side at the current positions, needed only where the start is degenerate or touching.
  const auto now = [&] {
    glm::vec3 side(0.0f);
    edge_edge_side(
        s.p[a], s.p[b], s.p[c], s.p[d], [] { return glm::vec3(0.0f, 1.0f, 0.0f); }, side);
    return side;
  };
  if (!edge_edge_side(s.x[a], s.x[b], s.x[c], s.x[d], now, k.side)) k.side = now();
  return k;
}

// Where the cloth intersects itself at the start of the substep (collision/untangle.h): per
// vertex, the triangles (as corners) it must end up on one side of, and that side along the
// triangle's normal; `crossed` flags the corners of intersecting triangles.
struct CrossingView {
  const std::uint32_t* offsets;
  const glm::uvec3* triangles;
  const float* sides;
  const std::uint8_t* crossed;
};

// A point-triangle contact whose point must end up on a given side of its triangle takes that
// side; any other contact between corners of intersecting triangles is released.
DRAPE_HD inline void untangle_contact(Contact& k, ParticleView s, const CrossingView& cv) {
  if (k.kind == ContactKind::point_triangle) {
    const glm::uvec3 tri(k.v[1], k.v[2], k.v[3]);
    for (std::uint32_t i = cv.offsets[k.v[0]]; i < cv.offsets[k.v[0] + 1]; ++i) {
      if (cv.triangles[i] != tri) continue;
      const glm::vec3 n = glm::cross(s.x[tri.y] - s.x[tri.x], s.x[tri.z] - s.x[tri.x]);
      const float len = glm::length(n);
      if (len > 0.0f) {
        k.side = (cv.sides[i] / len) * n;
        return;
      }
    }
    if (cv.crossed[k.v[0]] && (cv.crossed[k.v[1]] || cv.crossed[k.v[2]] || cv.crossed[k.v[3]])) {
      k.kind = ContactKind::released;
    }
  } else if ((cv.crossed[k.v[0]] || cv.crossed[k.v[1]]) &&
             (cv.crossed[k.v[2]] || cv.crossed[k.v[3]])) {
    k.kind = ContactKind::released;
  }
}

// One contact's correction at the current positions, as displacements of its four vertices.
// The constraint is side . (q0 - q1) >= thickness, q0 and q1 the contact points (the point and
// its projection, or the closest points of the edges), each a weighted sum of vertices with
// coefficients c_k. Corrections dp_k = c_k w_k lambda, lambda = ((thickness - d) side + f) / W,
// W = sum c_k^2 w_k: momentum is conserved (sum c_k = 0) and pins (w = 0) never move. Friction
// f removes the tangential motion of the contact points since the substep start up to `friction`
// times the normal correction (Coulomb). Returns false when the contact is not active.
//
// `height`: a lower bound on d, d itself for a point-triangle contact (the point's height over
// the triangle's plane) and, for an edge pair, the least height of ab over c minus the most of d
// over c, or of 0 (c itself): the contact points lie between those. Either falls by at most twice
// the largest displacement of the contact's vertices. A released contact has no bound (3e38).
DRAPE_HD DRAPE_INLINE bool contact_correction(const Contact& k, ParticleView s, const SelfView& sv,
                                              glm::vec3 dp[4], float& height) {
  height = 3.0e38f;
  if (k.kind == ContactKind::released) return false;
  const glm::vec3 p0 = s.p[k.v[0]], p1 = s.p[k.v[1]], p2 = s.p[k.v[2]], p3 = s.p[k.v[3]];
  float coef[4];
  float d;
  if (k.kind == ContactKind::point_triangle) {
    // The spec's test: within the thickness of the plane, projecting inside the triangle.
    d = glm::dot(p0 - p1, k.side);
    height = d;
    if (d >= sv.thickness) return false;
    const glm::vec3 n = glm::cross(p2 - p1, p3 - p1);
    const float n2 = glm::dot(n, n);
    if (!(n2 > 0.0f)) return false;
    const glm::vec3 q = p0 - p1;
    const float b = glm::dot(glm::cross(q, p3 - p1), n) / n2;
    const float c = glm::dot(glm::cross(p2 - p1, q), n) / n2;
    const float a = 1.0f - b - c;
    if (a < 0.0f || b < 0.0f || c < 0.0f) return false;
    coef[0] = 1.0f, coef[1] = -a, coef[2] = -b, coef[3] = -c;
  } else {
    // When the bound already clears the thickness (with a margin for rounding), the closest
    // points are not needed.
    const float ab = glm::min(glm::dot(p0 - p2, k.side), glm::dot(p1 - p2, k.side));
    const float cd = glm::max(0.0f, glm::dot(p3 - p2, k.side));
    height = ab - cd;
    if (height >= sv.thickness * 1.001f) return false;
    float u, t;
    closest_on_segments(p0, p1, p2, p3, u, t);
    const glm::vec3 q = (p0 + u * (p1 - p0)) - (p2 + t * (p3 - p2));
    d = glm::dot(q, k.side);
    if (d >= sv.thickness) return false;
    coef[0] = 1.0f - u, coef[1] = u, coef[2] = t - 1.0f, coef[3] = -t;
  }
  float w_sum = 0.0f;
  glm::vec3 moved(0.0f);
  for (int j = 0; j < 4; ++j) {
    const float w = s.w[k.v[j]];
    w_sum += coef[j] * coef[j] * w;
    moved += coef[j] * (s.p[k.v[j]] - s.x[k.v[j]]);
  }
  if (!(w_sum > 1e-12f)) return false;
  const float push = sv.thickness - d;
  const glm::vec3 tangential = moved - glm::dot(moved, k.side) * k.side;
  const float slide = glm::length(tangential);
  const float grip = sv.friction * push;
  const glm::vec3 friction = slide <= grip ? -tangential : tangential * (-grip / slide);
  const glm::vec3 lambda = (push * k.side + friction) / w_sum;
  for (int j = 0; j < 4; ++j) dp[j] = (coef[j] * s.w[k.v[j]]) * lambda;
  return true;
}

DRAPE_HD inline bool contact_correction(const Contact& k, ParticleView s, const SelfView& sv,
                                        glm::vec3 dp[4]) {
  float height;
  return contact_correction(k, s, sv, dp, height);
}

// The part of the thickness kept between a contact's reach and its becoming active, for rounding.
constexpr float kReachRounding = 1.01f;

// Contacts are applied Jacobi-style, so the result is the same on any number of threads: each
// contact flags whether it is active and, when it is, writes its four displacements to its own
// slots (4 c + j) ...
DRAPE_HD inline void solve_contact(std::uint32_t c, const Contact* contacts, ParticleView s,
                                   const SelfView& sv, glm::vec3* slot_dp, std::uint32_t* active) {
  glm::vec3 dp[4];
  const bool on = contact_correction(contacts[c], s, sv, dp);
  active[c] = on ? 1u : 0u;
  if (on) {
    for (int j = 0; j < 4; ++j) slot_dp[4 * c + j] = dp[j];
  }
}

// solve_contact that also records how far the contact's vertices may move before it can become
// active (its reach).
DRAPE_HD inline void solve_contact(std::uint32_t c, const Contact* contacts, ParticleView s,
                                   const SelfView& sv, glm::vec3* slot_dp, std::uint32_t* active,
                                   float* reach) {
  glm::vec3 dp[4];
  float height;
  const bool on = contact_correction(contacts[c], s, sv, dp, height);
  active[c] = on ? 1u : 0u;
  if (on) {
    for (int j = 0; j < 4; ++j) slot_dp[4 * c + j] = dp[j];
  }
  reach[c] = 0.5f * (height - sv.thickness * kReachRounding);
}

// The largest displacement since `base` in v's group: v and the far ends of its edges to
// higher-numbered vertices (SelfCollision's groups; their triangles' corners are among them).
DRAPE_HD inline float group_shift(const glm::vec3* p, const glm::vec3* base, std::uint32_t v,
                                  std::uint32_t first_edge, std::uint32_t last_edge,
                                  const std::uint32_t* edge_v1) {
  glm::vec3 d = p[v] - base[v];
  float most = glm::dot(d, d);
  for (std::uint32_t e = first_edge; e < last_edge; ++e) {
    d = p[edge_v1[e]] - base[edge_v1[e]];
    most = glm::max(most, glm::dot(d, d));
  }
  return glm::sqrt(most);
}

// A later pass skips a contact while no vertex of its two groups (SelfCollision's: a vertex and
// the far ends of its edges to higher-numbered vertices; `groups` the contact's two) has moved
// `reach` (above) since the previous pass: its height is then still at least the thickness, so it
// is not active (`shift`: each group's largest displacement since that pass). A skipped contact's
// reach from this pass's positions is at least its reach less that displacement; a contact that
// is evaluated records its reach afresh.
DRAPE_HD inline void solve_moved_contact(std::uint32_t c, const Contact* contacts,
                                         const glm::uvec2* groups, const float* shift, float* reach,
                                         ParticleView s, const SelfView& sv, glm::vec3* slot_dp,
                                         std::uint32_t* active) {
  const glm::uvec2 g = groups[c];
  const float moved = glm::max(shift[g.x], shift[g.y]);
  if (moved < reach[c]) {
    active[c] = 0u;
    reach[c] -= moved;
    return;
  }
  solve_contact(c, contacts, s, sv, slot_dp, active, reach);
}

// ... the slots of the active contacts are sorted by vertex, keeping slot order within a vertex
// (`vertices` the sorted vertices, `slots` the slots, n of them), and each vertex moves by the
// mean of its slots, summed in slot order by the thread at the start of its run.
DRAPE_HD inline void apply_contacts(std::uint32_t i, const std::uint32_t* vertices,
                                    const std::uint32_t* slots, std::uint32_t n,
                                    const glm::vec3* slot_dp, ParticleView s) {
  const std::uint32_t v = vertices[i];
  if (i > 0 && vertices[i - 1] == v) return;
  glm::vec3 sum(0.0f);
  std::uint32_t k = i;
  for (; k < n && vertices[k] == v; ++k) sum += slot_dp[slots[k]];
  s.p[v] += sum / static_cast<float>(k - i);
}

}  // namespace drape::kernels
