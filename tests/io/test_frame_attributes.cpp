// Attributes through the pipeline: texture coordinates and OBJ groups read from OBJ (`vt`,
// face-varying) and PLY (per-vertex s/t and friends, face `texcoord` lists), written back by the
// OBJ and PLY frame writers and read again unchanged, on a real UV'd garment too; optional vertex
// normals in the frames.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <sstream>

#include <glm/geometric.hpp>

#include "drape/error.h"
#include "drape/mesh.h"
#include "io/cache.h"
#include "test_util.h"

namespace drape {
namespace {

// Two quads of a strip with a UV seam between them, in two groups.
const char* kStrip =
    "v 0 1 0\nv 1 1 0\nv 2 1 0\nv 0 1 1\nv 1 1 1\nv 2 1 1\n"
    "vt 0 0\nvt 0.5 0\nvt 0 1\nvt 0.5 1\nvt 0.625 0\nvt 1 0\nvt 0.625 1\nvt 1 1\n"
    "g left\nf 1/1 2/2 5/4 4/3\ng right panel\nf 2/5/1 3/6/1 6/8/1 5/7/1\n";

TEST(Uvs, ObjFaceCornersAreSplitLikeTheFaces) {
  const TriMesh m = parse_obj(kStrip, "strip.obj");
  ASSERT_EQ(m.uvs.size(), 8u);
  EXPECT_EQ(m.uvs[4], glm::dvec2(0.625, 0));
  ASSERT_TRUE(m.face_varying_uvs());
  EXPECT_EQ(m.uv_triangles, (std::vector<glm::uvec3>{{0, 1, 3}, {0, 3, 2}, {4, 5, 7}, {4, 7, 6}}));
  EXPECT_EQ(m.group_statements, (std::vector<std::string>{"left", "right panel"}));
  EXPECT_EQ(m.triangle_group_statements, (std::vector<std::uint32_t>{0, 0, 1, 1}));
  EXPECT_FALSE(m.uvs_dropped);
}

TEST(Uvs, ObjEdgeCases) {
  // vt lines that no face uses are no texture coordinates.
  EXPECT_TRUE(parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1 2 3\n", "a.obj").uvs.empty());
  // A face without them after one with them: none are kept, and the mesh says so.
  const TriMesh mixed =
      parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0 0\nf 1/1 2/1 3/1\nf 2 4 3\n", "m.obj");
  EXPECT_TRUE(mixed.uvs.empty() && mixed.uv_triangles.empty() && mixed.uvs_dropped);
  // Faces before the first `g` get an empty statement.
  const TriMesh early = parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\ng a\nf 3 2 1\n", "e.obj");
  EXPECT_EQ(early.group_statements, (std::vector<std::string>{"", "a"}));
  EXPECT_EQ(early.triangle_group_statements, (std::vector<std::uint32_t>{0, 1}));
  try {
    parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n", "b.obj");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "b.obj:5: face texture coordinate index 2 is out of range (1 coordinates so far)");
  }
  EXPECT_THROW(parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2 3/1\n", "c.obj"), InputError);
  EXPECT_THROW(parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 nan\nf 1/1 2/1 3/1\n", "d.obj"),
               InputError);
}

void expect_same_attributes(const TriMesh& a, const TriMesh& b, double tolerance) {
  ASSERT_EQ(a.uvs.size(), b.uvs.size());
  for (std::size_t i = 0; i < a.uvs.size(); ++i) {
    ASSERT_NEAR(a.uvs[i].x, b.uvs[i].x, tolerance) << "uv " << i;
    ASSERT_NEAR(a.uvs[i].y, b.uvs[i].y, tolerance) << "uv " << i;
  }
  EXPECT_EQ(a.triangles, b.triangles);
}

TEST(Uvs, ObjFramesKeepUvsAndGroups) {
  const TriMesh m = parse_obj(kStrip, "strip.obj");
  const TriMesh back = parse_obj(encode_obj(m.positions, m), "frame.obj");
  expect_same_attributes(m, back, 0.0);
  EXPECT_EQ(back.uv_triangles, m.uv_triangles);
  EXPECT_EQ(back.group_statements, m.group_statements);
  EXPECT_EQ(back.triangle_group_statements, m.triangle_group_statements);
  EXPECT_EQ(back.find_group("panel")->vertices, m.find_group("panel")->vertices);
}

TEST(Uvs, PlyPerVertexAndFaceVaryingRoundTrip) {
  const std::string ascii =
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
      "property float z\nproperty float texture_u\nproperty float texture_v\nelement face 1\n"
      "property list uchar int vertex_indices\nend_header\n"
      "0 0 0 0.25 0.5\n1 0 0 1 0.5\n0 1 0 0.25 1\n3 0 1 2\n";
  const TriMesh per_vertex = parse_ply(ascii, "v.ply");
  EXPECT_EQ(per_vertex.uvs, (std::vector<glm::dvec2>{{0.25, 0.5}, {1, 0.5}, {0.25, 1}}));
  EXPECT_FALSE(per_vertex.face_varying_uvs());
  const TriMesh v_back = parse_ply(encode_ply(per_vertex.positions, per_vertex), "v2.ply");
  expect_same_attributes(per_vertex, v_back, 0.0);
  EXPECT_FALSE(v_back.face_varying_uvs());

  // The OBJ strip's seam needs corners: the PLY frame carries them as face `texcoord` lists.
  const TriMesh strip = parse_obj(kStrip, "strip.obj");
  const TriMesh f_back = parse_ply(encode_ply(strip.positions, strip), "f.ply");
  ASSERT_TRUE(f_back.face_varying_uvs());
  ASSERT_EQ(f_back.uv_triangles.size(), strip.uv_triangles.size());
  for (std::size_t k = 0; k < strip.uv_triangles.size(); ++k) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(f_back.uvs[f_back.uv_triangles[k][c]], strip.uvs[strip.uv_triangles[k][c]]);
    }
  }
}

// dress_panels.obj: 15,656 vt on 29,456 triangles in 14 groups, through an OBJ and a PLY frame.
TEST(Uvs, RealGarmentKeepsItsUvsThroughTheFrames) {
  const std::string path = std::string(DRAPE_DATA_DIR) + "/garments/dress_panels.obj";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  const TriMesh m = load_mesh(path);
  ASSERT_EQ(m.uvs.size(), 15656u);
  ASSERT_EQ(m.uv_triangles.size(), m.triangles.size());
  EXPECT_EQ(m.group_statements.size(), 14u);

  const TriMesh obj = parse_obj(encode_obj(m.positions, m), "frame.obj");
  expect_same_attributes(m, obj, 1e-8);  // 9 significant digits
  EXPECT_EQ(obj.uv_triangles, m.uv_triangles);
  EXPECT_EQ(obj.group_statements, m.group_statements);
  EXPECT_EQ(obj.triangle_group_statements, m.triangle_group_statements);

  const TriMesh ply = parse_ply(encode_ply(m.positions, m), "frame.ply");
  for (std::size_t k = 0; k < m.triangles.size(); ++k) {
    for (int c = 0; c < 3; ++c) {
      const glm::dvec2 uv = m.uvs[m.uv_triangles[k][c]];
      const glm::dvec2 want(static_cast<float>(uv.x), static_cast<float>(uv.y));  // float32
      const glm::dvec2 got = ply.uvs[ply.uv_triangles[k][c]];
      ASSERT_TRUE(got == want) << "triangle " << k << ": " << got.x << ", " << got.y;
    }
  }
}

// Vertex normals: area-weighted, unit, and written as PLY nx ny nz and OBJ vn (f v/vt/vn).
TEST(Frames, NormalsAreAreaWeightedUnitVectorsInBothFormats) {
  // A big triangle in the XZ plane and a small one standing up, sharing vertices 0 and 1.
  const std::vector<glm::dvec3> x{{0, 0, 0}, {2, 0, 0}, {0, 0, -2}, {1, 0.1, 0}};
  const std::vector<glm::uvec3> t{{0, 1, 2}, {0, 3, 1}};
  const std::vector<glm::dvec3> n = vertex_normals(x, t);
  EXPECT_NEAR(glm::length(n[0]), 1.0, 1e-12);
  EXPECT_GT(n[0].y, 0.9);  // the big triangle's normal (0, 1, 0) outweighs the small one's
  EXPECT_NEAR(n[2].y, 1.0, 1e-12);
  EXPECT_NEAR(std::abs(n[3].z), 1.0, 1e-12);

  TriMesh strip = parse_obj(kStrip, "strip.obj");
  const std::vector<glm::dvec3> sn = vertex_normals(strip.positions, strip.triangles);
  const std::string ply = encode_ply(strip.positions, strip, true);
  ASSERT_NE(ply.find("property float nx\nproperty float ny\nproperty float nz\n"),
            std::string::npos);
  const std::size_t body = ply.find("end_header\n") + 11;
  for (std::size_t v = 0; v < strip.positions.size(); ++v) {
    float written[3];
    std::memcpy(written, ply.data() + body + v * 24 + 12, sizeof written);
    for (int c = 0; c < 3; ++c) EXPECT_EQ(written[c], static_cast<float>(sn[v][c]));
  }
  EXPECT_EQ(parse_ply(ply, "n.ply").positions.size(), strip.positions.size());

  const std::string obj = encode_obj(strip.positions, strip, true);
  std::istringstream lines(obj);
  std::string line;
  std::size_t vn = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("vn ", 0) == 0) {
      std::istringstream v(line.substr(3));
      glm::dvec3 read;
      v >> read.x >> read.y >> read.z;
      EXPECT_NEAR(glm::length(read - sn[vn]), 0.0, 1e-8);
      ++vn;
    }
  }
  EXPECT_EQ(vn, strip.positions.size());
  EXPECT_NE(obj.find("\nf 1/1/1 2/2/2 5/4/5\n"), std::string::npos) << obj;
  const TriMesh back = parse_obj(obj, "n.obj");
  EXPECT_EQ(back.uv_triangles, strip.uv_triangles);
}

}  // namespace
}  // namespace drape
