// Bad input of every reader and flag: exit 2, one line, nothing written.
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

struct BadCase {
  std::string name, scene, mesh_name, mesh, args, expected;
};

void PrintTo(const BadCase& c, std::ostream* os) {
  *os << c.name;
}

class BadInput : public ::testing::TestWithParam<BadCase> {};

// Every bad input: exit 2, exactly one line "drape: error: ...", and no frame written.
TEST_P(BadInput, ExitsTwoWithOneLineAndWritesNothing) {
  const BadCase& c = GetParam();
  if (c.name == "GarbageVdb" && !have_openvdb()) GTEST_SKIP() << "built without OpenVDB";
  testing::TempDir dir;
  if (!c.scene.empty()) dir.write("scene.json", c.scene);
  if (!c.mesh_name.empty()) dir.write(c.mesh_name, c.mesh);
  const Result r = run_drape(dir, c.args.empty() ? "simulate scene.json -o out" : c.args);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("drape: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
  EXPECT_EQ(count_files(dir.file("out")), 0u);
}

std::string scene_with(const std::string& cloth_extra, const std::string& top = "") {
  return R"({)" + top + R"("cloth": {"mesh": {"grid": {"resolution": [4, 4]}})" + cloth_extra +
         "}}";
}

std::string mesh_scene(const std::string& mesh) {
  return R"({"cloth": {"mesh": ")" + mesh + R"("}})";
}

std::string truncated_ply() {
  const std::string ply =
      encode_ply({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, testing::faces({{0, 1, 2}}));
  return ply.substr(0, ply.size() - 6);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadInput,
    ::testing::Values(
        BadCase{"UnknownKey", scene_with(R"(, "stifness": 1)"), "", "", "",
                "scene.json: cloth.stifness: unknown key"},
        BadCase{"WrongType", scene_with("", R"("fps": "24", )"), "", "", "",
                "scene.json: fps: must be a number"},
        BadCase{"StiffnessRange", scene_with(R"(, "stretch": 2)"), "", "", "",
                "cloth.stretch: must be in [0, 1]"},
        BadCase{"PinPastEnd", scene_with(R"(, "pins": [16])"), "", "", "",
                "cloth.pins[0]: vertex 16 is past the last vertex (15)"},
        BadCase{"SubstepsZero", scene_with("", R"("solver": {"substeps": 0}, )"), "", "", "",
                "solver.substeps"},
        BadCase{"IterationsZero", scene_with("", R"("solver": {"iterations": 0}, )"), "", "", "",
                "solver.iterations"},
        BadCase{"NegativeFrames", scene_with("", R"("frames": -2, )"), "", "", "",
                "scene.json: frames: must be in"},
        BadCase{"MissingMesh", mesh_scene("gone.obj"), "", "", "", "gone.obj: cannot open"},
        BadCase{"StitchPastEnd", scene_with(R"(, "stitches": [[0, 1, 2, 0.5], [3, 16, 4, 0.5]])"),
                "", "", "",
                "scene.json: cloth.stitches[1]: stitch 3 16 4 0.5: vertex 16 is past the last "
                "vertex (15)"},
        BadCase{"StitchFileLine", scene_with(R"(, "stitches": "s.obj")"), "s.obj",
                "stitch 0 1 2 0.5\nstitch 5 4 6 2\n", "",
                "s.obj:2: stitch 5 4 6 2: t must be in [0, 1]"},
        BadCase{"JsonSyntax", "{\"frames\": 2,,}", "", "", "",
                "scene.json: invalid JSON: parse error at line 1"},
        BadCase{"MissingScene", "", "", "", "simulate nothere.json -o out",
                "nothere.json: cannot open"},
        BadCase{"TruncatedObj", mesh_scene("m.obj"), "m.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2",
                "", "m.obj:4: face has fewer than 3 vertices"},
        BadCase{"GarbledObj", mesh_scene("m.obj"), "m.obj",
                std::string("v 0 0 0\n\x89PNG\r\n\x1a\n\0\0", 17), "",
                "m.obj:2: unknown statement"},
        BadCase{"ObjIndexOutOfRange", mesh_scene("m.obj"), "m.obj",
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", "",
                "m.obj:4: face index 4 is out of range"},
        BadCase{"TruncatedPly", mesh_scene("m.ply"), "m.ply", truncated_ply(), "",
                "m.ply: file ends early"},
        BadCase{"GarbledPly", mesh_scene("m.ply"), "m.ply",
                "ply\nformat ascii 1.0\nelement vertex 3\nproperty flot x\nend_header\n", "",
                "m.ply:4: unknown property type 'flot'"},
        BadCase{"UnknownFlag", scene_with(""), "", "", "simulate scene.json -o out --fast",
                "--fast: unknown option"},
        BadCase{"BadFrames", scene_with(""), "", "", "simulate scene.json -o out --frames ten",
                "--frames: expected a non-negative integer, got 'ten'"},
        BadCase{"UnknownBackend", scene_with(""), "", "",
                "simulate scene.json -o out --backend metal", "--backend: unknown backend 'metal'"},
        BadCase{"UntangleOnReference",
                scene_with(R"(, "self_collision": {"untangle": true})",
                           R"("solver": {"backend": "reference"}, )"),
                "", "", "", "cloth.self_collision.untangle: the reference backend"},
        BadCase{"UnknownFormat", scene_with(""), "", "",
                "simulate scene.json -o out --format ply,fbx", "--format: unknown format 'fbx'"},
        BadCase{"UnknownCommand", "", "", "", "explode", "explode: unknown command"},
        BadCase{"MissingNvdb", scene_with("", R"("colliders": [{"nvdb": "gone.nvdb"}], )"), "", "",
                "", "gone.nvdb: cannot open"},
        BadCase{"GarbageVdb", scene_with("", R"("colliders": [{"vdb": "m.vdb"}], )"), "m.vdb",
                "not a vdb", "", "m.vdb: not a readable OpenVDB file"},
        BadCase{"EmptyNvdb", scene_with("", R"("colliders": [{"nvdb": "m.nvdb"}], )"), "m.nvdb", "",
                "", "m.nvdb: "},
        BadCase{"ColliderTwoShapes",
                scene_with("", R"("colliders": [{"sphere": {"radius": 1}, "plane": {}}], )"), "",
                "", "", "colliders[0]: needs exactly one of"},
        BadCase{"ColliderFriction",
                scene_with("", R"("colliders": [{"sphere": {"radius": 1}, "friction": 2}], )"), "",
                "", "", "colliders[0].friction: must be in [0, 1]"},
        BadCase{
            "MotionOrder",
            scene_with(
                "",
                R"("colliders": [{"sphere": {"radius": 1}, "motion": [{"time": 1}, {"time": 0}]}], )"),
            "", "", "", "colliders[0].motion[1].time: keys must be in increasing time"},
        BadCase{"SdfMissingMesh", "", "", "", "sdf nothere.obj -o x.nvdb",
                "nothere.obj: cannot open"},
        BadCase{"SdfBadVoxel", "", "", "", "sdf m.obj -o x.nvdb --voxel-size 0",
                "--voxel-size: expected metres"}),
    [](const ::testing::TestParamInfo<BadCase>& p) { return p.param.name; });

}  // namespace
}  // namespace drape
