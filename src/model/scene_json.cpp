#include "model/scene_json.h"

namespace drape {

namespace {

nlohmann::json vec3(const glm::dvec3& v) {
  return nlohmann::json::array({v.x, v.y, v.z});
}

// A mesh collider; a pose sequence's first frame and its own frame rate (when it has one).
nlohmann::json sequence_json(const ColliderDesc& c) {
  nlohmann::json j = {{"mesh", c.path}, {"voxel_size", c.voxel_size}, {"band", c.band}};
  if (c.sequence) j["first_frame"] = c.first_frame;
  if (c.sequence && c.sequence_fps > 0.0) j["fps"] = c.sequence_fps;
  return j;
}

nlohmann::json shape_json(const ColliderDesc& c) {
  switch (c.shape) {
    case ColliderDesc::Shape::sphere:
      return {{"sphere", {{"center", vec3(c.a)}, {"radius", c.radius}}}};
    case ColliderDesc::Shape::box:
      return {{"box", {{"min", vec3(c.a)}, {"max", vec3(c.b)}, {"radius", c.radius}}}};
    case ColliderDesc::Shape::plane:
      return {{"plane", {{"point", vec3(c.a)}, {"normal", vec3(c.b)}}}};
    case ColliderDesc::Shape::mesh:
      return sequence_json(c);
    case ColliderDesc::Shape::vdb:
      return {{"vdb", c.path}, {"grid", c.grid_name}};
    case ColliderDesc::Shape::nvdb:
      return {{"nvdb", c.path}};
  }
  return nlohmann::json::object();
}

}  // namespace

nlohmann::json collider_json(const ColliderDesc& c) {
  nlohmann::json j = shape_json(c);
  j["friction"] = c.friction;
  j["restitution"] = c.restitution;
  j["thickness"] = c.thickness;
  j["transform"] = {{"scale", c.transform.scale},
                    {"rotate_deg", vec3(c.transform.rotate_deg)},
                    {"translate", vec3(c.transform.translate)}};
  if (!c.motion.empty()) {
    nlohmann::json keys = nlohmann::json::array();
    for (const MotionKey& k : c.motion) {
      keys.push_back(
          {{"time", k.time}, {"translate", vec3(k.translate)}, {"rotate_deg", vec3(k.rotate_deg)}});
    }
    j["motion"] = keys;
  }
  return j;
}

}  // namespace drape
