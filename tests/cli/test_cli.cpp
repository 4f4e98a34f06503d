// The drape command: simulate, its flags, outputs, failures and warnings; render, sdf, info.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_run.h"
#include "collision/collider.h"
#include "drape/mesh.h"
#include "io/cache.h"
#include "io/render.h"
#include "model/primitives.h"
#include "solver/solver.h"

namespace drape {
namespace {

namespace fs = std::filesystem;
using namespace testing;  // cli/cli_run.h: run_drape, Result, slurp, count_files, kSmallScene

TEST(Cli, SimulateWritesEveryFrameAndStats) {
  testing::TempDir dir;
  dir.write("scene.json", kSmallScene);
  const Result r = run_drape(dir, "simulate scene.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("simulated 3 frames of 30 vertices"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");                                        // not a terminal: no progress bar
  EXPECT_EQ(count_files(dir.file("out")), 4u * 2 + 1);         // frames and stats.json
  EXPECT_FALSE(fs::exists(dir.file("out/sheet.checkpoint")));  // removed when the run finished
  for (int frame = 0; frame <= 3; ++frame) {
    const TriMesh ply = load_mesh(frame_path(dir.file("out"), "sheet", frame, "ply"));
    const TriMesh obj = load_mesh(frame_path(dir.file("out"), "sheet", frame, "obj"));
    ASSERT_EQ(ply.positions.size(), 30u);
    ASSERT_EQ(ply.triangles.size(), 40u);
    EXPECT_EQ(ply.triangles, obj.triangles);
    for (std::size_t i = 0; i < 30; ++i) EXPECT_NEAR(ply.positions[i].y, obj.positions[i].y, 1e-6);
    EXPECT_EQ(ply.positions[0], glm::dvec3(-0.5, 1, -0.5));  // pinned
    if (frame > 0) {
      EXPECT_LT(ply.positions[29].y, 1.0);  // the free corner falls
    }
  }
  const auto stats = nlohmann::json::parse(slurp(dir.file("out/stats.json")));
  ASSERT_EQ(stats["frames"].size(), 4u);
  EXPECT_EQ(stats["settings"]["substeps"], 2);
  EXPECT_EQ(stats["settings"]["backend"], "cpu");
  EXPECT_GE(stats["settings"]["threads"].get<int>(), 1);
  EXPECT_GT(stats["frames"][3]["max_strain"].get<double>(), 0.0);
  EXPECT_GE(stats["frames"][3]["mean_strain"].get<double>(), 0.0);
  EXPECT_GT(stats["frames"][3]["ms"].get<double>(), 0.0);
}

TEST(Cli, FlagsOverrideTheScene) {
  testing::TempDir dir;
  dir.write("scene.json", kSmallScene);
  const Result r = run_drape(
      dir, "simulate scene.json -o elsewhere --frames 1 --format obj --stats s.json --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(count_files(dir.file("elsewhere")), 2u);  // frames 0 and 1
  EXPECT_TRUE(fs::exists(dir.file("elsewhere/sheet.0001.obj")));
  EXPECT_TRUE(fs::exists(dir.file("s.json")));
  EXPECT_FALSE(fs::exists(dir.file("out")));
}

TEST(Cli, CpuOutputIsIdenticalForAnyThreadCount) {
  testing::TempDir dir;
  dir.write("scene.json", kSmallScene);
  ASSERT_EQ(run_drape(dir, "simulate scene.json -o one --threads 1 --backend cpu --quiet").code, 0);
  ASSERT_EQ(run_drape(dir, "simulate scene.json -o two --threads 2 --backend cpu --quiet").code, 0);
  for (int frame = 0; frame <= 3; ++frame) {
    EXPECT_EQ(slurp(frame_path(dir.file("one"), "sheet", frame, "ply")),
              slurp(frame_path(dir.file("two"), "sheet", frame, "ply")));
  }
}

TEST(Cli, CudaWithoutADeviceIsARuntimeError) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  testing::TempDir dir;
  dir.write("scene.json", kSmallScene);
  const Result r = run_drape(dir, "simulate scene.json --backend cuda");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("drape: error: the cuda backend ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(count_files(dir.file("out")), 0u);
}

TEST(Cli, UnwritableOutputIsARuntimeError) {
  testing::TempDir dir;
  dir.write("scene.json", kSmallScene);
  dir.write("taken", "a file where the output folder should go");
  const Result r = run_drape(dir, "simulate scene.json -o taken/out");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("drape: error: taken/out: cannot create the output folder", 0), 0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// A full disk, as a file-size limit (ulimit -f, with SIGXFSZ ignored so writes fail with
// EFBIG): the run stops with one line, exit 1, and leaves neither a frame nor a temporary.
TEST(Cli, FullDiskLeavesNoPartialFrame) {
  testing::TempDir dir;
  dir.write("scene.json", R"({"frames": 3,
    "cloth": {"mesh": {"grid": {"resolution": [60, 60]}}}, "output": {"dir": "out"}})");
  const Result r = run_drape(dir, "simulate scene.json", "ulimit -f 64; trap '' XFSZ;");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("drape: error: out/cloth.0000.ply: cannot write: File too large", 0), 0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(count_files(dir.file("out")), 0u);
}

// Coordinates near float's limit overflow in the float32 solve: the run stops at the first frame
// with a non-finite position, names it and the vertex, and does not write that frame.
TEST(Cli, NumericalGuardStopsBeforeABadFrame) {
  testing::TempDir dir;
  dir.write("big.obj", "v 0 0 0\nv 3e38 0 0\nv 0 0 3e38\nv 3e38 0 3e38\nf 1 2 4\nf 1 4 3\n");
  dir.write("scene.json",
            R"({"frames": 2, "cloth": {"mesh": "big.obj"}, "output": {"dir": "out"}})");
  const Result r = run_drape(dir, "simulate scene.json --backend cpu");
  EXPECT_EQ(r.code, 1);
  // After the units warning that a mesh 3e38 m across draws.
  const std::string error =
      "drape: error: frame 1: vertex 0 has a non-finite position; the solve diverged\n";
  ASSERT_GE(r.err.size(), error.size());
  EXPECT_EQ(r.err.substr(r.err.size() - error.size()), error) << r.err;
  EXPECT_NE(r.err.find("m across"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir.file("out/cloth.0000.ply")));
  EXPECT_FALSE(fs::exists(dir.file("out/cloth.0001.ply")));
  EXPECT_FALSE(fs::exists(dir.file("out/stats.json")));
}

// On a terminal (here a pseudo-terminal from util-linux's `script`) a progress bar with frame k/N,
// ms/frame and an ETA is drawn on stderr; elsewhere it is not (every other test).
TEST(Cli, ProgressBarOnATerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no `script` here";
  testing::TempDir dir;
  dir.write("scene.json", kSmallScene);
  const std::string cmd = "cd '" + dir.path() +
                          "' && script -qec \"'" DRAPE_EXE
                          "' simulate scene.json\" typescript >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string screen = slurp(dir.file("typescript"));
  EXPECT_NE(screen.find("frame 3/3"), std::string::npos) << screen;
  EXPECT_NE(screen.find("ms/frame  ETA"), std::string::npos) << screen;
}

// PNG width and height from the IHDR chunk.
std::pair<int, int> png_size(const std::string& png) {
  if (png.size() < 24 || png.compare(1, 3, "PNG") != 0) return {0, 0};
  const auto be32 = [&](std::size_t at) {
    return (static_cast<unsigned char>(png[at]) << 24) |
           (static_cast<unsigned char>(png[at + 1]) << 16) |
           (static_cast<unsigned char>(png[at + 2]) << 8) | static_cast<unsigned char>(png[at + 3]);
  };
  return {be32(16), be32(20)};
}

TEST(Cli, RenderFramesAndContactSheets) {
  testing::TempDir dir;
  dir.write("scene.json", R"({"frames": 4,
    "cloth": {"mesh": {"grid": {"resolution": [12, 12], "center": [0, 0.6, 0]}}},
    "colliders": [{"sphere": {"center": [0, 0, 0], "radius": 0.4}},
                  {"plane": {"point": [0, -0.5, 0]}}],
    "output": {"dir": "out", "name": "c"}})");
  ASSERT_EQ(run_drape(dir, "simulate scene.json --quiet").code, 0);
  Result r = run_drape(dir, "render scene.json -o last.png --size 200x150");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(png_size(slurp(dir.file("last.png"))), std::make_pair(200, 150));
  r = run_drape(dir, "render scene.json -o sheet.png --frames 0,2,4 --columns 2 --size 100x80");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(png_size(slurp(dir.file("sheet.png"))), std::make_pair(200, 160));
  r = run_drape(dir, "render out/c.0004.ply -o mesh.png");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(png_size(slurp(dir.file("mesh.png"))), std::make_pair(640, 480));
  r = run_drape(dir, "render scene.json -o x.png --frames 9");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("out/c.0009.ply: frame 9 is not in the cache"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("x.png")));
}

// The rasterizer draws what is in front: a frame's picture is not the empty background.
TEST(Render, DrawsTheClothAndColliders) {
  RenderMesh sphere{make_uv_sphere(glm::dvec3(0.0), 0.5, 12, 24), glm::vec3(0.9f, 0.1f, 0.1f),
                    true};
  const Image image = render_meshes({sphere}, 64, 48);
  std::size_t red = 0;
  for (std::size_t i = 0; i < image.rgb.size(); i += 3) red += image.rgb[i] > 2 * image.rgb[i + 1];
  EXPECT_GT(red, 64u * 48u / 10);
  EXPECT_LT(red, 64u * 48u);
  const Image empty = render_meshes({}, 8, 8);
  EXPECT_EQ(empty.rgb[0], empty.rgb[3]);
}

TEST(Cli, HelpVersionInfo) {
  testing::TempDir dir;
  Result r = run_drape(dir, "--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("drape simulate SCENE.json"), std::string::npos);
  r = run_drape(dir, "--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind("drape ", 0), 0u);
  dir.write("quad.obj", "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nf 1 2 3 4\n");
  r = run_drape(dir, "info quad.obj");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("stretch constraints 5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bend constraints    1"), std::string::npos) << r.out;
  dir.write("scene.json", kSmallScene);
  r = run_drape(dir, "info scene.json");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("pinned vertices     2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stretch colours"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("self-collision      off"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("self-intersections  0 triangle pairs"), std::string::npos) << r.out;
  // Two triangles through each other: a mesh that is tangled before it is simulated.
  dir.write("crossed.obj",
            "v 0 0 0\nv 1 0 0\nv 0 0 1\nv 0.2 -0.5 0.2\nv 0.2 0.5 0.2\n"
            "v 0.3 0.5 0.1\nf 1 2 3\nf 4 5 6\n");
  r = run_drape(dir, "info crossed.obj");
  EXPECT_NE(r.out.find("self-intersections  1 triangle pairs"), std::string::npos) << r.out;
}

// A run with self-collision reports it in the summary line and, per frame, in stats.json.
TEST(Cli, SelfCollisionStatsInSummaryAndStatsJson) {
  testing::TempDir dir;
  dir.write("fold.json", R"({"frames": 16,
    "cloth": {"mesh": {"grid": {"resolution": [16, 16], "size": [0.5, 0.5], "center": [0, 0, 0]}},
              "transform": {"rotate_deg": [70, 0, 15], "translate": [0, 0.25, 0]},
              "thickness": 0.01, "self_collision": {"rebuild": "substep"}},
    "colliders": [{"plane": {"point": [0, 0, 0], "normal": [0, 1, 0]}}],
    "output": {"dir": "out"}})");
  const Result r = run_drape(dir, "simulate fold.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("at most 0 self-intersecting triangle pairs"), std::string::npos) << r.out;
  const nlohmann::json stats = nlohmann::json::parse(slurp(dir.file("out/stats.json")));
  EXPECT_EQ(stats["summary"]["max_self_intersections"], 0);
  EXPECT_EQ(stats["settings"]["self_collision"], true);
  // 33 mm edges at 10 mm thickness: edge-edge contacts everywhere (collision/edge_pairs.h).
  EXPECT_EQ(stats["settings"]["self_collision_edge_pairs"], "all");
  EXPECT_EQ(stats["frames"].size(), 17u);
  std::uint64_t contacts = 0;
  for (const auto& f : stats["frames"]) {
    EXPECT_EQ(f["self_intersections"], 0);
    contacts += f["self_contacts"].get<std::uint64_t>();
  }
  EXPECT_GT(contacts, 0u);
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;

  // A cloth that starts tangled: said once, after the run.
  dir.write("crossed.obj",
            "v 0 0 0\nv 1 0 0\nv 0 0 1\nv 0.2 -0.5 0.2\nv 0.2 0.5 0.2\n"
            "v 0.3 0.5 0.1\nf 1 2 3\nf 4 5 6\n");
  dir.write("tangled.json", R"({"frames": 1, "gravity": [0, 0, 0],
    "cloth": {"mesh": "crossed.obj", "self_collision": true}, "output": {"dir": "t"}})");
  const Result t = run_drape(dir, "simulate tangled.json");
  EXPECT_EQ(t.code, 0);
  EXPECT_NE(t.err.find("the cloth intersects itself in 1 triangle pairs at frame 0"),
            std::string::npos)
      << t.err;
}

TEST(Cli, WarnsAboutPolygonsAndDegenerateTriangles) {
  testing::TempDir dir;
  dir.write("m.obj", "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nv 2 0 0\nf 1 2 3 4\nf 1 2 5\n");
  dir.write("scene.json", R"({"frames": 1, "cloth": {"mesh": "m.obj"}})");
  const Result r = run_drape(dir, "simulate scene.json --quiet");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.err.find("1 polygons with more than 3 vertices were fan-triangulated"),
            std::string::npos);
  EXPECT_NE(r.err.find("1 degenerate triangles and 0 non-manifold edges"), std::string::npos);
}

TEST(Cli, OutputNormalsGoIntoPlyAndObjFrames) {
  testing::TempDir dir;
  std::string scene = kSmallScene;
  scene.replace(scene.find("\"formats\""), 0, "\"normals\": true, ");
  dir.write("scene.json", scene);
  const Result r = run_drape(dir, "simulate scene.json --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(slurp(dir.file("out/sheet.0003.ply")).find("property float nx\n"), std::string::npos);
  const std::string obj = slurp(dir.file("out/sheet.0003.obj"));
  EXPECT_NE(obj.find("\nvn "), std::string::npos);
  EXPECT_NE(obj.find("\nf 1//1 "), std::string::npos);
}

// Binary USD is converted by Pixar's Python library: without it the run stops before writing.
TEST(Cli, UsdcWithoutUsdCoreIsARuntimeErrorBeforeAnyFrame) {
  testing::TempDir dir;
  dir.write("scene.json", kSmallScene);
  const Result r =
      run_drape(dir, "simulate scene.json --format ply,usdc", "DRAPE_PYTHON=/nonexistent");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "drape: error: --format usdc: the binary USD is written by Pixar's USD library, and "
            "/nonexistent cannot import it (pip install usd-core, or set DRAPE_PYTHON to a Python "
            "that has it)\n");
  EXPECT_EQ(count_files(dir.file("out")), 0u);
}

// A real-world OBJ: an exporter's header lines and sewing lines are skipped with one warning per
// kind, `info` lists them, and a cloth 100 units across draws a units warning; a 1 m one none.
TEST(Cli, SkippedObjLinesAndUnitsAreWarnedAbout) {
  testing::TempDir dir;
  dir.write("big.obj",
            "File written by MeshLab\nFile two\nv 0 0 0\nv 100 0 0\nv 0 0 100\nv 100 0 100\n"
            "f 1 2 3\nf 2 4 3\nstitch 0 1 3 0.5\nstitch 1 0 2 0.5\nstitch 2 0 1 0.25\n");
  dir.write("scene.json", R"({"frames": 1, "cloth": {"mesh": "big.obj"}})");
  const Result r = run_drape(dir, "simulate scene.json --quiet");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err,
            "drape: warning: big.obj: 2 'File' lines skipped (not an OBJ statement drape reads)\n"
            "drape: warning: big.obj: 3 'stitch' lines skipped (not sewn: set cloth.stitches to "
            "this file to sew them)\n"
            "drape: warning: big.obj: the cloth is 100 m across; drape works in metres: if the "
            "mesh is in other units, scale it with cloth.transform.scale (0.01 for centimetres)\n");
  const Result info = run_drape(dir, "info big.obj");
  EXPECT_EQ(info.code, 0);
  EXPECT_NE(info.out.find("stitch              3 lines (sewing: cloth.stitches reads them)"),
            std::string::npos)
      << info.out;
  EXPECT_NE(info.err.find("the cloth is 100 m across"), std::string::npos);

  dir.write("scene.json",
            R"({"frames": 1, "cloth": {"mesh": "big.obj", "transform": {"scale": 0.01}}})");
  EXPECT_EQ(run_drape(dir, "simulate scene.json --quiet").err.find("m across"), std::string::npos);

  // Sewn from the same file: no stitch warning, and the summary names the seams' gap.
  dir.write("scene.json", R"({"frames": 1, "cloth": {"mesh": "big.obj", "stitches": "big.obj",
                              "transform": {"scale": 0.01}}})");
  const Result sewn = run_drape(dir, "simulate scene.json");
  EXPECT_EQ(sewn.code, 0) << sewn.err;
  EXPECT_EQ(sewn.err.find("'stitch'"), std::string::npos) << sewn.err;
  EXPECT_NE(sewn.out.find("drape: 3 stitches; widest seam gap"), std::string::npos) << sewn.out;
  const Result sewn_info = run_drape(dir, "info scene.json");
  EXPECT_NE(sewn_info.out.find("stitches            3"), std::string::npos) << sewn_info.out;
}

TEST(Cli, SdfThenSimulateOnTheLevelSet) {
  if (!have_openvdb()) GTEST_SKIP() << "built without OpenVDB: no mesh-to-SDF";
  testing::TempDir dir;
  // A closed box, 0.4 m wide, top at y = 0.2.
  dir.write("box.obj",
            "v -0.2 -0.2 -0.2\nv 0.2 -0.2 -0.2\nv -0.2 0.2 -0.2\nv 0.2 0.2 -0.2\n"
            "v -0.2 -0.2 0.2\nv 0.2 -0.2 0.2\nv -0.2 0.2 0.2\nv 0.2 0.2 0.2\n"
            "f 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n");
  Result r = run_drape(dir, "sdf box.obj -o box.nvdb --voxel-size 0.01 --band 4");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote box.nvdb"), std::string::npos) << r.out;
  dir.write("scene.json", R"({"frames": 12, "solver": {"substeps": 8},
    "cloth": {"mesh": {"grid": {"resolution": [10, 10], "size": [0.3, 0.3], "center": [0, 0.3, 0]}}},
    "colliders": [{"nvdb": "box.nvdb", "thickness": 0.01, "friction": 1}],
    "output": {"dir": "out", "name": "c"}})");
  r = run_drape(dir, "simulate scene.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("at most 0 vertices inside a collider"), std::string::npos) << r.out;
  const TriMesh last = load_mesh(dir.file("out/c.0012.ply"));
  for (const glm::dvec3& p : last.positions) EXPECT_GT(p.y, 0.2 + 0.01 - 0.011);
}

}  // namespace
}  // namespace drape
