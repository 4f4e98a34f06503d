// Attachments to colliders (cloth.attach): a vertex follows a target point, computed on the host
// for the end of every substep (collision/attach_targets.h). A hard attachment (w = 0) is moved
// there; a soft one is pulled by the zero-length constraint
//   C = |p - target|,  dlambda = (-C - at lambda) / (w + at),  dp = w n dlambda  (XPBD),
// or dp = k' (target - p) (PBD).
#pragma once

#include <cstdint>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

#include "kernels/hd.h"
#include "kernels/lanes.h"
#include "kernels/views.h"

namespace drape::kernels {

// The XPBD step of a soft attachment at distance `len`.
template <class S>
DRAPE_HD DRAPE_INLINE S attach_dlambda(S len, S w, S alpha, S lambda) {
  if (!(w + alpha > S(0))) return S(0);
  return (-len - alpha * lambda) / (w + alpha);
}

// Hard attachments: p = target.
struct FollowTargets {
  ParticleView s;
  const std::uint32_t* vertex;
  const glm::vec3* target;
  DRAPE_HD void operator()(std::uint32_t k) const { s.p[vertex[k]] = target[k]; }
};

// Soft attachments, one projection each (they share no vertex): `alpha` compliance / dt^2 and
// `lambda` per attachment for XPBD, `k_prime` for PBD.
struct PullToTargets {
  ParticleView s;
  const std::uint32_t* vertex;
  const glm::vec3* target;
  const float* alpha;
  const float* k_prime;
  float* lambda;
  bool xpbd;
  DRAPE_HD void operator()(std::uint32_t k) const {
    const std::uint32_t v = vertex[k];
    const glm::vec3 d = s.p[v] - target[k];
    if (!xpbd) {
      s.p[v] -= k_prime[k] * d;
      return;
    }
    const float len = glm::length(d);
    if (!(len > 1e-9f)) return;
    const float dl = attach_dlambda(len, s.w[v], alpha[k], lambda[k]);
    lambda[k] += dl;
    s.p[v] += (s.w[v] * dl / len) * d;
  }
};

}  // namespace drape::kernels
