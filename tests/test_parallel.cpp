// The coloured solver: colouring validity and balance, float kernels against the reference's
// double functions, determinism across runs and thread counts, agreement with `reference`.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>

#include "model/cloth.h"
#include "solver/colouring.h"
#include "solver/reference_constraints.h"
#include "solver/solver.h"
#include "model/strain.h"
#include "kernels/bend.h"
#include "kernels/distance.h"
#include "kernels/simd_f4.h"
#include "test_scenes.h"

namespace drape {
namespace {

void expect_valid_and_balanced(const Topology& t, std::size_t vertices, const std::string& what) {
  const ClothColouring c = colour_cloth(t, vertices);
  EXPECT_TRUE(is_valid_colouring(c.stretch, {t.edge_v0.data(), t.edge_v1.data()}, t.edge_count()))
      << what;
  EXPECT_TRUE(is_valid_colouring(
      c.bend, {t.bend_v1.data(), t.bend_v2.data(), t.bend_v3.data(), t.bend_v4.data()},
      t.bend_count()))
      << what;
  EXPECT_TRUE(is_valid_colouring(c.shear, {t.bend_v3.data(), t.bend_v4.data()}, t.bend_count()))
      << what;
  for (const Colouring* colouring : {&c.stretch, &c.bend, &c.shear}) {
    // Balance is only asked of batches large enough to be worth splitting across threads.
    if (colouring->order.size() < 20 * colouring->colour_count()) continue;
    const double mean = static_cast<double>(colouring->order.size()) /
                        static_cast<double>(colouring->colour_count());
    for (std::size_t k = 0; k < colouring->colour_count(); ++k) {
      EXPECT_GE(colouring->colour_size(k), 0.5 * mean) << what << ": colour " << k << " is tiny";
    }
  }
}

TriMesh grid(int nx, int nz) {
  GridDesc g;
  g.nx = nx;
  g.nz = nz;
  return make_grid(g);
}

TEST(Colouring, RegularGridsNeedFewColours) {
  for (int n : {4, 16, 32, 64, 128}) {
    const TriMesh m = grid(n, n);
    const Topology t = build_topology(m.positions, m.triangles);
    const ClothColouring c = colour_cloth(t, m.positions.size());
    EXPECT_LE(c.stretch.colour_count(), 8u) << n;
    EXPECT_LE(c.bend.colour_count(), 16u) << n;
    EXPECT_LE(c.shear.colour_count(), 8u) << n;
    expect_valid_and_balanced(t, m.positions.size(), "grid " + std::to_string(n));
  }
}

// A jittered grid with random diagonals and some random extra triangles: irregular valences,
// non-manifold edges and all.
TEST(Colouring, RandomMeshesAreValid) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 5; ++trial) {
    const int n = 20 + 7 * trial;
    TriMesh m = grid(n, n);
    std::uniform_real_distribution<double> jitter(-0.2 / n, 0.2 / n);
    for (glm::dvec3& p : m.positions) p += glm::dvec3(jitter(rng), jitter(rng), jitter(rng));
    std::uniform_int_distribution<unsigned> vertex(0,
                                                   static_cast<unsigned>(m.positions.size() - 1));
    for (glm::uvec3& t : m.triangles) {
      if (rng() % 2) std::swap(t.x, t.z);
    }
    for (int extra = 0; extra < n; ++extra)
      m.triangles.emplace_back(vertex(rng), vertex(rng), vertex(rng));
    const Topology t = build_topology(m.positions, m.triangles);
    const ClothColouring c = colour_cloth(t, m.positions.size());
    EXPECT_TRUE(
        is_valid_colouring(c.stretch, {t.edge_v0.data(), t.edge_v1.data()}, t.edge_count()));
    EXPECT_TRUE(is_valid_colouring(
        c.bend, {t.bend_v1.data(), t.bend_v2.data(), t.bend_v3.data(), t.bend_v4.data()},
        t.bend_count()));
    EXPECT_TRUE(is_valid_colouring(c.shear, {t.bend_v3.data(), t.bend_v4.data()}, t.bend_count()));
  }
}

TEST(Colouring, InvalidColouringsAreDetected) {
  const std::uint32_t v0[] = {0, 1, 2}, v1[] = {1, 2, 3};
  Colouring c;
  c.order = {0, 1, 2};
  c.offsets = {0, 2, 3};  // edges 0-1 and 1-2 share vertex 1
  EXPECT_FALSE(is_valid_colouring(c, {v0, v1}, 3));
  c.offsets = {0, 1, 2, 3};
  EXPECT_TRUE(is_valid_colouring(c, {v0, v1}, 3));
  c.order = {0, 0, 2};
  EXPECT_FALSE(is_valid_colouring(c, {v0, v1}, 3));
}

TEST(Colouring, RealGarmentsAreValidAndBalanced) {
  const std::string dir = std::string(DRAPE_SHARED_DATA) + "/garments/";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " is absent";
  for (const char* name :
       {"dress_panels.obj", "dress_draped.obj", "skirt8k.obj", "table_cloth.obj"}) {
    const TriMesh m = load_mesh(dir + name);
    const Topology t = build_topology(m.positions, m.triangles);
    expect_valid_and_balanced(t, m.positions.size(), name);
  }
}

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

// Extreme but legal settings never produce NaN or infinity, on either CPU backend.
TEST(Solvers, ExtremeSettingsStayFinite) {
  struct Case {
    const char* name;
    void (*apply)(Scene&);
  };
  const Case cases[] = {
      {"stiffness 0", [](Scene& s) { s.cloth.stretch = s.cloth.shear = s.cloth.bend = 0.0; }},
      {"stiffness 1", [](Scene& s) { s.cloth.stretch = s.cloth.shear = s.cloth.bend = 1.0; }},
      {"1 substep", [](Scene& s) { s.solver.substeps = 1; }},
      {"200 iterations", [](Scene& s) { s.solver.iterations = 200; }},
      {"strong wind",
       [](Scene& s) {
         s.wind = {60, -20, 90};
       }},
      {"pins everywhere",
       [](Scene& s) {
         s.cloth.pins.kind = PinDesc::Kind::box;
         s.cloth.pins.box_min = glm::dvec3(-10);
         s.cloth.pins.box_max = glm::dvec3(10);
       }},
      {"no pins", [](Scene& s) { s.cloth.pins.kind = PinDesc::Kind::none; }},
      {"no damping", [](Scene& s) { s.cloth.damping = 1.0; }},
      {"full damping", [](Scene& s) { s.cloth.damping = 0.0; }},
  };
  for (const Case& c : cases) {
    Scene scene = testing::grid_scene(16, 1.0, {0, 1, 0});
    scene.cloth.pins.kind = PinDesc::Kind::indices;
    scene.cloth.pins.indices = {0, 15};
    c.apply(scene);
    const ClothModel cloth = build_cloth(scene);
    for (const char* backend : {"reference", "cpu"}) {
      auto solver = make_solver(backend, cloth, physics_params(scene));
      std::vector<glm::dvec3> x;
      for (int f = 0; f < 12; ++f) solver->step_frame();
      solver->copy_positions(x);
      for (const glm::dvec3& p : x) {
        ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))
            << c.name << " on " << backend;
      }
    }
  }
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

using testing::two_corner_scene;

std::vector<std::vector<glm::dvec3>> run_frames(Solver& solver, int frames) {
  std::vector<std::vector<glm::dvec3>> out(frames);
  for (int f = 0; f < frames; ++f) {
    solver.step_frame();
    solver.copy_positions(out[f]);
  }
  return out;
}

TEST(Cpu, BitIdenticalAcrossRunsAndThreadCounts) {
  Scene scene = two_corner_scene();
  const ClothModel cloth = build_cloth(scene);
  const PhysicsParams params = physics_params(scene);
  auto first = make_cpu_solver(cloth, params, 2);
  const auto expected = run_frames(*first, 6);
  for (int threads : {2, 1, 3, 4}) {
    auto solver = make_cpu_solver(cloth, params, threads);
    const auto got = run_frames(*solver, 6);
    for (int f = 0; f < 6; ++f) {
      ASSERT_EQ(got[f], expected[f]) << threads << " threads, frame " << f + 1;
    }
  }
  EXPECT_NE(expected[5], cloth.mesh.positions);
}

TEST(Cpu, PinnedVerticesNeverMove) {
  Scene scene = two_corner_scene();
  scene.wind = {5, 3, 8};
  const ClothModel cloth = build_cloth(scene);
  auto solver = make_cpu_solver(cloth, physics_params(scene), 0);
  for (const auto& frame : run_frames(*solver, 12)) {
    EXPECT_EQ(frame[0], glm::dvec3(glm::vec3(cloth.mesh.positions[0])));
    EXPECT_EQ(frame[31], glm::dvec3(glm::vec3(cloth.mesh.positions[31])));
  }
}

// cpu against reference for 24 frames: within 1% of the cloth's size (1 m) at every vertex of
// every frame, and the final drape's max strain at most 10% above the reference's.
// With 16 substeps: at the default 4 substeps x 10 iterations this cloth is far from converged
// (70-100% strain at the pinned corners in both backends) and two Gauss-Seidel orders then
// differ by ~5 cm. The peak strain of the falling transient is recorded, not bounded: the
// spec's sweep order carries corrections from the pins across the cloth within one iteration,
// which colour batches cannot, so that peak is ~30% higher on cpu (the reference run in colour
// order shows the same 30%: it is the order, not float32).
TEST(Cpu, AgreesWithReference) {
  Scene scene = two_corner_scene();
  scene.solver.substeps = 16;
  const ClothModel cloth = build_cloth(scene);
  const PhysicsParams params = physics_params(scene);
  auto reference = make_reference_solver(cloth, params);
  auto cpu = make_cpu_solver(cloth, params, 0);
  const auto expected = run_frames(*reference, 24);
  const auto got = run_frames(*cpu, 24);
  double worst = 0.0, max_travel = 0.0, peak_ref = 0.0, peak_cpu = 0.0;
  for (int f = 0; f < 24; ++f) {
    for (std::size_t i = 0; i < got[f].size(); ++i) {
      worst = std::max(worst, glm::length(got[f][i] - expected[f][i]));
      max_travel = std::max(max_travel, glm::length(expected[f][i] - cloth.mesh.positions[i]));
    }
    peak_ref = std::max(peak_ref, edge_strain(cloth.topology, expected[f]).max);
    peak_cpu = std::max(peak_cpu, edge_strain(cloth.topology, got[f]).max);
  }
  const double final_ref = edge_strain(cloth.topology, expected.back()).max;
  const double final_cpu = edge_strain(cloth.topology, got.back()).max;
  RecordProperty("max_vertex_difference_m", std::to_string(worst));
  RecordProperty("final_max_strain",
                 std::to_string(final_ref) + " reference, " + std::to_string(final_cpu) + " cpu");
  RecordProperty("peak_max_strain",
                 std::to_string(peak_ref) + " reference, " + std::to_string(peak_cpu) + " cpu");
  EXPECT_LT(worst, 0.01);
  EXPECT_LE(final_cpu, 1.1 * final_ref);
  EXPECT_GT(max_travel, 0.3);
}

}  // namespace
}  // namespace drape
