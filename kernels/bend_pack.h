// Bend pairs a pack at a time for the cpu backend (host only): the pack form of the bend batch that
// CpuExec::for_each_pack calls, four pairs in an F4 or eight in an F8 (kernels/simd_pack.h). Pairs
// of one colour share no vertex, so a pack scatters without conflict, and each lane computes bit
// for bit what project() computes for its pair (the pack operations are lane-wise IEEE float;
// tests/solver/test_kernels.cpp checks it). Everything here is forced inline: CpuExec compiles the
// F8 form inside a function built for AVX.
#pragma once

#include <cstdint>

#include "kernels/bend.h"
#include "kernels/simd_pack.h"
#include "kernels/xpbd.h"

namespace drape::kernels {

// The four corners of pairs k..k+lanes-1 of a colour batch: their vertices, positions and inverse
// masses.
template <class F>
struct BendPack {
  const std::uint32_t* roles[4];
  Vec3<F> p[4];
  F w[4];

  DRAPE_INLINE BendPack(const ParticleView& s, const BendView& c, std::uint32_t k)
      : roles{c.v1 + k, c.v2 + k, c.v3 + k, c.v4 + k} {
    static_assert(sizeof(glm::vec3) == 3 * sizeof(float), "positions are packed x, y, z floats");
    for (int j = 0; j < 4; ++j) {
      const std::uint32_t* v = roles[j];
      p[j] = {F::gather(&s.p[0].x, v, 3), F::gather(&s.p[0].y, v, 3), F::gather(&s.p[0].z, v, 3)};
      w[j] = F::gather(s.w, v, 1);
    }
  }

  // Adds w_j coeff q_j to each corner j of every lane whose coefficient is not 0.
  DRAPE_INLINE void scatter(const ParticleView& s, const Vec3<F> q[4], const F& coeff) const {
    for (int j = 0; j < 4; ++j) {
      const F scale = w[j] * coeff;
      const Vec3<F> dp = q[j] * scale;
      for (int lane = 0; lane < F::lanes; ++lane) {
        if (coeff[lane] == 0.0f) continue;
        glm::vec3& target = s.p[roles[j][lane]];
        target.x += dp.x[lane];
        target.y += dp.y[lane];
        target.z += dp.z[lane];
      }
    }
  }
};

// Pairs k..k+lanes-1 of the batch of `f`, F naming the pack (an F4 or F8 value, unused).
template <class F>
DRAPE_INLINE void project_pack(const ProjectBatch<BendView>& f, std::uint32_t k, F) {
  const BendPack<F> pack(f.s, f.c, k);
  const F rest = F::gather(f.c.rest_angle + k, kLaneIndex, 1);
  Vec3<F> q[4];
  const F coeff = bend_coefficient(pack.p, pack.w, rest, F::splat(f.k_prime), q);
  pack.scatter(f.s, q, coeff);
}

// XPBD pairs k..k+lanes-1 (kernels/xpbd.h): the same gathers, plus each pair's multiplier.
template <class F>
DRAPE_INLINE void project_pack(const XpbdBatch<XpbdBendView>& f, std::uint32_t k, F) {
  const BendView& c = f.c.geometry;
  const BendPack<F> pack(f.s, c, k);
  Vec3<F> q[4];
  F dlambda;
  const F coeff = xpbd_bend_coefficient(pack.p, pack.w, F::gather(c.rest_angle + k, kLaneIndex, 1),
                                        F::gather(f.c.alpha + k, kLaneIndex, 1),
                                        F::gather(f.c.lambda + k, kLaneIndex, 1), q, dlambda);
  for (int lane = 0; lane < F::lanes; ++lane) f.c.lambda[k + lane] += dlambda[lane];
  pack.scatter(f.s, q, coeff);
}

}  // namespace drape::kernels
