#include "collision/collider_view.h"

namespace drape {

namespace {

kernels::Pose to_pose(const ColliderPose& p) {
  kernels::Pose out;
  out.rotation = glm::mat3(p.rotation);
  out.translation = glm::vec3(p.translation);
  out.scale = static_cast<float>(p.scale);
  return out;
}

kernels::Shape to_shape(ColliderDesc::Shape s) {
  switch (s) {
    case ColliderDesc::Shape::sphere:
      return kernels::Shape::sphere;
    case ColliderDesc::Shape::box:
      return kernels::Shape::box;
    case ColliderDesc::Shape::plane:
      return kernels::Shape::plane;
    default:
      return kernels::Shape::grid;
  }
}

// The view of one level set (or an analytic shape) placed for the substep.
kernels::ColliderView base_view(const Collider& collider, double t_before, double t_now,
                                const void* grid) {
  const ColliderDesc& d = collider.desc;
  kernels::ColliderView v;
  v.shape = to_shape(d.shape);
  v.a = glm::vec3(d.a);
  v.b = glm::vec3(d.b);
  v.radius = static_cast<float>(d.radius);
  v.grid = static_cast<const nanovdb::FloatGrid*>(grid);
  v.friction = static_cast<float>(d.friction);
  v.restitution = static_cast<float>(d.restitution);
  v.thickness = static_cast<float>(d.thickness);
  v.now = to_pose(collider.pose_at(t_now));
  v.before = to_pose(collider.pose_at(t_before));
  return v;
}

}  // namespace

kernels::ColliderView make_view(const Collider& collider, double t_before, double t_now,
                                const std::vector<const void*>& poses,
                                const std::vector<const void*>& motion) {
  if (collider.poses.empty()) {
    return base_view(collider, t_before, t_now, poses.empty() ? nullptr : poses.front());
  }
  const PoseBlend b = collider.blend_at(t_now);
  kernels::ColliderView v = base_view(collider, t_before, t_now, poses[b.k]);
  if (b.s > 0.0) {
    v.grid_next = static_cast<const nanovdb::FloatGrid*>(poses[b.next]);
    v.blend = static_cast<float>(b.s);
  }
  // The surface moves linearly between two poses: the substep's share of the interval it is in.
  const PoseBlend during = collider.blend_at(0.5 * (t_before + t_now));
  if (during.next != during.k && during.k < motion.size()) {
    v.motion = static_cast<const nanovdb::Vec3fGrid*>(motion[during.k]);
    v.motion_scale = static_cast<float>(collider.pose_fps * (t_now - t_before));
  }
  return v;
}

kernels::ColliderView make_view(const Collider& collider, double t_before, double t_now,
                                const void* grid) {
  if (collider.poses.empty()) return base_view(collider, t_before, t_now, grid);
  std::vector<const void*> host, motion;
  for (const auto& pose : collider.poses) host.push_back(pose->data());
  for (const auto& m : collider.motion) motion.push_back(m->data());
  return make_view(collider, t_before, t_now, host, motion);
}

std::size_t count_penetrations(const std::vector<Collider>& colliders,
                               const std::vector<glm::dvec3>& positions, double t) {
  std::vector<kernels::ColliderView> views;
  for (const Collider& c : colliders) {
    views.push_back(make_view(c, t, t, c.grid ? c.grid->data() : nullptr));
  }
  std::size_t inside = 0;
  for (const glm::dvec3& p : positions) {
    for (const kernels::ColliderView& v : views) {
      if (kernels::world_distance(v, p, 1e30) < 0.0) {
        ++inside;
        break;
      }
    }
  }
  return inside;
}

}  // namespace drape
