// Mesh-sequence colliders (issue 17, animated bodies): poses interpolated in time, level sets
// cached on disk, a growing body that never holds a vertex inside, and bad sequences.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include <glm/geometric.hpp>

#include "collision/collider.h"
#include "drape/error.h"
#include "drape/simulation.h"
#include "model/cloth.h"
#include "test_util.h"

namespace drape {
namespace {

// A UV sphere of `radius` about (0, 0, 0) as OBJ text; `rings` sets its resolution.
std::string sphere_obj(double radius, int rings = 24) {
  std::string obj;
  const int segments = 2 * rings;
  obj += "v 0 " + std::to_string(radius) + " 0\n";
  for (int i = 1; i < rings; ++i) {
    const double theta = M_PI * i / rings;
    for (int j = 0; j < segments; ++j) {
      const double phi = 2.0 * M_PI * j / segments;
      obj += "v " + std::to_string(radius * std::sin(theta) * std::cos(phi)) + " " +
             std::to_string(radius * std::cos(theta)) + " " +
             std::to_string(radius * std::sin(theta) * std::sin(phi)) + "\n";
    }
  }
  obj += "v 0 " + std::to_string(-radius) + " 0\n";
  const auto ring = [&](int i, int j) { return 2 + (i - 1) * segments + (j % segments); };
  const int bottom = 2 + (rings - 1) * segments;
  for (int j = 0; j < segments; ++j) {
    obj += "f 1 " + std::to_string(ring(1, j + 1)) + " " + std::to_string(ring(1, j)) + "\n";
    for (int i = 1; i + 1 < rings; ++i) {
      const int a = ring(i, j), b = ring(i, j + 1), c = ring(i + 1, j), d = ring(i + 1, j + 1);
      obj += "f " + std::to_string(a) + " " + std::to_string(b) + " " + std::to_string(d) + "\n";
      obj += "f " + std::to_string(a) + " " + std::to_string(d) + " " + std::to_string(c) + "\n";
    }
    obj += "f " + std::to_string(bottom) + " " + std::to_string(ring(rings - 1, j)) + " " +
           std::to_string(ring(rings - 1, j + 1)) + "\n";
  }
  return obj;
}

std::string scene_with(const std::string& collider, const std::string& backend = "cpu") {
  return R"({"fps": 24, "frames": 36,
      "solver": {"backend": ")" +
         backend + R"(", "substeps": 8, "iterations": 10},
      "cloth": {"mesh": {"grid": {"resolution": [24, 24], "size": [1, 1], "center": [0, 0.23, 0]}}},
      "colliders": [)" +
         collider + "]}";
}

TEST(BodySequence, AGrowingBodyNeverHoldsAVertexInside) {
  if (!have_openvdb()) GTEST_SKIP() << "built without OpenVDB: no mesh-to-SDF";
  testing::TempDir dir;
  // Radius 0.2 m growing by 2.5 cm a pose, 4 poses a second: to 0.3 m in one second, then held.
  for (int k = 0; k < 5; ++k) {
    char name[32];
    std::snprintf(name, sizeof name, "grow/ball.%04d.obj", k);
    std::filesystem::create_directories(dir.file("grow"));
    dir.write(name, sphere_obj(0.2 + 0.025 * k));
  }
  for (const std::string backend : {"reference", "cpu"}) {
    Simulation sim(
        parse_scene(scene_with(R"({"mesh": "grow/ball.%04d.obj", "fps": 4, "voxel_size": 0.01,
                       "friction": 0.3})",
                               backend),
                    dir.file("scene.json")));
    sim.step(36);
    for (const FrameStats& s : sim.stats()) {
      EXPECT_EQ(s.penetrations, 0u) << backend << " frame " << s.frame;
    }
    // The cloth rests on the grown ball: its highest point near the top, 0.3 m.
    double top = -1.0;
    for (const glm::dvec3& p : sim.positions()) top = std::max(top, p.y);
    EXPECT_GT(top, 0.3) << backend;
    EXPECT_LT(top, 0.33) << backend;
  }
  // The level sets were cached beside the poses, one per pose, and the surface's motion, one
  // per interval between two poses.
  std::size_t level_sets = 0, motion = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.file("grow/.drape-sdf"))) {
    if (e.path().extension() != ".nvdb") continue;
    ++(e.path().filename().string().find(".motion.") != std::string::npos ? motion : level_sets);
  }
  EXPECT_EQ(level_sets, 5u);
  EXPECT_EQ(motion, 4u);
}

// A box from `lo` to `hi` as OBJ text (outward-facing triangles).
std::string box_obj(const glm::dvec3& lo, const glm::dvec3& hi) {
  std::string obj;
  for (int i = 0; i < 8; ++i) {
    obj += "v " + std::to_string(i & 1 ? hi.x : lo.x) + " " + std::to_string(i & 2 ? hi.y : lo.y) +
           " " + std::to_string(i & 4 ? hi.z : lo.z) + "\n";
  }
  for (const char* f : {"1 3 4", "1 4 2", "5 6 8", "5 8 7", "1 2 6", "1 6 5", "3 7 8", "3 8 4",
                        "1 5 7", "1 7 3", "2 4 8", "2 8 6"}) {
    obj += std::string("f ") + f + "\n";
  }
  return obj;
}

TEST(BodySequence, TheSurfacesMotionIsCarriedToTheVoxelsNearIt) {
  if (!have_openvdb()) GTEST_SKIP() << "built without OpenVDB: no mesh-to-SDF";
  testing::TempDir dir;
  dir.write("ball.obj", sphere_obj(0.2, 32));
  const TriMesh ball = load_mesh(dir.file("ball.obj"));
  // A turn of 0.1 rad about Y: each vertex moves by R p - p, tangent to the sphere.
  const double a = 0.1;
  std::vector<glm::dvec3> turn;
  for (const glm::dvec3& p : ball.positions) {
    turn.emplace_back(std::cos(a) * p.x + std::sin(a) * p.z - p.x, 0.0,
                      -std::sin(a) * p.x + std::cos(a) * p.z - p.z);
  }
  const MotionGrid motion = build_surface_motion(ball, turn, 0.02, 3);
  for (double angle : {0.0, 1.0, 2.5, 4.0}) {
    for (double r : {0.19, 0.2, 0.21}) {
      const glm::dvec3 p(r * std::cos(angle), 0.05, r * std::sin(angle));
      const glm::dvec3 on_surface = p * (0.2 / glm::length(p));
      const glm::dvec3 expected(
          std::cos(a) * on_surface.x + std::sin(a) * on_surface.z - on_surface.x, 0.0,
          -std::sin(a) * on_surface.x + std::cos(a) * on_surface.z - on_surface.z);
      // 2 cm voxels on a 0.2 m sphere: trilinear blends of neighbouring surface points.
      EXPECT_LT(glm::length(motion.sample(p) - expected), 0.1 * glm::length(expected))
          << "angle " << angle << " r " << r;
    }
  }
  EXPECT_EQ(motion.sample(glm::dvec3(0.0, 0.0, 0.0)), glm::dvec3(0.0));  // beyond the band
}

// A 40 cm cloth resting on a slab that slides 0.3 m along X in one second, then stops: as a pose
// sequence it carries the cloth as the same slab moved rigidly by `motion` keys does.
TEST(BodySequence, ClothOnATranslatingSequenceIsCarriedLikeOnARigidMotion) {
  if (!have_openvdb()) GTEST_SKIP() << "built without OpenVDB: no mesh-to-SDF";
  testing::TempDir dir;
  std::filesystem::create_directories(dir.file("slide"));
  const glm::dvec3 lo(-0.4, -0.05, -0.4), hi(0.4, 0.05, 0.4);
  dir.write("slab.obj", box_obj(lo, hi));
  for (int k = 0; k <= 6; ++k) {
    const glm::dvec3 shift(0.05 * k, 0.0, 0.0);
    dir.write("slide/slab." + std::to_string(k) + ".obj", box_obj(lo + shift, hi + shift));
  }
  const std::string cloth =
      R"({"fps": 24, "frames": 36, "solver": {"backend": "BACKEND", "substeps": 8, "iterations": 10},
          "cloth": {"mesh": {"grid": {"resolution": [12, 12], "size": [0.4, 0.4],
                                      "center": [0, 0.06, 0]}}},
          "colliders": [)";
  for (const std::string backend : {"reference", "cpu"}) {
    std::string text = cloth;
    text.replace(text.find("BACKEND"), 7, backend);
    Simulation sequence(parse_scene(
        text + R"({"mesh": "slide/slab.%d.obj", "fps": 6, "voxel_size": 0.01, "friction": 0.5}]})",
        dir.file("scene.json")));
    Simulation rigid(parse_scene(text + R"({"mesh": "slab.obj", "voxel_size": 0.01,
        "friction": 0.5, "motion": [{"time": 0}, {"time": 1, "translate": [0.3, 0, 0]}]}]})",
                                 dir.file("scene.json")));
    sequence.step(36);
    rigid.step(36);
    double worst = 0.0, carried = 0.0;
    for (std::size_t i = 0; i < rigid.positions().size(); ++i) {
      worst = std::max(worst, glm::length(sequence.positions()[i] - rigid.positions()[i]));
      carried += (sequence.positions()[i].x - cloth_model(sequence).mesh.positions[i].x) /
                 static_cast<double>(rigid.positions().size());
    }
    EXPECT_GT(carried, 0.25) << backend;  // friction 0.5 holds the cloth after a short slip
    EXPECT_LT(worst, 5e-3) << backend;
  }
}

TEST(BodySequence, ASequenceOfOnePoseRepeatedMatchesTheStaticMesh) {
  if (!have_openvdb()) GTEST_SKIP() << "built without OpenVDB: no mesh-to-SDF";
  testing::TempDir dir;
  std::filesystem::create_directories(dir.file("still"));
  for (int k = 0; k < 3; ++k)
    dir.write("still/ball." + std::to_string(k) + ".obj", sphere_obj(0.2));
  Simulation sequence(parse_scene(scene_with(R"({"mesh": "still/ball.%d.obj", "fps": 10})"),
                                  dir.file("scene.json")));
  Simulation still(
      parse_scene(scene_with(R"({"mesh": "still/ball.0.obj"})"), dir.file("scene.json")));
  sequence.step(12);
  still.step(12);
  double worst = 0.0;
  for (std::size_t i = 0; i < still.positions().size(); ++i) {
    worst = std::max(worst, glm::length(sequence.positions()[i] - still.positions()[i]));
  }
  EXPECT_LT(worst, 1e-4);
}

TEST(BodySequence, AttachedVerticesFollowTheirSurfacePoint) {
  if (!have_openvdb()) GTEST_SKIP() << "built without OpenVDB: no mesh-to-SDF";
  testing::TempDir dir;
  std::filesystem::create_directories(dir.file("grow"));
  for (int k = 0; k < 5; ++k) {
    dir.write("grow/ball." + std::to_string(k) + ".obj", sphere_obj(0.2 + 0.025 * k));
  }
  // A 10 cm patch 1 cm above the ball's top, its middle row attached: as the ball grows from
  // 0.2 to 0.3 m, each attached vertex keeps its 1 cm over the point of the surface under it.
  const std::string json = R"({"fps": 24, "frames": 30, "gravity": [0, 0, 0],
      "solver": {"backend": "BACKEND", "substeps": 4, "iterations": 10},
      "cloth": {"mesh": {"grid": {"resolution": [5, 5], "size": [0.1, 0.1], "center": [0, 0.21, 0]}},
                "attach": [{"collider": 0, "vertices": {"box": {"min": [-1, 0, -0.001],
                                                                "max": [1, 1, 0.001]}}}]},
      "colliders": [{"mesh": "grow/ball.%d.obj", "fps": 4, "voxel_size": 0.01}]})";
  for (const std::string backend : {"reference", "cpu"}) {
    std::string text = json;
    text.replace(text.find("BACKEND"), 7, backend);
    Simulation sim(parse_scene(text, dir.file("scene.json")));
    const ClothModel& cloth = cloth_model(sim);
    ASSERT_EQ(cloth.attachments.size(), 5u);
    std::vector<double> start;
    for (std::uint32_t v : cloth.attachments.vertex)
      start.push_back(glm::length(cloth.mesh.positions[v]));
    for (int f = 1; f <= 30; ++f) {
      sim.step();
      const double grown = 0.025 * std::min(4.0, 4.0 * sim.time());  // radius - 0.2 m
      for (std::size_t k = 0; k < start.size(); ++k) {
        const double r = glm::length(sim.positions()[cloth.attachments.vertex[k]]);
        EXPECT_NEAR(r, start[k] + grown, 1e-3) << backend << " frame " << f << " vertex " << k;
      }
    }
  }
}

std::string error_of(const testing::TempDir& dir, const std::string& collider) {
  try {
    Simulation sim(parse_scene(scene_with(collider), dir.file("scene.json")));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(BodySequence, BadSequencesAreClearErrors) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.file("s"));
  dir.write("s/b.0000.obj", sphere_obj(0.2, 8));
  dir.write("s/b.0001.obj", sphere_obj(0.2, 8));
  dir.write("s/b.0003.obj", sphere_obj(0.2, 8));
  EXPECT_EQ(error_of(dir, R"({"mesh": "s/b.%04d.obj"})"),
            dir.file("scene.json") + ": colliders[0]: " + dir.file("s/b.0002.obj") +
                " is missing: the sequence goes on with " + dir.file("s/b.0003.obj"));
  dir.write("s/b.0002.obj", sphere_obj(0.2, 6));
  EXPECT_NE(error_of(dir, R"({"mesh": "s/b.%04d.obj"})")
                .find(dir.file("s/b.0002.obj") + " has other vertices or triangles than " +
                      dir.file("s/b.0000.obj")),
            std::string::npos);
  EXPECT_EQ(error_of(dir, R"({"mesh": "s/b.%04d.obj", "first_frame": 7})"),
            dir.file("scene.json") + ": colliders[0]: " + dir.file("s/b.0007.obj") +
                ": cannot open (the sequence's first pose)");
  EXPECT_NE(error_of(dir, R"({"mesh": "s/b.0000.obj", "fps": 30})")
                .find("colliders[0].fps: applies to pose sequences only"),
            std::string::npos);
}

}  // namespace
}  // namespace drape
