// Attachments to colliders (issue 17, cloth.attach): hard ones ride on a moving collider exactly,
// soft ones trail it by their compliance, and the keys' errors.
#include <gtest/gtest.h>

#include <string>

#include <glm/geometric.hpp>

#include "collision/collider.h"
#include "drape/error.h"
#include "drape/simulation.h"
#include "model/cloth.h"
#include "test_util.h"

namespace drape {
namespace {

// A 1 m cloth over a sphere that moves 0.5 m along X and turns 90 degrees about Y in one second;
// the cloth's row at z = -0.5 is attached to the sphere.
Scene carried(const std::string& backend, const std::string& attach_extra,
              const std::string& model = "") {
  const std::string json = R"({"fps": 24, "frames": 24,
      "solver": {"backend": ")" +
                           backend + R"(", "substeps": 8, "iterations": 10},
      "cloth": {"mesh": {"grid": {"resolution": [9, 9], "size": [1, 1], "center": [0, 0.4, 0]}},
                "attach": [{"collider": 0, "vertices": {"box": {"min": [-1, 0, -0.51],
                                                                "max": [1, 1, -0.49]}})" +
                           attach_extra + "}]" + model + R"(},
      "colliders": [{"sphere": {"center": [0, 0, 0], "radius": 0.3},
                     "motion": [{"time": 0}, {"time": 1, "translate": [0.5, 0, 0],
                                              "rotate_deg": [0, 90, 0]}]}]})";
  return parse_scene(json, "attach.json");
}

// The largest distance of an attached vertex from where the collider has carried it.
double worst_offset(const Simulation& sim) {
  const ClothModel& cloth = cloth_model(sim);
  const std::vector<Collider> colliders = build_colliders(sim.scene());
  const ColliderPose now = colliders[0].pose_at(sim.time());
  const ColliderPose start = colliders[0].pose_at(0.0);
  double worst = 0.0;
  for (std::uint32_t v : cloth.attachments.vertex) {
    const glm::dvec3 x0 = cloth.mesh.positions[v];
    const glm::dvec3 local =
        glm::transpose(start.rotation) * (x0 - start.translation) / start.scale;
    const glm::dvec3 target = now.rotation * (now.scale * local) + now.translation;
    worst = std::max(worst, glm::length(sim.positions()[v] - target));
  }
  return worst;
}

TEST(Attach, HardAttachmentsRideOnAMovingColliderOnEveryBackend) {
  for (const Backend b : testing::backends()) {
    const std::string backend(backend_name(b));
    Simulation sim(carried(backend, ""));
    ASSERT_EQ(cloth_model(sim).attachments.size(), 9u);
    EXPECT_EQ(cloth_model(sim).pinned, 9u);  // hard: w = 0
    for (int f = 1; f <= 24; ++f) {
      sim.step();
      EXPECT_LT(worst_offset(sim), 1e-5) << backend << " frame " << f;
    }
    // The attached row went round with the sphere: from z = -0.5 to x = 0.5 - 0.5 (90 degrees).
    const glm::dvec3 moved = sim.positions()[cloth_model(sim).attachments.vertex[4]];
    EXPECT_NEAR(moved.x, 0.0, 1e-4) << backend;
    EXPECT_NEAR(moved.z, 0.0, 1e-4) << backend;
  }
}

TEST(Attach, SoftAttachmentsTrailByTheirCompliance) {
  const std::string xpbd = R"(, "model": "xpbd", "material": "cotton")";
  Simulation stiff(carried("cpu", R"(, "compliance": 1e-7)", xpbd));
  Simulation loose(carried("cpu", R"(, "compliance": 0.1)", xpbd));
  EXPECT_EQ(cloth_model(stiff).pinned, 0u);
  stiff.step(24);
  loose.step(24);
  // The hanging cloth (0.12 kg on 9 vertices) stretches 0.1 m/N attachments by about a
  // centimetre; 1e-7 m/N by nothing to see.
  EXPECT_LT(worst_offset(stiff), 1e-3);
  EXPECT_GT(worst_offset(loose), 5e-3);
  EXPECT_LT(worst_offset(loose), 5e-2);
  Simulation reference(carried("reference", R"(, "compliance": 1e-7)", xpbd));
  reference.step(24);
  EXPECT_LT(worst_offset(reference), 1e-3);
  // PBD: a stiffness below 1 is soft too.
  Simulation pbd(carried("cpu", R"(, "stiffness": 0.5)"));
  EXPECT_EQ(cloth_model(pbd).pinned, 0u);
  pbd.step(24);
  EXPECT_LT(worst_offset(pbd), 0.05);
}

std::string error_of(const std::string& cloth_keys, const std::string& top = "") {
  try {
    Simulation sim(parse_scene(
        R"({"cloth": {"mesh": {"grid": {"resolution": [4, 4], "size": [1, 1], "center": [0, 1, 0]}}, )" +
            cloth_keys + "}, " + top + R"("colliders": [{"sphere": {"radius": 0.2}}]})",
        "attach.json"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Attach, BadAttachmentsAreClearErrors) {
  EXPECT_EQ(error_of(R"("attach": [{"collider": 1, "vertices": [0]}])"),
            "attach.json: cloth.attach[0].collider: no collider 1 (the scene has 1)");
  EXPECT_EQ(error_of(R"("pins": [2], "attach": [{"collider": 0, "vertices": [1, 2]}])"),
            "attach.json: cloth.attach[0].vertices: vertex 2 is pinned (cloth.pins)");
  EXPECT_EQ(error_of(R"("attach": [{"collider": 0, "vertices": [1]},
                                   {"collider": 0, "vertices": [3, 1]}])"),
            "attach.json: cloth.attach[1].vertices: vertex 1 is attached twice");
  EXPECT_EQ(error_of(R"("attach": [{"collider": 0, "vertices": [1], "compliance": 0.1}])"),
            "attach.json: cloth.attach[0].compliance: unknown key");
  EXPECT_NE(error_of(R"("attach": [{"collider": 0, "vertices": [99]}])")
                .find("cloth.attach[0].vertices[0]: vertex 99 is past the last vertex (15)"),
            std::string::npos);
  EXPECT_EQ(error_of(R"("attach": [{"collider": 0}])"),
            "attach.json: cloth.attach[0]: needs collider and vertices");
}

}  // namespace
}  // namespace drape
