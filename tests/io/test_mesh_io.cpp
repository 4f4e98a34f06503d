// OBJ and PLY readers and the cache writers.
#include <cmath>
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>

#include "drape/error.h"
#include "drape/mesh.h"
#include "io/atomic_file.h"
#include "io/cache.h"
#include "test_util.h"

namespace drape {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Obj, VerticesFacesAndOrder) {
  const TriMesh m = parse_obj(
      "# a quad and a triangle\nv 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nv 2 0 0\n"
      "vt 0 0\nvn 0 1 0\nf 1/1/1 2/1/1 3/1/1 4/1/1\nf 2//1 5//1 3//1\n",
      "t.obj");
  ASSERT_EQ(m.positions.size(), 5u);
  EXPECT_EQ(m.positions[4], glm::dvec3(2, 0, 0));
  ASSERT_EQ(m.triangles.size(), 3u);
  EXPECT_EQ(m.triangles[0], glm::uvec3(0, 1, 2));
  EXPECT_EQ(m.triangles[1], glm::uvec3(0, 2, 3));
  EXPECT_EQ(m.triangles[2], glm::uvec3(1, 4, 2));
  EXPECT_EQ(m.fan_triangulated_polygons, 1u);
}

TEST(Obj, GroupsAreVertexSets) {
  const TriMesh m = parse_obj(
      "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\ng top collar\nf 1 2 3\ng body\nf 2 4 3\n", "t.obj");
  ASSERT_EQ(m.groups.size(), 3u);
  EXPECT_EQ(m.find_group("top")->vertices, (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(m.find_group("collar")->vertices, (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(m.find_group("body")->vertices, (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_EQ(m.find_group("missing"), nullptr);
}

TEST(Obj, NegativeIndicesCountBackFromTheLastVertex) {
  const TriMesh m = parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n", "t.obj");
  EXPECT_EQ(m.triangles[0], glm::uvec3(0, 1, 2));
}

TEST(Obj, CrlfLineEndings) {
  const TriMesh m = parse_obj("v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 3\r\n", "t.obj");
  EXPECT_EQ(m.triangles.size(), 1u);
}

TEST(Obj, ErrorsNameFileAndLine) {
  EXPECT_EQ(error_of([] { parse_obj("v 0 0 0\nv 1 x 0\n", "a.obj"); }),
            "a.obj:2: bad vertex coordinate");
  EXPECT_EQ(error_of([] { parse_obj("v 0 0 0\nv 1 0 0\nv 0 nan 0\n", "a.obj"); }),
            "a.obj:3: vertex coordinate is not finite");
  EXPECT_EQ(error_of([] { parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", "a.obj"); }),
            "a.obj:4: face index 9 is out of range (3 vertices so far)");
  EXPECT_EQ(error_of([] { parse_obj("v 0 0 0\nv 1 0 0\nf 1 2\n", "a.obj"); }),
            "a.obj:3: face has fewer than 3 vertices");
  EXPECT_EQ(error_of([] { parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 0 2\n", "a.obj"); }),
            "a.obj:4: bad face index '0'");
  EXPECT_EQ(error_of([] { parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\n", "a.obj"); }), "a.obj: no faces");
  EXPECT_EQ(error_of([] { parse_obj("", "a.obj"); }), "a.obj: no faces");
  EXPECT_EQ(error_of([] { parse_obj("v 0 0 0\n\x7f\x45LF\x02\x01", "a.obj"); }),
            "a.obj:2: unknown statement '\x7f\x45LF\x02\x01'");
  // Words are skipped and counted; bytes that are no word mean the file is not OBJ text.
  const TriMesh counted = parse_obj(
      "File written by MeshLab\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nseam 2\nstitch 0 1 2 0.5\n"
      "stitch 1 0 2 0.5\nvn 0 1 0\n",
      "a.obj");
  EXPECT_EQ(counted.skipped_statements, (std::vector<std::pair<std::string, std::size_t>>{
                                            {"File", 1}, {"seam", 1}, {"stitch", 2}}));
  EXPECT_EQ(counted.skipped("stitch"), 2u);
  EXPECT_EQ(counted.skipped("vn"), 0u);
  EXPECT_EQ(error_of([] { load_mesh("/nonexistent/cloth.obj"); }),
            "/nonexistent/cloth.obj: cannot open: No such file or directory");
  EXPECT_EQ(error_of([] { load_mesh("cloth.stl"); }),
            "cloth.stl: unknown mesh format (expected .obj or .ply)");
}

const char* kAsciiPly =
    "ply\nformat ascii 1.0\ncomment test\nelement vertex 4\nproperty float x\nproperty float y\n"
    "property float z\nproperty uchar pin\nelement face 2\nproperty list uchar int vertex_indices\n"
    "end_header\n0 0 0 1\n1 0 0 0\n1 0 1 0\n0 0 1 1\n3 0 1 2\n4 0 2 3 1\n";

TEST(Ply, AsciiWithPinProperty) {
  const TriMesh m = parse_ply(kAsciiPly, "t.ply");
  ASSERT_EQ(m.positions.size(), 4u);
  ASSERT_EQ(m.triangles.size(), 3u);
  EXPECT_EQ(m.triangles[1], glm::uvec3(0, 2, 3));
  EXPECT_EQ(m.fan_triangulated_polygons, 1u);
  ASSERT_NE(m.find_group("pin"), nullptr);
  EXPECT_EQ(m.find_group("pin")->vertices, (std::vector<std::uint32_t>{0, 3}));
}

TEST(Ply, BinaryRoundTripThroughTheCacheWriter) {
  const std::vector<glm::dvec3> p = {{0, 0, 0}, {1, 0.25, 0}, {1, 0, 1}, {-3.5, 2, 1e-3}};
  const std::vector<glm::uvec3> t = {{0, 1, 2}, {0, 2, 3}};
  const TriMesh m = parse_ply(encode_ply(p, testing::faces(t)), "rt.ply");
  ASSERT_EQ(m.positions.size(), p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    EXPECT_EQ(m.positions[i], glm::dvec3(glm::vec3(p[i])));  // float32 on disk
  }
  EXPECT_EQ(m.triangles, t);
}

TEST(Ply, BinaryWithExtraPropertiesAndElements) {
  std::string body;
  auto put = [&](auto v) { body.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (int i = 0; i < 3; ++i) {
    put(static_cast<double>(i == 1));
    put(static_cast<double>(i == 2));
    put(0.0);
    put(static_cast<std::uint16_t>(7));
  }
  put(static_cast<std::uint8_t>(3));
  put(0u);
  put(1u);
  put(2u);
  put(1.5f);
  put(static_cast<std::int32_t>(42));
  const std::string header =
      "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty double x\n"
      "property double y\nproperty double z\nproperty ushort flags\nelement face 1\n"
      "property list uchar uint vertex_index\nproperty float quality\nelement extra 1\n"
      "property int id\nend_header\n";
  const TriMesh m = parse_ply(header + body, "b.ply");
  ASSERT_EQ(m.positions.size(), 3u);
  EXPECT_EQ(m.positions[2], glm::dvec3(0, 1, 0));
  EXPECT_EQ(m.triangles[0], glm::uvec3(0, 1, 2));
}

TEST(Ply, Errors) {
  const std::string good =
      encode_ply({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, testing::faces({{0, 1, 2}}));
  EXPECT_EQ(error_of([&] { parse_ply(good.substr(0, good.size() - 5), "t.ply"); }),
            "t.ply: file ends early (truncated?)");
  EXPECT_EQ(error_of([] { parse_ply("solid cube\n", "t.ply"); }),
            "t.ply: not a PLY file (no 'ply' magic line)");
  EXPECT_EQ(error_of([] { parse_ply("ply\nformat ascii 1.0\nelement vertex 3\n", "t.ply"); }),
            "t.ply: header has no end_header line");
  EXPECT_EQ(error_of([] { parse_ply("ply\nformat binary_big_endian 1.0\nend_header\n", "t.ply"); }),
            "t.ply:2: unsupported PLY format 'binary_big_endian'");
  std::string absurd = good;
  absurd.replace(absurd.find("vertex 3"), 8, "vertex 3000000000");
  EXPECT_EQ(error_of([&] { parse_ply(absurd, "t.ply"); }),
            "t.ply: element 'vertex' claims 3000000000 entries, more than the file holds");
  std::string bad_index = kAsciiPly;
  bad_index.replace(bad_index.find("3 0 1 2"), 7, "3 0 1 7");
  EXPECT_EQ(error_of([&] { parse_ply(bad_index, "t.ply"); }),
            "t.ply:16: face 0 has vertex index 7.000000 out of range (4 vertices)");
  std::string nan_coord = kAsciiPly;
  nan_coord.replace(nan_coord.find("1 0 0 0"), 7, "1 nan 0 0");
  EXPECT_EQ(error_of([&] { parse_ply(nan_coord, "t.ply"); }),
            "t.ply:13: vertex 1 has a coordinate that is not finite");
  std::string two = kAsciiPly;
  two.replace(two.find("3 0 1 2"), 7, "2 0 1");
  EXPECT_EQ(error_of([&] { parse_ply(two, "t.ply"); }),
            "t.ply:16: face 0 has fewer than 3 vertices");
}

TEST(Cache, ObjWriterKeepsNineDigitsAndOneBasedFaces) {
  const std::string obj =
      encode_obj({{0.123456789012, -1, 2.5}, {1, 0, 0}, {0, 1, 0}}, testing::faces({{0, 1, 2}}));
  EXPECT_NE(obj.find("v 0.123456789 -1 2.5\n"), std::string::npos);
  EXPECT_NE(obj.find("f 1 2 3\n"), std::string::npos);
  const TriMesh back = parse_obj(obj, "rt.obj");
  EXPECT_NEAR(back.positions[0].x, 0.123456789, 1e-12);
}

TEST(Cache, FramePathsAreZeroPadded) {
  EXPECT_EQ(frame_path("out", "cloth", 7, "ply"), "out/cloth.0007.ply");
  EXPECT_EQ(frame_path("", "cloth", 12345, "obj"), "cloth.12345.obj");
}

TEST(Cache, AtomicWriteLeavesNoTemporary) {
  testing::TempDir dir;
  write_file_atomically(dir.file("a.ply"), "hello");
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    ++files;
    EXPECT_EQ(e.path().filename(), "a.ply");
  }
  EXPECT_EQ(files, 1u);
  EXPECT_THROW(write_file_atomically(dir.file("missing/a.ply"), "x"), RuntimeError);
}

TEST(Mesh, RealGarmentsLoad) {
  const std::string path = std::string(DRAPE_DATA_DIR) + "/garments/dress_panels.obj";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  const TriMesh m = load_mesh(path);
  EXPECT_EQ(m.positions.size(), 15656u);
  EXPECT_EQ(m.triangles.size(), 29456u);
  EXPECT_EQ(m.groups.size(), 14u);
}

}  // namespace
}  // namespace drape
