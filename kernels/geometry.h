// Geometry for self-collision: closest points between a point and a triangle and between two
// segments (Ericson, Real-Time Collision Detection, 5.1), a cheap separation test, and the
// bounding spheres the broad phase hashes.
#pragma once

#include <cmath>
#include <cstdint>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "kernels/hd.h"

namespace drape::kernels {

// min/max without the NaN rules of fminf/fmaxf, which g++ calls out of line.
DRAPE_HD inline float clampf(float x, float lo, float hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

// Closest point of triangle abc to p as barycentric weights (u, v, w) of a, b, c (Ericson,
// Real-Time Collision Detection, 5.1.5). Returns the squared distance.
DRAPE_HD inline float closest_on_triangle(const glm::vec3& p, const glm::vec3& a,
                                          const glm::vec3& b, const glm::vec3& c, float& u,
                                          float& v, float& w) {
  const glm::vec3 ab = b - a, ac = c - a, ap = p - a;
  const float d1 = glm::dot(ab, ap), d2 = glm::dot(ac, ap);
  if (d1 <= 0.0f && d2 <= 0.0f) {
    u = 1.0f, v = 0.0f, w = 0.0f;
  } else {
    const glm::vec3 bp = p - b;
    const float d3 = glm::dot(ab, bp), d4 = glm::dot(ac, bp);
    const glm::vec3 cp = p - c;
    const float d5 = glm::dot(ab, cp), d6 = glm::dot(ac, cp);
    const float vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    if (d3 >= 0.0f && d4 <= d3) {
      u = 0.0f, v = 1.0f, w = 0.0f;
    } else if (d6 >= 0.0f && d5 <= d6) {
      u = 0.0f, v = 0.0f, w = 1.0f;
    } else if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) {
      const float t = d1 / (d1 - d3);
      u = 1.0f - t, v = t, w = 0.0f;
    } else if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) {
      const float t = d2 / (d2 - d6);
      u = 1.0f - t, v = 0.0f, w = t;
    } else if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f) {
      const float t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
      u = 0.0f, v = 1.0f - t, w = t;
    } else {
      const float denom = 1.0f / (va + vb + vc);
      v = vb * denom;
      w = vc * denom;
      u = 1.0f - v - w;
    }
  }
  const glm::vec3 q = u * a + v * b + w * c;
  return glm::dot(p - q, p - q);
}

// True when two segments are provably at least `radius` apart: their projections onto the line
// through their midpoints (d = one midpoint minus the other, h1 and h2 their half vectors) leave a
// gap of at least `radius`, with a relative slack of 1e-3 for rounding, so that a pair this
// rejects never passes the exact test. Costs no vertex loads, unlike closest_on_segments.
DRAPE_HD inline bool segments_apart(const glm::vec3& d, const glm::vec3& h1, const glm::vec3& h2,
                                    float radius) {
  const float len = sqrtf(glm::dot(d, d));
  const float gap = len * len - fabsf(glm::dot(h1, d)) - fabsf(glm::dot(h2, d));
  return gap > radius * len * 1.001f;
}

// Closest points of segments p1q1 and p2q2 at parameters s, t in [0, 1] (Ericson 5.1.9).
// Returns the squared distance.
DRAPE_HD inline float closest_on_segments(const glm::vec3& p1, const glm::vec3& q1,
                                          const glm::vec3& p2, const glm::vec3& q2, float& s,
                                          float& t) {
  const glm::vec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  const float a = glm::dot(d1, d1), e = glm::dot(d2, d2), f = glm::dot(d2, r);
  const float tiny = 1e-20f;
  const auto clamp01 = [](float x) { return clampf(x, 0.0f, 1.0f); };
  if (a <= tiny && e <= tiny) {
    s = t = 0.0f;
  } else if (a <= tiny) {
    s = 0.0f;
    t = clamp01(f / e);
  } else {
    const float c = glm::dot(d1, r);
    if (e <= tiny) {
      t = 0.0f;
      s = clamp01(-c / a);
    } else {
      const float b = glm::dot(d1, d2), denom = a * e - b * b;
      s = denom > 0.0f ? clamp01((b * f - c * e) / denom) : 0.0f;
      t = (b * s + f) / e;
      if (t < 0.0f) {
        t = 0.0f;
        s = clamp01(-c / a);
      } else if (t > 1.0f) {
        t = 1.0f;
        s = clamp01((b - c) / a);
      }
    }
  }
  const glm::vec3 c1 = p1 + s * d1, c2 = p2 + t * d2;
  return glm::dot(c1 - c2, c1 - c2);
}

// Bounding spheres (centre, radius): a triangle's about its centroid, an edge's about its midpoint.
DRAPE_HD inline glm::vec4 triangle_sphere(const glm::vec3* p, const glm::uvec3& t) {
  const glm::vec3 a = p[t.x], b = p[t.y], c = p[t.z];
  const glm::vec3 m = (a + b + c) / 3.0f;
  const float r2 =
      glm::max(glm::dot(a - m, a - m), glm::max(glm::dot(b - m, b - m), glm::dot(c - m, c - m)));
  return {m, sqrtf(r2)};
}

DRAPE_HD inline glm::vec4 edge_sphere(const glm::vec3* p, std::uint32_t a, std::uint32_t b) {
  return {0.5f * (p[a] + p[b]), 0.5f * glm::length(p[b] - p[a])};
}

// A sphere holding vertex v and the edges it owns (edges [first, last), v to edge_v1[e]), and so
// also the triangles it owns (their other corners end two of those edges): about the centre of
// their bounding box. Smaller than the sphere of radius "longest owned edge" about v when the
// edges fan out to one side, as a vertex's edges to higher-numbered vertices usually do.
DRAPE_HD inline glm::vec4 owned_sphere(const glm::vec3* p, std::uint32_t v, std::uint32_t first,
                                       std::uint32_t last, const std::uint32_t* edge_v1) {
  glm::vec3 lo = p[v], hi = p[v];
  for (std::uint32_t e = first; e < last; ++e) {
    lo = glm::min(lo, p[edge_v1[e]]);
    hi = glm::max(hi, p[edge_v1[e]]);
  }
  const glm::vec3 c = 0.5f * (lo + hi);
  float r2 = glm::dot(p[v] - c, p[v] - c);
  for (std::uint32_t e = first; e < last; ++e) {
    const glm::vec3 d = p[edge_v1[e]] - c;
    r2 = glm::max(r2, glm::dot(d, d));
  }
  return {c, sqrtf(r2) * 1.0001f};
}

}  // namespace drape::kernels
