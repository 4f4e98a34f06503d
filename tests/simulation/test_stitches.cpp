// Sewing (issue 17): the stitch constraint against hand-computed values and finite differences,
// stitches closing a gap between two flat panels on every backend and in both models, the sew
// time, self-collision leaving seams alone, and the errors of cloth.stitches.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include <glm/geometric.hpp>

#include "drape/error.h"
#include "drape/simulation.h"
#include "kernels/stitch.h"
#include "model/cloth.h"
#include "model/stitches.h"
#include "model/topology.h"
#include "test_util.h"

namespace drape {
namespace {

using V3 = kernels::Vec3<double>;

// The stitch's C at positions v, a, b (rest 0): |v - ((1 - t) a + t b)|.
double stitch_c(const V3& v, const V3& a, const V3& b, double t) {
  return length(v - (a * (1.0 - t) + b * t));
}

TEST(Stitch, OneProjectionClosesAStitchAndConservesMomentum) {
  // v one metre above the middle of edge ab, unit masses: W = 1 + 1/4 + 1/4, dlambda = -2/3.
  V3 n{0.0, 0.0, 0.0};
  const V3 v{0.0, 1.0, 0.0}, a{-1.0, 0.0, 0.0}, b{1.0, 0.0, 0.0};
  const double dl = kernels::stitch_dlambda(v, 1.0, a, 1.0, b, 1.0, 0.5, 0.0, 0.0, 0.0, n);
  EXPECT_NEAR(dl, -2.0 / 3.0, 1e-12);
  EXPECT_NEAR(n.y, 1.0, 1e-12);
  const V3 dv = n * dl, da = n * (-0.5 * dl), db = n * (-0.5 * dl);
  EXPECT_NEAR(dv.y, -2.0 / 3.0, 1e-12);
  EXPECT_NEAR(da.y, 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(dv.y + da.y + db.y, 0.0, 1e-12);  // equal masses: momentum conserved
  EXPECT_NEAR(stitch_c(v + dv, a + da, b + db, 0.5), 0.0, 1e-12);
  // A pinned edge: only v moves, all the way.
  const double pinned = kernels::stitch_dlambda(v, 1.0, a, 0.0, b, 0.0, 0.5, 0.0, 0.0, 0.0, n);
  EXPECT_NEAR(pinned, -1.0, 1e-12);
}

TEST(Stitch, GradientMatchesFiniteDifferences) {
  // dlambda = -C / W with W = sum w_i |grad_i C|^2: for unit masses and a small C the step is
  // -C / W along the gradient; compare the implied gradient with central differences of C.
  const V3 v{0.1, 0.3, -0.2}, a{-0.4, 0.05, 0.1}, b{0.5, -0.1, 0.2};
  const double t = 0.3, h = 1e-6;
  V3 n{0.0, 0.0, 0.0};
  const double dl = kernels::stitch_dlambda(v, 1.0, a, 1.0, b, 1.0, t, 0.0, 0.0, 0.0, n);
  const double c = stitch_c(v, a, b, t);
  const double w = 1.0 + (1.0 - t) * (1.0 - t) + t * t;
  EXPECT_NEAR(dl, -c / w, 1e-12);
  const V3 grads[3] = {n, n * (-(1.0 - t)), n * (-t)};
  for (int vertex = 0; vertex < 3; ++vertex) {
    for (int axis = 0; axis < 3; ++axis) {
      V3 p[3] = {v, a, b};
      double* coord = axis == 0 ? &p[vertex].x : axis == 1 ? &p[vertex].y : &p[vertex].z;
      *coord += h;
      const double up = stitch_c(p[0], p[1], p[2], t);
      *coord -= 2.0 * h;
      const double down = stitch_c(p[0], p[1], p[2], t);
      const V3& g = grads[vertex];
      const double analytic = axis == 0 ? g.x : axis == 1 ? g.y : g.z;
      EXPECT_NEAR((up - down) / (2.0 * h), analytic, 1e-6) << vertex << " " << axis;
    }
  }
}

// Two 0.3 m panels in the XZ plane, 10 cm apart along X: the left one's right column (x = -0.05,
// rows at z = i h) faces the right one's left column (x = 0.05). Sewn from a file, the right
// panel is shifted by h / 2 along Z and left vertex i > 0 is sewn to the middle of right edge
// (i - 1, i) and right vertex 0 to the middle of left edge (0, 1) (a zipper); inline, the panels
// are level and left vertex i is sewn to right vertex i ([v, w]).
constexpr int kRows = 7;
constexpr double kGap = 0.1;

int left_seam(int i) {
  return i * kRows + kRows - 1;
}
int right_seam(int i) {
  return kRows * kRows + i * kRows;
}

std::string two_panels_obj(bool shifted) {
  std::string obj;
  const double h = 0.3 / (kRows - 1);
  for (int panel = 0; panel < 2; ++panel) {
    for (int i = 0; i < kRows; ++i) {
      for (int j = 0; j < kRows; ++j) {
        const double x = panel == 0 ? -0.35 + j * h : 0.05 + j * h;
        const double z = i * h + (panel == 1 && shifted ? 0.5 * h : 0.0);
        obj += "v " + std::to_string(x) + " 1 " + std::to_string(z) + "\n";
      }
    }
  }
  for (int panel = 0; panel < 2; ++panel) {
    for (int i = 0; i + 1 < kRows; ++i) {
      for (int j = 0; j + 1 < kRows; ++j) {
        const int o = panel * kRows * kRows + i * kRows + j + 1;  // 1-based
        obj += "f " + std::to_string(o) + " " + std::to_string(o + 1) + " " +
               std::to_string(o + kRows) + "\nf " + std::to_string(o + 1) + " " +
               std::to_string(o + kRows + 1) + " " + std::to_string(o + kRows) + "\n";
      }
    }
  }
  for (int i = 1; shifted && i < kRows; ++i) {
    obj += "stitch " + std::to_string(left_seam(i)) + " " + std::to_string(right_seam(i - 1)) +
           " " + std::to_string(right_seam(i)) + " 0.5\n";
  }
  // The seam's other end, sewn the other way: right vertex 0 to the middle of left edge (0, 1).
  if (shifted) {
    obj += "stitch " + std::to_string(right_seam(0)) + " " + std::to_string(left_seam(0)) + " " +
           std::to_string(left_seam(1)) + " 0.5\n";
  }
  return obj;
}

// The panels sewn from the file (`shifted`) or by inline [v, w] stitches.
Simulation sewing(const testing::TempDir& dir, const std::string& backend, const std::string& extra,
                  bool shifted = true) {
  dir.write("panels.obj", two_panels_obj(shifted));
  std::string stitches = "\"panels.obj\"";
  if (!shifted) {
    stitches = "[";
    for (int i = 0; i < kRows; ++i) {
      stitches += (i > 0 ? ", [" : "[") + std::to_string(left_seam(i)) + ", " +
                  std::to_string(right_seam(i)) + "]";
    }
    stitches += "]";
  }
  const std::string json = R"({"fps": 24, "frames": 24, "gravity": [0, 0, 0],
      "solver": {"backend": ")" +
                           backend + R"(", "substeps": 8, "iterations": 10},
      "cloth": {"mesh": "panels.obj", "sew_time": 0.5, "stitches": )" +
                           stitches + extra + "}}";
  return Simulation(parse_scene(json, dir.file("scene.json")));
}

glm::dvec3 centroid(const std::vector<glm::dvec3>& p, const std::vector<double>& w) {
  glm::dvec3 sum(0.0);
  double mass = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    sum += p[i] / w[i];
    mass += 1.0 / w[i];
  }
  return sum / mass;
}

TEST(Stitch, StitchesCloseTheGapBetweenTwoPanelsOverTheSewTime) {
  testing::TempDir dir;
  for (const std::string backend : {"reference", "cpu"}) {
    for (const std::string model : {"", R"(, "model": "xpbd", "material": "cotton")"}) {
      for (bool shifted : {true, false}) {
        const std::string what = backend + model + (shifted ? " file" : " inline");
        Simulation sim = sewing(dir, backend, model, shifted);
        const ClothModel& cloth = cloth_model(sim);
        ASSERT_EQ(cloth.stitches.size(), static_cast<std::size_t>(kRows));
        const glm::dvec3 start = centroid(sim.positions(), cloth.inv_mass);
        EXPECT_NEAR(sim.stats()[0].stitch_gap.max, kGap, 1e-6);
        sim.step(6);  // 0.25 s: half the sew time, the stitches half as long
        EXPECT_NEAR(sim.stats().back().stitch_gap.mean, 0.5 * kGap, 0.1 * kGap) << what;
        sim.step(18);
        EXPECT_LT(sim.stats().back().stitch_gap.max, 1e-3) << what;
        // No gravity, no colliders: stitches move no mass centre (to float rounding on cpu).
        EXPECT_LT(glm::length(centroid(sim.positions(), cloth.inv_mass) - start), 1e-4) << what;
        EXPECT_EQ(sim.stats().back().self_intersections, 0u) << what;  // seams are not crossings
      }
    }
  }
}

TEST(Stitch, BackendsSewAlike) {
  // The cpu backend projects the stitches colour by colour, the reference in file order: the same
  // seam, closed along slightly different paths, so the free panels may end turned by a little
  // about their common mass centre. Compared: each vertex's distance to that centre (blind to
  // the turn), frame by frame; any thread count gives the same frames. Where a device exists,
  // cuda is held to the same bar.
  testing::TempDir dir;
  Simulation reference = sewing(dir, "reference", "");
  Scene scene = sewing(dir, "cpu", "").scene();
  Simulation one(scene, SimulationOptions{1});
  Simulation two(scene, SimulationOptions{2});
  std::unique_ptr<Simulation> cuda;
  if (cuda_device_count() > 0) {
    scene.solver.backend = Backend::cuda;
    cuda = std::make_unique<Simulation>(scene);
  }
  const std::vector<double>& w = cloth_model(one).inv_mass;
  const auto worst_from_reference = [&](const Simulation& sim) {
    const glm::dvec3 c = centroid(sim.positions(), w), r = centroid(reference.positions(), w);
    double worst = 0.0;
    for (std::size_t i = 0; i < sim.positions().size(); ++i) {
      worst = std::max(worst, std::abs(glm::length(sim.positions()[i] - c) -
                                       glm::length(reference.positions()[i] - r)));
    }
    return worst;
  };
  for (int f = 1; f <= 24; ++f) {
    reference.step();
    one.step();
    two.step();
    ASSERT_EQ(one.positions(), two.positions()) << "frame " << f;
    EXPECT_LT(worst_from_reference(one), 2e-3) << "frame " << f;
    if (cuda) {
      cuda->step();
      EXPECT_LT(worst_from_reference(*cuda), 2e-3) << "cuda frame " << f;
    }
  }
}

TEST(Stitch, MorePassesCloseAChainedSeamFaster) {
  // Sewn at once (sew_time 0) across the 10 cm gap, the zipper's stitches share vertices: a chain
  // that each pass closes only in part while the panels' stretch pulls back. After one frame,
  // four passes per iteration leave a narrower seam than one, on both backends.
  testing::TempDir dir;
  for (const std::string backend : {"reference", "cpu"}) {
    double gap[2];
    for (int k = 0; k < 2; ++k) {
      Simulation sim = sewing(dir, backend,
                              R"(, "model": "xpbd", "material": "cotton", "stitch_passes": )" +
                                  std::to_string(k == 0 ? 1 : 4));
      Scene scene = sim.scene();
      scene.cloth.sew_time = 0.0;
      Simulation at_once(scene);
      EXPECT_EQ(at_once.scene().cloth.stitch_passes, k == 0 ? 1 : 4);
      at_once.step();
      gap[k] = at_once.stats().back().stitch_gap.max;
    }
    EXPECT_LT(gap[1], 0.5 * gap[0]) << backend << ": " << gap[0] << " m with one pass";
  }
}

TEST(Stitch, SelfCollisionLeavesTheSeamsAlone) {
  // A 5 mm contact thickness would hold the two edges of a seam 5 mm apart; stitched pairs are
  // neighbours, not contacts.
  testing::TempDir dir;
  Simulation sim =
      sewing(dir, "cpu", R"(, "self_collision": true, "thickness": 0.005, "friction": 0.1)");
  sim.step(24);
  EXPECT_LT(sim.stats().back().stitch_gap.max, 1e-3);
  EXPECT_EQ(sim.stats().back().self_intersections, 0u);
}

TEST(Stitch, SeamNeighboursJoinWhatSewingBringsTogether) {
  // A strip of triangles along X (vertices 0-9 below, 10-19 above) and stitches: 1 to the middle
  // of edge (17, 18); 4 and 6 both to vertex 19; 0 to vertex 2, two edges apart (a tuck).
  std::vector<glm::uvec3> triangles;
  for (std::uint32_t i = 0; i + 1 < 10; ++i) {
    triangles.emplace_back(i, i + 1, i + 10);
    triangles.emplace_back(i + 1, i + 11, i + 10);
  }
  const auto sewn = [](std::vector<std::uint32_t> v, std::vector<std::uint32_t> a,
                       std::vector<std::uint32_t> b, std::vector<double> t) {
    StitchSet s;
    s.v = std::move(v);
    s.a = std::move(a);
    s.b = std::move(b);
    s.length.assign(t.size(), 0.0);
    s.t = std::move(t);
    return s;
  };
  const SeamNeighbours n = seam_neighbours(
      sewn({1, 4, 6, 0}, {17, 19, 19, 2}, {18, 19, 19, 2}, {0.5, 0, 0, 0}), triangles, 20);
  EXPECT_TRUE(n.joined(1, 17) && n.joined(17, 1) && n.joined(1, 18));  // a stitch's ends
  EXPECT_TRUE(n.joined(4, 6) && n.joined(6, 4));                       // both sewn to 19
  // The tuck: every vertex of a triangle at 0 (0, 1, 10) with every one at 2 (1, 2, 3, 11, 12).
  for (std::uint32_t x : {0u, 1u, 10u}) {
    for (std::uint32_t y : {1u, 2u, 3u, 11u, 12u}) {
      if (x != y) {
        EXPECT_TRUE(n.joined(x, y) && n.joined(y, x)) << x << " " << y;
      }
    }
  }
  EXPECT_FALSE(n.joined(1, 4));
  EXPECT_FALSE(n.joined(10, 13));
  EXPECT_FALSE(n.joined(4, 18));
  // Without stitches nothing is joined; a stitch five edges long joins only its ends.
  EXPECT_TRUE(seam_neighbours(StitchSet{}, triangles, 20).empty());
  const SeamNeighbours far = seam_neighbours(sewn({0}, {5}, {5}, {0.0}), triangles, 20);
  EXPECT_TRUE(far.joined(0, 5));
  EXPECT_FALSE(far.joined(1, 4));
  EXPECT_FALSE(far.joined(10, 15));
}

TEST(Stitch, SewnSurfaceNeighboursFollowTheFabricAcrossSeams) {
  // The strip of the test above, 1 m squares (vertices 0-9 at y = 0, 10-19 at y = 1), vertex 0
  // sewn to vertex 9: along the sewn surface 0 is as near to 9 as to itself, to 8 and 19 one
  // metre away, to 18 one diagonal away (the strip's diagonals run from i + 1 to i + 10).
  std::vector<glm::dvec3> x;
  for (int row = 0; row < 2; ++row) {
    for (int i = 0; i < 10; ++i) x.emplace_back(i, row, 0.0);
  }
  std::vector<glm::uvec3> triangles;
  for (std::uint32_t i = 0; i + 1 < 10; ++i) {
    triangles.emplace_back(i, i + 1, i + 10);
    triangles.emplace_back(i + 1, i + 11, i + 10);
  }
  const Topology topology = build_topology(x, triangles);
  StitchSet stitch;
  stitch.v = {0};
  stitch.a = stitch.b = {9};
  stitch.t = stitch.length = {0.0};
  const SeamNeighbours near = sewn_surface_neighbours(stitch, topology, x.size(), 1.5);
  const std::vector<std::uint32_t> of_0(near.vertices.begin() + near.offsets[0],
                                        near.vertices.begin() + near.offsets[1]);
  EXPECT_EQ(of_0, (std::vector<std::uint32_t>{0, 1, 8, 9, 10, 18, 19}));
  // 10 reaches 9 over 0 (1 m), but not 19 (2 m).
  EXPECT_TRUE(near.joined(10, 9) && near.joined(9, 10));
  EXPECT_FALSE(near.joined(10, 19));
  // Without the stitch the strip's ends are 9 m apart along it, however the strip lies in space.
  const SeamNeighbours apart = sewn_surface_neighbours(StitchSet{}, topology, x.size(), 1.5);
  EXPECT_FALSE(apart.joined(0, 9));
  EXPECT_TRUE(apart.joined(0, 1) && apart.joined(1, 10) && !apart.joined(0, 11));
  // A path of exactly the reach counts: 0 to 2 along the bottom row.
  EXPECT_TRUE(sewn_surface_neighbours(StitchSet{}, topology, x.size(), 2.0).joined(0, 2));
  // With a reach shorter than the edges, an edge at a stitched vertex counts the reach: the first
  // ring around the seam is joined to it (and so to the other side), nothing past that ring.
  const SeamNeighbours coarse = sewn_surface_neighbours(stitch, topology, x.size(), 0.8);
  const std::vector<std::uint32_t> ring_of_0(coarse.vertices.begin() + coarse.offsets[0],
                                             coarse.vertices.begin() + coarse.offsets[1]);
  EXPECT_EQ(ring_of_0, (std::vector<std::uint32_t>{0, 1, 8, 9, 10, 18, 19}));
  EXPECT_FALSE(coarse.joined(1, 10));  // two capped edges: 1.6 m
  EXPECT_FALSE(coarse.joined(1, 2));   // an edge away from the seam keeps its length
  EXPECT_FALSE(sewn_surface_neighbours(StitchSet{}, topology, x.size(), 0.8).joined(0, 1));
}

std::string error_of(const testing::TempDir& dir, const std::string& cloth_keys) {
  dir.write("panels.obj", two_panels_obj(true));
  try {
    Simulation sim(parse_scene(R"({"cloth": {"mesh": "panels.obj", )" + cloth_keys + "}}",
                               dir.file("scene.json")));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Stitch, BadStitchesAreClearErrors) {
  testing::TempDir dir;
  EXPECT_EQ(error_of(dir, R"("stitches": [[0, 1, 2, 0.5], [3, 99, 4, 0.5]])"),
            dir.file("scene.json") +
                ": cloth.stitches[1]: stitch 3 99 4 0.5: vertex 99 is past the last vertex (97)");
  EXPECT_EQ(error_of(dir, R"("stitches": [[0, 1, 2, 1.5]])"),
            dir.file("scene.json") + ": cloth.stitches[0]: stitch 0 1 2 1.5: t must be in [0, 1]");
  EXPECT_EQ(error_of(dir, R"("stitches": [[5, 5]])"),
            dir.file("scene.json") +
                ": cloth.stitches[0]: stitch 5 5 5 0: the vertex is sewn to an edge it is on");
  EXPECT_NE(error_of(dir, R"("stitches": [[5, -1]])").find("with vertex indices from 0"),
            std::string::npos);
  dir.write("bad.obj", "v 0 0 0\nstitch 0 1 2 0.5\nstitch 0 1 x 0.5\n");
  EXPECT_EQ(
      error_of(dir, R"("stitches": "bad.obj")"),
      dir.file("bad.obj") + ":3: expected 'stitch v a b t' (vertex indices from 0, t in [0, 1])");
  dir.write("none.obj", "v 0 0 0\n");
  EXPECT_EQ(error_of(dir, R"("stitches": "none.obj")"),
            dir.file("none.obj") + ": cloth.stitches: the file has no 'stitch' lines");
  EXPECT_NE(error_of(dir, R"("sew_time": 1)").find("cloth.sew_time: needs cloth.stitches"),
            std::string::npos);
  EXPECT_NE(error_of(dir, R"("stitches": [[0, 1]], "stitch_compliance": 0.001)")
                .find("cloth.stitch_compliance: is an XPBD compliance"),
            std::string::npos);
}

}  // namespace
}  // namespace drape
