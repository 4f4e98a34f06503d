// Scene files: defaults, every key, and an error naming the file and key for each bad input.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "drape/error.h"
#include "drape/scene.h"
#include "model/cloth.h"
#include "model/scene_json.h"
#include "solver/solver.h"
#include "test_util.h"

namespace drape {
namespace {

std::string error_of(const std::string& json) {
  try {
    const Scene s = parse_scene(json, "s.json");
    build_cloth(s);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kGrid = R"("mesh": {"grid": {"resolution": [4, 3]}})";

std::string cloth_with(const std::string& extra) {
  return R"({"cloth": {)" + kGrid + (extra.empty() ? "" : ", " + extra) + "}}";
}

TEST(Scene, DefaultsAndEveryKey) {
  const Scene s = parse_scene(R"({
    "version": 1, "fps": 30, "frames": 5,
    "solver": {"backend": "reference", "substeps": 2, "iterations": 7},
    "gravity": [0, -1, 0], "wind": [1, 0, 0],
    "cloth": {"mesh": {"grid": {"resolution": [4, 3], "size": [2, 1], "center": [0, 1, 0]}},
              "transform": {"scale": 2, "rotate_deg": [0, 90, 0], "translate": [1, 2, 3]},
              "pins": [0, 3], "stretch": 0.5, "shear": 0.25, "bend": 0, "damping": 1,
              "thickness": 0.01, "friction": 0.2, "self_collision": false},
    "colliders": [],
    "output": {"dir": "o", "name": "shirt", "formats": ["obj", "ply"]}})",
                              "s.json");
  EXPECT_EQ(s.fps, 30);
  EXPECT_EQ(s.frames, 5);
  EXPECT_EQ(s.solver.substeps, 2);
  EXPECT_EQ(s.solver.iterations, 7);
  EXPECT_EQ(s.wind, glm::dvec3(1, 0, 0));
  ASSERT_TRUE(s.cloth.grid.has_value());
  EXPECT_EQ(s.cloth.grid->nx, 4);
  EXPECT_EQ(s.cloth.grid->size_x, 2.0);
  EXPECT_EQ(s.cloth.transform.scale, 2.0);
  EXPECT_EQ(s.cloth.pins.indices, (std::vector<std::int64_t>{0, 3}));
  EXPECT_EQ(s.cloth.shear, 0.25);
  EXPECT_EQ(s.output.name, "shirt");
  EXPECT_EQ(s.output.formats, (std::vector<std::string>{"obj", "ply"}));

  const Scene d = parse_scene(cloth_with(""), "d.json");
  EXPECT_EQ(d.fps, 24);
  EXPECT_EQ(d.frames, 48);
  EXPECT_EQ(d.solver.backend, Backend::cpu);
  EXPECT_EQ(d.gravity, glm::dvec3(0, -9.81, 0));
  EXPECT_EQ(d.output.formats, (std::vector<std::string>{"ply"}));
  EXPECT_FALSE(d.cloth.self_collision);
}

TEST(Scene, SelfCollisionSettings) {
  const Scene on = parse_scene(cloth_with(R"("self_collision": true)"), "s.json");
  EXPECT_TRUE(on.cloth.self_collision);
  EXPECT_EQ(on.cloth.self_collision_cell, 0.0);
  EXPECT_FALSE(on.cloth.self_collision_every_iteration);
  EXPECT_EQ(on.cloth.self_collision_edge_pairs, EdgePairs::automatic);
  const Scene set = parse_scene(
      cloth_with(R"("self_collision": {"cell_size": 0.02, "rebuild": "iteration"})"), "s.json");
  EXPECT_TRUE(set.cloth.self_collision);
  EXPECT_EQ(set.cloth.self_collision_cell, 0.02);
  EXPECT_TRUE(set.cloth.self_collision_every_iteration);
  const PhysicsParams p = physics_params(set);
  EXPECT_TRUE(p.self_collision.enabled);
  EXPECT_EQ(p.self_collision.cell_size, 0.02);
  EXPECT_TRUE(p.self_collision.every_iteration);
  EXPECT_EQ(p.self_collision.thickness, set.cloth.thickness);
  EXPECT_EQ(p.self_collision.edge_pairs, EdgePairs::automatic);
  for (const auto& [name, mode] :
       {std::pair{"auto", EdgePairs::automatic}, std::pair{"all", EdgePairs::all},
        std::pair{"near", EdgePairs::near}}) {
    const Scene s = parse_scene(
        cloth_with(std::string(R"("self_collision": {"edge_pairs": ")") + name + R"("})"),
        "s.json");
    EXPECT_TRUE(s.cloth.self_collision) << name;
    EXPECT_EQ(s.cloth.self_collision_edge_pairs, mode) << name;
    EXPECT_EQ(physics_params(s).self_collision.edge_pairs, mode) << name;
  }
}

TEST(Scene, TransformScalesRotatesThenTranslates) {
  Transform t;
  t.scale = 2;
  t.rotate_deg = {0, 90, 0};
  t.translate = {0, 1, 0};
  std::vector<glm::dvec3> p = {{1, 0, 0}};
  apply_transform(t, p);
  // (2, 0, 0) rotated 90 degrees about +Y is (0, 0, -2); then up by 1.
  EXPECT_NEAR(p[0].x, 0, 1e-12);
  EXPECT_NEAR(p[0].y, 1, 1e-12);
  EXPECT_NEAR(p[0].z, -2, 1e-12);
}

TEST(Scene, PinsByBoxAndGroup) {
  const Scene box = parse_scene(
      cloth_with(R"("pins": {"box": {"min": [-1, -1, -1], "max": [1, 1, -0.4]}})"), "s.json");
  EXPECT_EQ(build_cloth(box).pinned, 4u);  // the first row of a 4 x 3 grid
  testing::TempDir dir;
  dir.write("m.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nv 1 0 1\ng collar\nf 1 2 3\ng rest\nf 2 4 3\n");
  const Scene group = parse_scene(R"({"cloth": {"mesh": "m.obj", "pins": {"group": "collar"}}})",
                                  dir.file("s.json"));
  const ClothModel cloth = build_cloth(group);
  EXPECT_EQ(cloth.pinned, 3u);
  EXPECT_EQ(cloth.inv_mass[3], 1.0);
}

TEST(Scene, BadInputNamesFileAndKey) {
  EXPECT_EQ(error_of(R"({"cloth": {)" + kGrid + R"(, "strech": 1}})"),
            "s.json: cloth.strech: unknown key");
  EXPECT_EQ(error_of(R"({"fsp": 24})"), "s.json: fsp: unknown key");
  EXPECT_EQ(error_of(cloth_with(R"("stretch": 1.5)")),
            "s.json: cloth.stretch: must be in [0, 1], got 1.5");
  EXPECT_EQ(error_of(cloth_with(R"("bend": -0.1)")),
            "s.json: cloth.bend: must be in [0, 1], got -0.1");
  EXPECT_EQ(error_of(cloth_with(R"("shear": "stiff")")), "s.json: cloth.shear: must be a number");
  EXPECT_EQ(error_of(cloth_with(R"("pins": [0, 12])")),
            "s.json: cloth.pins[1]: vertex 12 is past the last vertex (11)");
  EXPECT_EQ(error_of(cloth_with(R"("pins": [-1])")),
            "s.json: cloth.pins[0]: must be a non-negative vertex index");
  EXPECT_EQ(error_of(cloth_with(R"("pins": {"group": "collar"})")),
            "s.json: cloth.pins.group: the mesh has no group 'collar' (it has none)");
  EXPECT_EQ(error_of(R"({"solver": {"substeps": 0}, "cloth": {)" + kGrid + "}}"),
            "s.json: solver.substeps: must be in [1, 10000], got 0");
  EXPECT_EQ(error_of(R"({"solver": {"iterations": 0}, "cloth": {)" + kGrid + "}}"),
            "s.json: solver.iterations: must be in [1, 10000], got 0");
  EXPECT_EQ(error_of(R"({"solver": {"iterations": 2.5}, "cloth": {)" + kGrid + "}}"),
            "s.json: solver.iterations: must be an integer");
  EXPECT_EQ(error_of(R"({"frames": -1, "cloth": {)" + kGrid + "}}"),
            "s.json: frames: must be in [0, 10000000], got -1");
  EXPECT_EQ(error_of(R"({"solver": {"backend": "opencl"}, "cloth": {)" + kGrid + "}}"),
            "s.json: solver.backend: unknown backend 'opencl' (known: reference, cpu, cuda)");
  EXPECT_EQ(error_of(R"({"gravity": [0, -9.81], "cloth": {)" + kGrid + "}}"),
            "s.json: gravity: must be an array of 3 numbers");
  EXPECT_EQ(error_of(R"({"output": {"formats": ["ply", "fbx"]}, "cloth": {)" + kGrid + "}}"),
            "s.json: output.formats: unknown format 'fbx' (known: ply, obj, usd, usdc)");
  EXPECT_EQ(error_of(R"({"fps": 24})"), "s.json: cloth: missing key");
  EXPECT_EQ(error_of(R"({"cloth": {"stretch": 1}})"), "s.json: cloth.mesh: missing key");
  EXPECT_EQ(error_of(R"({"cloth": {"mesh": "nothere.obj"}})"),
            "nothere.obj: cannot open: No such file or directory");
  EXPECT_EQ(error_of(R"({"cloth": {"mesh": {"grid": {"resolution": [200000, 200000]}}}})"),
            "s.json: cloth.mesh.grid.resolution: grid of 200000 x 200000 vertices is larger than "
            "the limit of 100000000");
  EXPECT_EQ(error_of(R"({"cloth": {"mesh": {"grid": {"resolution": [1, 5]}}}})"),
            "s.json: cloth.mesh.grid.resolution: needs at least 2 vertices per side");
  EXPECT_EQ(error_of(cloth_with(R"("self_collision": 1)")),
            "s.json: cloth.self_collision: must be true, false or {\"cell_size\": .., "
            "\"rebuild\": .., \"untangle\": .., \"edge_pairs\": ..}");
  EXPECT_EQ(error_of(cloth_with(R"("self_collision": {"edge_pairs": "some"})")),
            "s.json: cloth.self_collision.edge_pairs: must be one of \"auto\", \"all\", "
            "\"near\", got \"some\"");
  EXPECT_EQ(error_of(cloth_with(R"("self_collision": {"untangle": 1})")),
            "s.json: cloth.self_collision.untangle: must be true or false");
  EXPECT_EQ(error_of(cloth_with(R"("self_collision": {"rebuild": "frame"})")),
            "s.json: cloth.self_collision.rebuild: must be \"substep\" or \"iteration\", got "
            "\"frame\"");
  EXPECT_EQ(error_of(cloth_with(R"("self_collision": {"cell_size": 0})")),
            "s.json: cloth.self_collision.cell_size: must be in [1e-06, 1e+09], got 0");
  EXPECT_EQ(error_of(cloth_with(R"("self_collision": {"cells": 1})")),
            "s.json: cloth.self_collision.cells: unknown key");
  EXPECT_EQ(error_of(cloth_with(R"("self_collision": true, "thickness": 0)")),
            "s.json: cloth.thickness: must be above 0 when self_collision is on");
  EXPECT_EQ(error_of(R"({"colliders": [{"sphere": {}}], "cloth": {)" + kGrid + "}}"),
            "s.json: colliders[0].sphere.radius: missing key");
  EXPECT_EQ(
      error_of(R"({"colliders": [{"box": {"min": [0, 0, 0], "max": [1, -1, 1]}}], "cloth": {)" +
               kGrid + "}}"),
      "s.json: colliders[0].box: min must be below max on every axis");
  EXPECT_EQ(
      error_of(R"({"colliders": [{"plane": {"normal": [0, 0, 0]}}], "cloth": {)" + kGrid + "}}"),
      "s.json: colliders[0].plane.normal: must not be zero");
  EXPECT_EQ(
      error_of(R"({"colliders": [{"sphere": {"radius": 1}, "voxel_size": 0.01}], "cloth": {)" +
               kGrid + "}}"),
      "s.json: colliders[0]: voxel_size and band apply to mesh colliders only");
  EXPECT_EQ(error_of("[1, 2]"), "s.json: the scene must be a JSON object");
  EXPECT_EQ(error_of("{\n  \"fps\": 24,\n  \"frames\": \n}"),
            "s.json: invalid JSON: parse error at line 4, column 1: syntax error while parsing "
            "value - unexpected '}'; expected '[', '{', or a literal");
}

// Found by fuzz_scene: a number too large for a double made nlohmann throw out_of_range, which
// escaped as a crash instead of an input error.
TEST(Scene, NumberOverflowIsAnInputError) {
  EXPECT_EQ(error_of("{\"fps\": 1e999999}"),
            "s.json: invalid JSON: number overflow parsing '1e999999'");
  EXPECT_EQ(error_of("22222222.2222E00000000000000000000000000000000011096869482069986333"),
            "s.json: invalid JSON: number overflow parsing "
            "'22222222.2222E00000000000000000000000000000000011096869482069986333'");
}

TEST(Scene, MeshPathIsRelativeToTheSceneFile) {
  const Scene s = parse_scene(R"({"cloth": {"mesh": "garments/shirt.obj"}})", "scenes/a/s.json");
  EXPECT_EQ(s.cloth.mesh_path, "scenes/a/garments/shirt.obj");
  const Scene abs = parse_scene(R"({"cloth": {"mesh": "/data/shirt.obj"}})", "scenes/s.json");
  EXPECT_EQ(abs.cloth.mesh_path, "/data/shirt.obj");
}

TEST(Scene, EveryTriangleDegenerateIsRefused) {
  testing::TempDir dir;
  dir.write("flat.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n");
  const Scene s = parse_scene(R"({"cloth": {"mesh": "flat.obj"}})", dir.file("s.json"));
  EXPECT_THROW(build_cloth(s), InputError);
}

// Settings for a mesh given as arrays: every scene key but cloth.mesh, which is refused; the
// cloth may be absent.
TEST(Scene, SettingsTakeEveryKeyButTheMesh) {
  const Scene s = parse_settings(R"({"fps": 30, "solver": {"backend": "reference"},
                                     "cloth": {"pins": [1], "bend": 0.5}})",
                                 "settings");
  EXPECT_EQ(s.fps, 30);
  EXPECT_EQ(s.solver.backend, Backend::reference);
  EXPECT_EQ(s.cloth.bend, 0.5);
  EXPECT_FALSE(s.cloth.grid.has_value());
  EXPECT_TRUE(s.cloth.mesh_path.empty());
  EXPECT_EQ(parse_settings("{}", "settings").cloth.stretch, 1.0);
  EXPECT_FALSE(parse_settings("{}", "settings").output.normals);
  EXPECT_TRUE(parse_settings(R"({"output": {"normals": true}})", "settings").output.normals);
  const auto error = [](const std::string& text) {
    try {
      parse_settings(text, "settings");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(R"({"cloth": {"mesh": "a.obj"}})"),
            "settings: cloth.mesh: give the mesh as the positions and triangles arrays");
  EXPECT_EQ(error(R"({"cloth": {"stretch": 3}})"),
            "settings: cloth.stretch: must be in [0, 1], got 3");
  EXPECT_EQ(error(R"({"cloth": 1})"), "settings: cloth: must be an object");
}

// collider_json writes what the reader reads: a collider with every key, read, written and read
// again, gives the same JSON (the resume fingerprint hashes this form).
TEST(Scene, ColliderJsonReadsBackToItself) {
  const char* colliders[] = {
      R"({"sphere": {"center": [1, 2, 3], "radius": 0.5}})",
      R"({"box": {"min": [0, 0, 0], "max": [1, 2, 3], "radius": 0.25}})",
      R"({"plane": {"point": [0, 1, 0], "normal": [0, 0, 1]}})",
      R"({"mesh": "/abs/body.obj", "voxel_size": 0.01, "band": 4})",
      R"({"vdb": "/abs/body.vdb", "grid": "surface"})",
      R"({"nvdb": "/abs/body.nvdb"})",
  };
  const std::string shared = R"("friction": 0.1, "restitution": 0.2, "thickness": 0.003,
      "transform": {"scale": 2, "rotate_deg": [10, 20, 30], "translate": [1, 2, 3]},
      "motion": [{"time": 0, "translate": [0, 0, 0], "rotate_deg": [0, 0, 0]},
                 {"time": 1, "translate": [0, 1, 0], "rotate_deg": [0, 90, 0]}])";
  for (const std::string shape : colliders) {
    const std::string entry = shape.substr(0, shape.size() - 1) + ", " + shared + "}";
    const Scene s =
        parse_scene(R"({"cloth": {)" + kGrid + R"(}, "colliders": [)" + entry + "]}", "s.json");
    const nlohmann::json written = collider_json(s.colliders.at(0));
    EXPECT_EQ(written, nlohmann::json::parse(entry)) << shape;
    const Scene again = parse_scene(
        R"({"cloth": {)" + kGrid + R"(}, "colliders": [)" + written.dump() + "]}", "s.json");
    EXPECT_EQ(collider_json(again.colliders.at(0)), written) << shape;
  }
}

}  // namespace
}  // namespace drape
