// Per-vertex steps of the PBD substep (spec section 2): prediction and the Verlet update.
#pragma once

#include "kernels/hd.h"
#include "kernels/views.h"

namespace drape::kernels {

// v += dt a (unpinned only); v *= damping; p = x + dt v.
DRAPE_HD inline void predict(std::uint32_t i, ParticleView s, float dt, glm::vec3 accel,
                             float damping) {
  glm::vec3 v = s.v[i];
  if (s.w[i] > 0.0f) v += dt * accel;
  v *= damping;
  s.v[i] = v;
  s.p[i] = s.x[i] + dt * v;
}

// v = (p - x) / dt; x = p.
DRAPE_HD inline void update_velocity(std::uint32_t i, ParticleView s, float dt) {
  s.v[i] = (s.p[i] - s.x[i]) / dt;
  s.x[i] = s.p[i];
}

// The two steps over all vertices, as functors for a launch layer's for_each.
struct Predict {
  ParticleView s;
  float dt;
  glm::vec3 accel;
  float damping;
  DRAPE_HD void operator()(std::uint32_t i) const { predict(i, s, dt, accel, damping); }
};

// Predict with a per-vertex acceleration added (the air's, kernels/xpbd.h).
struct PredictInAir {
  ParticleView s;
  float dt;
  glm::vec3 accel;
  float damping;
  const glm::vec3* air;
  DRAPE_HD void operator()(std::uint32_t i) const { predict(i, s, dt, accel + air[i], damping); }
};

struct UpdateVelocity {
  ParticleView s;
  float dt;
  DRAPE_HD void operator()(std::uint32_t i) const { update_velocity(i, s, dt); }
};

}  // namespace drape::kernels
