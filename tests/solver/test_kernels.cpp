// The float kernels the cpu and cuda backends share, against the reference's double functions,
// and the cpu backend's F4 and F8 packs against the float kernel, lane by lane.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>

#include "kernels/angle.h"
#include "kernels/bend.h"
#include "kernels/bend_pack.h"
#include "kernels/distance.h"
#include "kernels/simd_pack.h"
#include "solver/exec_cpu.h"
#include "solver/reference_constraints.h"

namespace drape {
namespace {

TEST(Kernels, FloatConstraintsMatchTheReference) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    // A shared edge along X and two wings at random angles around it: well-shaped triangles,
    // so float and double differ by rounding, not by ill-conditioning.
    const double a3 = 3.0 * u(rng), a4 = 3.0 * u(rng);
    const glm::dvec3 p[4] = {{0.1 * u(rng), 0.1 * u(rng), 0.1 * u(rng)},
                             {1.0 + 0.1 * u(rng), 0.1 * u(rng), 0.1 * u(rng)},
                             {0.5 + 0.3 * u(rng), 0.8 * std::cos(a3), 0.8 * std::sin(a3)},
                             {0.5 + 0.3 * u(rng), 0.8 * std::cos(a4), 0.8 * std::sin(a4)}};
    const double w[4] = {1.0, 0.0, 1.0, 1.0};
    const double rest = 0.5 + 0.5 * u(rng), k = 0.5 + 0.4 * u(rng);

    glm::dvec3 r0, r1;
    glm::vec3 f0, f1;
    ASSERT_TRUE(reference::distance_correction(p[0], w[0], p[2], w[2], rest, k, r0, r1));
    ASSERT_TRUE(kernels::distance_correction(glm::vec3(p[0]), 1.0f, glm::vec3(p[2]), 1.0f,
                                             static_cast<float>(rest), static_cast<float>(k), f0,
                                             f1));
    EXPECT_LT(glm::length(glm::dvec3(f0) - r0), 1e-5);
    EXPECT_LT(glm::length(glm::dvec3(f1) - r1), 1e-5);

    glm::dvec3 rd[4];
    glm::vec3 fp[4], fd[4];
    float fw[4];
    for (int i = 0; i < 4; ++i) {
      fp[i] = glm::vec3(p[i]);
      fw[i] = static_cast<float>(w[i]);
    }
    const double rest_angle = 2.0 + 0.5 * u(rng);
    ASSERT_EQ(reference::bend_correction(p, w, rest_angle, k, rd),
              kernels::bend_correction(fp, fw, static_cast<float>(rest_angle),
                                       static_cast<float>(k), fd));
    double scale = 0.0;
    for (const glm::dvec3& d : rd) scale = std::max(scale, glm::length(d));
    for (int i = 0; i < 4; ++i) {
      EXPECT_LT(glm::length(glm::dvec3(fd[i]) - rd[i]), 1e-3 * scale + 1e-6) << "trial " << trial;
    }
  }
}

// The float angle of the bend kernels against atan2 in double, at angles spread over [0, pi] and
// crowded near 0, pi/2 and pi (a folded, a square and a flat pair), at lengths from 1e-3 to 10:
// within about two units in the last place of the float result (1.94 here; 2.03 in a wider
// sweep while fitting), and each F4 lane equal to the float lane.
TEST(Kernels, AngleIsAtan2WithinAboutTwoUnitsInTheLastPlace) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double pi = 3.14159265358979323846;
  double worst = 0.0;
  for (int trial = 0; trial < 200000; trial += 4) {
    float sine[4], cosine[4];
    for (int lane = 0; lane < 4; ++lane) {
      const double offset = std::pow(10.0, -8.0 * u(rng));
      const double angles[4] = {pi * u(rng), offset, pi - offset,
                                0.5 * pi + (u(rng) - 0.5) * offset};
      const double angle = angles[(trial / 4 + lane) % 4];
      const double length = std::pow(10.0, 4.0 * u(rng) - 3.0);
      sine[lane] = static_cast<float>(length * std::sin(angle));
      cosine[lane] = static_cast<float>(length * std::cos(angle));
    }
    const kernels::F4 packed = kernels::lane_angle(
        kernels::F4{kernels::F4::Raw{sine[0], sine[1], sine[2], sine[3]}},
        kernels::F4{kernels::F4::Raw{cosine[0], cosine[1], cosine[2], cosine[3]}});
    for (int lane = 0; lane < 4; ++lane) {
      const float angle = kernels::lane_angle(sine[lane], cosine[lane]);
      const float lane_value = packed[lane];
      ASSERT_EQ(std::memcmp(&angle, &lane_value, sizeof(float)), 0) << "trial " << trial;
      const double exact = std::atan2(static_cast<double>(sine[lane]), cosine[lane]);
      const float rounded = static_cast<float>(exact);
      const double ulp = std::nextafter(rounded, 4.0f) - rounded;
      worst = std::max(worst, std::abs(angle - exact) / ulp);
    }
  }
  EXPECT_LE(worst, 2.5);
  EXPECT_EQ(kernels::lane_angle(0.0f, 1.0f), 0.0f);
  EXPECT_EQ(kernels::lane_angle(1.0f, 0.0f), static_cast<float>(0.5 * pi));
  EXPECT_EQ(kernels::lane_angle(0.0f, -1.0f), static_cast<float>(pi));
  EXPECT_EQ(kernels::lane_angle(0.0f, 0.0f), 0.0f);
  EXPECT_EQ(kernels::lane_angle(1e-20f, 1.0f), 1e-20f);
  EXPECT_EQ(kernels::lane_angle(1e-20f, -1.0f), static_cast<float>(pi));
}

// The cpu backend projects bend pairs four at a time in F4 packs: every lane must compute bit for
// bit what the float kernel computes (the GPU runs the float kernel).
TEST(Kernels, PackLanesEqualTheFloatKernel) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int trial = 0; trial < 500; ++trial) {
    kernels::Vec3<float> p[4][4];
    float w[4][4], rest[4];
    for (int lane = 0; lane < 4; ++lane) {
      for (int j = 0; j < 4; ++j) {
        p[lane][j] = {u(rng), u(rng), u(rng)};
        w[lane][j] = trial % 3 == 0 && j == 1 ? 0.0f : 1.0f;
      }
      // Every tenth trial, a flat pair: the spec skips it (sum w|q|^2 < EPSILON).
      if (trial % 10 == 0) p[lane][3] = {p[lane][2].x, p[lane][2].y, p[lane][2].z};
      rest[lane] = 3.0f + 0.1f * u(rng);
    }
    const auto lanes = [](auto value) {
      return kernels::F4{kernels::F4::Raw{value(0), value(1), value(2), value(3)}};
    };
    kernels::Vec3<kernels::F4> pp[4];
    kernels::F4 ww[4];
    for (int j = 0; j < 4; ++j) {
      pp[j] = {lanes([&](int l) { return p[l][j].x; }), lanes([&](int l) { return p[l][j].y; }),
               lanes([&](int l) { return p[l][j].z; })};
      ww[j] = lanes([&](int l) { return w[l][j]; });
    }
    const kernels::F4 rr{kernels::F4::Raw{rest[0], rest[1], rest[2], rest[3]}};
    kernels::Vec3<kernels::F4> qq[4];
    const kernels::F4 packed = kernels::bend_coefficient(pp, ww, rr, kernels::F4::splat(0.3f), qq);
    for (int lane = 0; lane < 4; ++lane) {
      kernels::Vec3<float> q[4];
      const float scalar = kernels::bend_coefficient(p[lane], w[lane], rest[lane], 0.3f, q);
      const float lane_value = packed[lane];
      ASSERT_EQ(std::memcmp(&scalar, &lane_value, sizeof(float)), 0) << "trial " << trial;
      for (int j = 0; j < 4; ++j) {
        ASSERT_EQ(q[j].x, qq[j].x[lane]);
        ASSERT_EQ(q[j].y, qq[j].y[lane]);
        ASSERT_EQ(q[j].z, qq[j].z[lane]);
      }
    }
  }
}

// Bend pairs of one colour (no shared vertex) over random positions, PBD and XPBD: projecting
// them in packs must give the positions and multipliers of projecting them one by one with the
// float kernel, bit for bit, for four lanes, for eight (on a CPU with AVX), and through
// CpuExec::for_each_pack on 1 and 2 threads (eight lanes where the CPU has AVX, the cpu backend's
// path). 203 pairs: a remainder past the last pack of either width.
struct BendColour {
  static constexpr std::uint32_t kPairs = 203;
  std::vector<glm::vec3> x, p, v;
  std::vector<float> w, rest, alpha, lambda;
  std::vector<std::uint32_t> v1, v2, v3, v4;

  BendColour() {
    std::mt19937 rng(31);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (std::uint32_t k = 0; k < kPairs; ++k) {
      for (std::vector<std::uint32_t>* role : {&v1, &v2, &v3, &v4}) {
        role->push_back(static_cast<std::uint32_t>(p.size()));
        p.push_back({u(rng), u(rng), u(rng)});
        w.push_back(k % 7 == 0 && role == &v2 ? 0.0f : 1.0f + 0.5f * u(rng));
      }
      // Every ninth pair flat, which the spec skips.
      if (k % 9 == 0) p[v4.back()] = p[v3.back()];
      rest.push_back(3.0f + 0.1f * u(rng));
      alpha.push_back(k % 2 == 0 ? 0.0f : 1e-3f * (1.0f + u(rng)));
      lambda.push_back(0.01f * u(rng));
    }
    x = v = p;
  }
  kernels::ParticleView particles() {
    return {x.data(), p.data(), v.data(), w.data(), static_cast<std::uint32_t>(p.size())};
  }
  kernels::ProjectBatch<kernels::BendView> pbd() {
    return {particles(), {v1.data(), v2.data(), v3.data(), v4.data(), rest.data()}, 0.3f};
  }
  kernels::XpbdBatch<kernels::XpbdBendView> xpbd() {
    return {
        particles(),
        {{v1.data(), v2.data(), v3.data(), v4.data(), rest.data()}, alpha.data(), lambda.data()}};
  }
  bool same_as(const BendColour& o) const {
    return std::memcmp(p.data(), o.p.data(), p.size() * sizeof(glm::vec3)) == 0 &&
           std::memcmp(lambda.data(), o.lambda.data(), lambda.size() * sizeof(float)) == 0;
  }
};

template <class Pack, class Batch>
void project_in_packs(const Batch& batch) {
  std::uint32_t k = 0;
  for (; k + Pack::lanes <= BendColour::kPairs; k += Pack::lanes) {
    kernels::project_pack(batch, k, Pack{});
  }
  for (; k < BendColour::kPairs; ++k) batch(k);
}

#if defined(__x86_64__)
__attribute__((target("avx"))) void project_in_eights(BendColour& c, bool xpbd) {
  if (xpbd) {
    project_in_packs<kernels::F8>(c.xpbd());
  } else {
    project_in_packs<kernels::F8>(c.pbd());
  }
}
#endif

TEST(Kernels, BendPacksEqualTheFloatKernelPairByPair) {
  for (const bool xpbd : {false, true}) {
    BendColour one_by_one;
    for (std::uint32_t k = 0; k < BendColour::kPairs; ++k) {
      if (xpbd) {
        one_by_one.xpbd()(k);
      } else {
        one_by_one.pbd()(k);
      }
    }
    BendColour fours;
    if (xpbd) {
      project_in_packs<kernels::F4>(fours.xpbd());
    } else {
      project_in_packs<kernels::F4>(fours.pbd());
    }
    EXPECT_TRUE(fours.same_as(one_by_one)) << "F4, xpbd " << xpbd;
    for (const int threads : {1, 2}) {
      BendColour launched;
      const exec::CpuExec exec(threads);
      if (xpbd) {
        exec.for_each_pack(0, BendColour::kPairs, launched.xpbd());
      } else {
        exec.for_each_pack(0, BendColour::kPairs, launched.pbd());
      }
      EXPECT_TRUE(launched.same_as(one_by_one)) << "for_each_pack, xpbd " << xpbd;
    }
#if defined(__x86_64__)
    if (!__builtin_cpu_supports("avx")) continue;
    BendColour eights;
    project_in_eights(eights, xpbd);
    EXPECT_TRUE(eights.same_as(one_by_one)) << "F8, xpbd " << xpbd;
#endif
  }
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx")) GTEST_SKIP() << "no AVX on this CPU: F8 packs not run";
#endif
}

}  // namespace
}  // namespace drape
