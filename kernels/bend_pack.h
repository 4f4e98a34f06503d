// Four bend pairs at once for the cpu backend (host only): the pack form of the bend batch that
// CpuExec::for_each_pack calls. Pairs of one colour share no vertex, so a pack scatters without
// conflict, and each lane computes bit for bit what project() computes for its pair (the F4
// operations are lane-wise IEEE float; tests/solver/test_kernels.cpp checks it).
#pragma once

#include <cstdint>

#include "kernels/bend.h"
#include "kernels/simd_f4.h"  // before bend.h: the lane functions for F4
#include "kernels/xpbd.h"

namespace drape::kernels {

// The four corners of pairs k..k+3 of a colour batch: their vertices, positions and inverse masses.
struct Pack4 {
  const std::uint32_t* roles[4];
  Vec3<F4> p[4];
  F4 w[4];

  Pack4(const ParticleView& s, const BendView& c, std::uint32_t k)
      : roles{c.v1 + k, c.v2 + k, c.v3 + k, c.v4 + k} {
    static_assert(sizeof(glm::vec3) == 3 * sizeof(float), "positions are packed x, y, z floats");
    for (int j = 0; j < 4; ++j) {
      const std::uint32_t* v = roles[j];
      p[j] = {F4::gather(&s.p[0].x, v, 3), F4::gather(&s.p[0].y, v, 3),
              F4::gather(&s.p[0].z, v, 3)};
      w[j] = F4::gather(s.w, v, 1);
    }
  }

  // Adds w_j coeff q_j to each corner j of every lane whose coefficient is not 0.
  void scatter(const ParticleView& s, const Vec3<F4> q[4], const F4& coeff) const {
    for (int j = 0; j < 4; ++j) {
      const F4 scale = w[j] * coeff;
      const Vec3<F4> dp = q[j] * scale;
      for (int lane = 0; lane < 4; ++lane) {
        if (coeff[lane] == 0.0f) continue;
        glm::vec3& target = s.p[roles[j][lane]];
        target.x += dp.x[lane];
        target.y += dp.y[lane];
        target.z += dp.z[lane];
      }
    }
  }
};

// Pairs k..k+3 of the batch of `f`. Forced inline into for_each_pack's loop: as an ordinary inline
// function GCC kept it out of line, a call per pack (about 3% of a one-thread 256² frame).
DRAPE_INLINE void pack4(const ProjectBatch<BendView>& f, std::uint32_t k) {
  const Pack4 pack(f.s, f.c, k);
  const std::uint32_t next[4] = {k, k + 1, k + 2, k + 3};
  const F4 rest = F4::gather(f.c.rest_angle, next, 1);
  Vec3<F4> q[4];
  const F4 coeff = bend_coefficient(pack.p, pack.w, rest, F4::splat(f.k_prime), q);
  pack.scatter(f.s, q, coeff);
}

// XPBD pairs k..k+3 (kernels/xpbd.h): the same gathers, plus each pair's multiplier.
DRAPE_INLINE void pack4(const XpbdBatch<XpbdBendView>& f, std::uint32_t k) {
  const BendView& c = f.c.geometry;
  const Pack4 pack(f.s, c, k);
  const std::uint32_t next[4] = {k, k + 1, k + 2, k + 3};
  Vec3<F4> q[4];
  F4 dlambda;
  const F4 coeff = xpbd_bend_coefficient(pack.p, pack.w, F4::gather(c.rest_angle, next, 1),
                                         F4::gather(f.c.alpha, next, 1),
                                         F4::gather(f.c.lambda, next, 1), q, dlambda);
  for (int lane = 0; lane < 4; ++lane) f.c.lambda[k + lane] += dlambda[lane];
  pack.scatter(f.s, q, coeff);
}

}  // namespace drape::kernels
