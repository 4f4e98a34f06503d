// Obstacle collisions (spec section 3, "Obstacle Collision"): signed distance fields, analytic or
// NanoVDB level sets, and the push-out / friction / restitution response. Written once for float
// (cpu, cuda) and double (reference) positions.
//
// Far and deep samples of a narrow-band level set: outside the band the sampler returns the
// background value, which is "far" (no contact), never a surface. Deep inside, the level set is a
// constant -background with zero gradient; there, and wherever the gradient vanishes inside, the
// vertex goes back to where it started the substep (carried along with the collider), so it is
// never left inside or pushed deeper.
#pragma once

#include <nanovdb/NanoVDB.h>

#include <cstdint>

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>
#include <glm/vec3.hpp>

#include "kernels/hd.h"
#include "kernels/views.h"

namespace drape::kernels {

enum class Shape : int { sphere = 0, box = 1, plane = 2, grid = 3 };

// A rigid placement with uniform scale: world = rotation * (scale * local) + translation.
struct Pose {
  glm::mat3 rotation{1.0f};
  glm::vec3 translation{0.0f};
  float scale = 1.0f;

  template <class V>
  DRAPE_HD V to_local(const V& world) const {
    return (glm::transpose(glm::mat<3, 3, typename V::value_type>(rotation)) *
            (world - V(translation))) /
           static_cast<typename V::value_type>(scale);
  }
  template <class V>
  DRAPE_HD V to_world(const V& local) const {
    using T = typename V::value_type;
    return glm::mat<3, 3, T>(rotation) * (static_cast<T>(scale) * local) + V(translation);
  }
};

struct ColliderView {
  Shape shape = Shape::sphere;
  glm::vec3 a{0.0f}, b{0.0f};  // sphere: centre a; box: min a, max b; plane: point a, normal b
  float radius = 0.0f;         // sphere radius; box corner and edge rounding
  const nanovdb::FloatGrid* grid = nullptr;  // Shape::grid: a level set in local coordinates
  // A pose sequence between two poses: the distance is (1 - blend) grid + blend grid_next.
  const nanovdb::FloatGrid* grid_next = nullptr;
  float blend = 0.0f;
  // A pose sequence between two poses: how far the surface point nearest to a local point moves
  // from this pose to the next, times motion_scale, is how far it moves in this substep.
  const nanovdb::Vec3fGrid* motion = nullptr;
  float motion_scale = 0.0f;
  float friction = 0.0f, restitution = 0.0f, thickness = 0.0f;
  // Friction as a Coulomb cone (the xpbd model) instead of the spec's fraction of the tangential
  // displacement taken away at every projection.
  bool coulomb = false;
  Pose now, before;  // placement at the end and at the start of the current substep
};

// Trilinear sample of a NanoVDB level set and its gradient at a local point. The 8 voxels of the
// cell are read straight from their leaf when the cell lies inside one (7 cells in 8 along each
// axis), through the accessor otherwise. The accessor caches the path to the last leaf, so a
// caller that samples nearby points in sequence passes the same one. Returns false outside the
// narrow band ("far"); the gradient is zero deep inside (constant -background) and is only computed
// where phi < cutoff; where phi is clearly above the cutoff, phi is the nearest voxel's value (also
// above it).
using LevelSetAccessor = nanovdb::DefaultReadAccessor<float>;

template <class V>
DRAPE_HD bool sample_level_set(const nanovdb::FloatGrid& g, LevelSetAccessor& acc, const V& p,
                               typename V::value_type& phi, V& grad,
                               typename V::value_type cutoff) {
  using T = typename V::value_type;
  const nanovdb::Vec3f ijk = g.worldToIndexF(
      nanovdb::Vec3f(static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)));
  const nanovdb::Coord base = nanovdb::Coord::Floor(ijk);
  const float ux = ijk[0] - static_cast<float>(base[0]);
  const float uy = ijk[1] - static_cast<float>(base[1]);
  const float uz = ijk[2] - static_cast<float>(base[2]);
  const auto* leaf = acc.probeLeaf(base);
  const bool in_leaf =
      leaf != nullptr && (base[0] & 7) != 7 && (base[1] & 7) != 7 && (base[2] & 7) != 7;
  const float background = g.tree().background();
  const float voxel = static_cast<float>(g.voxelSize()[0]);
  // One voxel first: a distance field changes by at most the half-diagonal of a cell between a
  // cell's nearest corner and any point of it, so a corner that far above the cutoff (or in the
  // background) settles the sample without the other seven.
  const nanovdb::Coord nearest =
      base + nanovdb::Coord(ux >= 0.5f ? 1 : 0, uy >= 0.5f ? 1 : 0, uz >= 0.5f ? 1 : 0);
  const float near_value = in_leaf ? leaf->getValue(nearest) : acc.getValue(nearest);
  if (near_value >= background) return false;
  if (static_cast<T>(near_value - 0.8661f * voxel) >= cutoff) {
    phi = static_cast<T>(near_value);
    return true;
  }
  float v[2][2][2];
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 2; ++k) {
        const nanovdb::Coord corner = base + nanovdb::Coord(i, j, k);
        v[i][j][k] = in_leaf ? leaf->getValue(corner) : acc.getValue(corner);
      }
    }
  }
  float a[2][2], dz[2][2];
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      dz[i][j] = v[i][j][1] - v[i][j][0];
      a[i][j] = v[i][j][0] + uz * dz[i][j];
    }
  }
  const float b0 = a[0][0] + uy * (a[0][1] - a[0][0]);
  const float b1 = a[1][0] + uy * (a[1][1] - a[1][0]);
  const float value = b0 + ux * (b1 - b0);
  if (value >= background) return false;
  phi = static_cast<T>(value);
  if (!(phi < cutoff)) return true;
  if (value <= -background) {
    grad = V(T(0));
    return true;
  }
  const float gy0 = a[0][1] - a[0][0], gy1 = a[1][1] - a[1][0];
  const float gz0 = dz[0][0] + uy * (dz[0][1] - dz[0][0]);
  const float gz1 = dz[1][0] + uy * (dz[1][1] - dz[1][0]);
  const float inv_voxel = 1.0f / voxel;
  grad = V(static_cast<T>(b1 - b0), static_cast<T>(gy0 + ux * (gy1 - gy0)),
           static_cast<T>(gz0 + ux * (gz1 - gz0))) *
         static_cast<T>(inv_voxel);
  return true;
}

// Trilinear sample of a motion grid at a local point (zero outside its band).
DRAPE_HD inline nanovdb::Vec3f sample_motion(const nanovdb::Vec3fGrid& g, const glm::vec3& p) {
  const nanovdb::Vec3f ijk = g.worldToIndexF(nanovdb::Vec3f(p.x, p.y, p.z));
  const nanovdb::Coord base = nanovdb::Coord::Floor(ijk);
  const nanovdb::Vec3f u =
      ijk - nanovdb::Vec3f(static_cast<float>(base[0]), static_cast<float>(base[1]),
                           static_cast<float>(base[2]));
  auto acc = g.getAccessor();
  nanovdb::Vec3f sum(0.0f);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 2; ++k) {
        const float w =
            (i ? u[0] : 1.0f - u[0]) * (j ? u[1] : 1.0f - u[1]) * (k ? u[2] : 1.0f - u[2]);
        sum += acc.getValue(base + nanovdb::Coord(i, j, k)) * w;
      }
    }
  }
  return sum;
}

// Accessors of a collider's level set and of the next pose's (the same grid when there is none),
// kept along a range of vertices.
struct GridAccessors {
  LevelSetAccessor grid, next;
  DRAPE_HD explicit GridAccessors(const ColliderView& c)
      : grid(c.grid->tree().root()),
        next((c.grid_next != nullptr ? c.grid_next : c.grid)->tree().root()) {}
};

// Between two poses of a sequence: (1 - blend) phi_a + blend phi_b. Each level set is sampled
// with the cutoff first; where both are at or above it the blend is too (no gradient needed),
// otherwise the one still without a gradient is sampled in full. Outside either narrow band is
// "far": the bands are widened by the motion between poses (load_pose_sequence), so near the
// surface both have values.
template <class V>
DRAPE_HD bool blended_distance(const ColliderView& c, const V& p, typename V::value_type& phi,
                               V& grad, typename V::value_type cutoff, GridAccessors& acc) {
  using T = typename V::value_type;
  LevelSetAccessor& a = acc.grid;
  LevelSetAccessor& next = acc.next;
  T phi_b = T(0);
  V grad_b(T(0));
  grad = V(T(0));
  if (!sample_level_set(*c.grid, a, p, phi, grad, cutoff) ||
      !sample_level_set(*c.grid_next, next, p, phi_b, grad_b, cutoff)) {
    return false;
  }
  const T s = static_cast<T>(c.blend);
  if (phi >= cutoff && phi_b >= cutoff) {
    phi = (T(1) - s) * phi + s * phi_b;
    return true;
  }
  const T everywhere = static_cast<T>(1e30f);
  if (phi >= cutoff) sample_level_set(*c.grid, a, p, phi, grad, everywhere);
  if (phi_b >= cutoff) sample_level_set(*c.grid_next, next, p, phi_b, grad_b, everywhere);
  phi = (T(1) - s) * phi + s * phi_b;
  grad = (T(1) - s) * grad + s * grad_b;
  return true;
}

// Signed distance and its (unnormalised) gradient at a local point, in local units. Returns false
// for "far": outside a level set's narrow band. The gradient is only computed where
// phi < cutoff.
template <class V>
DRAPE_HD bool signed_distance(const ColliderView& c, const V& p, typename V::value_type& phi,
                              V& grad, typename V::value_type cutoff,
                              GridAccessors* acc = nullptr) {
  using T = typename V::value_type;
  switch (c.shape) {
    case Shape::sphere: {
      const V d = p - V(c.a);
      const T len = glm::length(d);
      phi = len - static_cast<T>(c.radius);
      grad = len > T(0) ? d / len : V(T(0));
      return true;
    }
    case Shape::box: {
      // A box with edges and corners rounded by `radius`: the distance to the box shrunk by the
      // radius, minus the radius (a sharp box when it is 0).
      const T rounding = static_cast<T>(c.radius);
      const V centre = (V(c.a) + V(c.b)) * T(0.5);
      const V half = (V(c.b) - V(c.a)) * T(0.5) - V(rounding);
      const V rel = p - centre;
      const V q = glm::abs(rel) - half;
      const V sign(rel.x < T(0) ? T(-1) : T(1), rel.y < T(0) ? T(-1) : T(1),
                   rel.z < T(0) ? T(-1) : T(1));
      const V outside = glm::max(q, V(T(0)));
      const T out_len = glm::length(outside);
      if (out_len > T(0)) {
        phi = out_len - rounding;
        grad = outside * sign / out_len;
        return true;
      }
      // Inside the shrunk box: the nearest face is along the axis of the largest q.
      const int axis = q.x >= q.y && q.x >= q.z ? 0 : (q.y >= q.z ? 1 : 2);
      phi = q[axis] - rounding;
      grad = V(T(0));
      grad[axis] = sign[axis];
      return true;
    }
    case Shape::plane: {
      const V n = glm::normalize(V(c.b));
      phi = glm::dot(p - V(c.a), n);
      grad = n;
      return true;
    }
    case Shape::grid: {
      if (c.grid_next != nullptr && c.blend > 0.0f) {
        if (acc != nullptr) return blended_distance(c, p, phi, grad, cutoff, *acc);
        GridAccessors local(c);
        return blended_distance(c, p, phi, grad, cutoff, local);
      }
      if (acc != nullptr) return sample_level_set(*c.grid, acc->grid, p, phi, grad, cutoff);
      LevelSetAccessor local(c.grid->tree().root());
      return sample_level_set(*c.grid, local, p, phi, grad, cutoff);
    }
  }
  return false;
}

// How far a vertex may move before a collider it is `distance` from (a lower bound, world units)
// can come within `thickness`. Level sets are trilinear in voxel values that are exact distances
// (slope at most 1 along each axis), so their slope is at most sqrt(3); analytic shapes' is 1.
// A user's level set steeper than that (not a distance field) would let a contact be missed.
constexpr float kSafeSlope = 1.7320508f;
DRAPE_HD inline float clearance_reach(float distance, float thickness) {
  const float r = (distance - thickness) / kSafeSlope;
  return r > 0.0f ? r : 0.0f;
}

// Projects one vertex out of one collider (spec section 3): if phi < thickness, push along the
// normalised gradient to the thickness, then take the displacement d since the start of the
// substep, relative to the collider (x_start carried along by its motion, and on a pose sequence
// by the motion of the surface point nearest to the vertex), split it into
// normal d_n and tangential d_t, and apply p -= friction d_t, p += restitution d_n.
// With `coulomb` (Macklin et al. 2014, "Unified Particle Physics", section 6.1), the tangential
// displacement is taken away only up to friction x the push of this projection: the vertex
// sticks while |d_t| < friction x push and slides with kinetic friction beyond.
// Returns true when the vertex was in contact. `reach`, when given, gets how far (world units)
// the vertex may move before this collider can touch it: 0 in contact (see kSafeSlope).
template <class V>
DRAPE_HD bool collide(const ColliderView& c, V& p, const V& x_start, GridAccessors* acc = nullptr,
                      float* reach = nullptr) {
  using T = typename V::value_type;
  T phi;
  V grad;
  const T thickness = static_cast<T>(c.thickness);
  const V local = c.now.to_local(p);
  const bool grid = c.shape == Shape::grid;
  const float margin = grid ? 0.8661f * static_cast<float>(c.grid->voxelSize()[0]) : 0.0f;
  if (!signed_distance(c, local, phi, grad, thickness / static_cast<T>(c.now.scale), acc)) {
    // Beyond the band: at least the background less the nearest voxel's half-diagonal away;
    // between two poses only one of them is known to be that far.
    if (reach != nullptr) {
      const bool blended = c.grid_next != nullptr && c.blend > 0.0f;
      *reach = blended ? 0.0f
                       : clearance_reach((c.grid->tree().background() - margin) * c.now.scale,
                                         c.thickness);
    }
    return false;
  }
  phi *= static_cast<T>(c.now.scale);
  if (phi >= thickness) {
    if (reach != nullptr) {
      *reach = clearance_reach(static_cast<float>(phi) - margin * c.now.scale, c.thickness);
    }
    return false;
  }
  if (reach != nullptr) *reach = 0.0f;
  V start = c.before.to_local(x_start);
  if (c.motion != nullptr) {
    const nanovdb::Vec3f m = sample_motion(*c.motion, glm::vec3(local));
    start += V(static_cast<T>(m[0]), static_cast<T>(m[1]), static_cast<T>(m[2])) *
             static_cast<T>(c.motion_scale);
  }
  const V carried = c.now.to_world(start);
  const T grad_len = glm::length(grad);
  if (!(grad_len > T(1e-6))) {
    if (phi < T(0)) p = carried;
    return phi < T(0);
  }
  const V n = glm::mat<3, 3, T>(c.now.rotation) * (grad / grad_len);
  const T push = thickness - phi;
  p += push * n;
  const V d = p - carried;
  const V d_n = glm::dot(d, n) * n;
  const V d_t = d - d_n;
  if (c.coulomb) {
    const T slide = glm::length(d_t), limit = static_cast<T>(c.friction) * push;
    p -= slide > limit ? d_t * (limit / slide) : d_t;
  } else {
    p -= d_t * static_cast<T>(c.friction);
  }
  p += d_n * static_cast<T>(c.restitution);
  return true;
}

// Where the colliders were last sampled for each vertex during a substep, and how far it may move
// from there before any of them can touch it (kSafeSlope): a vertex still within that reach is
// skipped, which leaves every position as sampling it would (it would not be in contact). While
// a range is being collided, a negative reach -(1 + r) carries the smallest r found so far.
struct Clearance {
  glm::vec3* at;
  float* reach;
};

// Collides vertices [begin, end) with one collider, skipping pinned ones and those the clearance
// (decided at the first collider) lets go; `acc`: a level set's accessors, shared along the
// range, which is spatially coherent in mesh order.
template <class V>
DRAPE_HD void collide_vertices(const ColliderView& c, V* p, const V* x_start, const float* inv_mass,
                               Clearance clear, bool first, std::uint32_t begin, std::uint32_t end,
                               GridAccessors* acc) {
  for (std::uint32_t i = begin; i < end; ++i) {
    if (inv_mass[i] == 0.0f) continue;
    float& reach = clear.reach[i];
    if (first) {
      const glm::vec3 moved = glm::vec3(p[i]) - clear.at[i];
      if (reach > 0.0f && glm::dot(moved, moved) < reach * reach) continue;
      clear.at[i] = glm::vec3(p[i]);
      reach = -1.0f - 1e30f;
    } else if (reach >= 0.0f) {
      continue;
    }
    float r = 0.0f;
    collide(c, p[i], x_start[i], acc, &r);
    const float so_far = -reach - 1.0f;
    reach = -1.0f - (r < so_far ? r : so_far);
  }
}

template <class V>
DRAPE_HD void collide_range(const ColliderView& c, V* p, const V* x_start, const float* inv_mass,
                            Clearance clear, bool first, std::uint32_t begin, std::uint32_t end) {
  if (c.shape == Shape::grid) {
    GridAccessors acc(c);
    collide_vertices(c, p, x_start, inv_mass, clear, first, begin, end, &acc);
  } else {
    collide_vertices(c, p, x_start, inv_mass, clear, first, begin, end, nullptr);
  }
}

// Every collider against vertices [begin, end), in scene order, for a launch layer's
// for_each_chunk: vertices are independent, so a chunk may take one collider after the other and
// reuse a level set's accessor along it.
struct CollideChunk {
  const ColliderView* colliders;
  std::uint32_t count;
  ParticleView s;
  Clearance clear;
  DRAPE_HD void operator()(std::uint32_t begin, std::uint32_t end) const {
    for (std::uint32_t c = 0; c < count; ++c) {
      collide_range(colliders[c], s.p, s.x, s.w, clear, c == 0, begin, end);
    }
    for (std::uint32_t i = begin; i < end; ++i) {
      if (clear.reach[i] < 0.0f) clear.reach[i] = -clear.reach[i] - 1.0f;
    }
  }
};

// Forgets every clearance (the colliders have moved): at the start of each substep.
struct ForgetClearance {
  float* reach;
  DRAPE_HD void operator()(std::uint32_t i) const { reach[i] = 0.0f; }
};

// The signed distance of a world point to a collider at its current placement, in world units;
// `far` (a large positive value) outside a level set's band.
template <class V>
DRAPE_HD typename V::value_type world_distance(const ColliderView& c, const V& p,
                                               typename V::value_type far) {
  using T = typename V::value_type;
  T phi;
  V grad;
  if (!signed_distance(c, c.now.to_local(p), phi, grad, T(0))) return far;
  return phi * static_cast<T>(c.now.scale);
}

}  // namespace drape::kernels
