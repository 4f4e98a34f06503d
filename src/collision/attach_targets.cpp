#include "collision/attach_targets.h"

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>
#include <limits>

#include "kernels/geometry.h"

namespace drape {

namespace {

glm::dvec3 to_local(const ColliderPose& p, const glm::dvec3& world) {
  return glm::transpose(p.rotation) * (world - p.translation) / p.scale;
}

glm::dvec3 to_world(const ColliderPose& p, const glm::dvec3& local) {
  return p.rotation * (p.scale * local) + p.translation;
}

// An orthonormal frame of triangle abc: along ab, across, and the normal (columns).
glm::dmat3 triangle_frame(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c) {
  const glm::dvec3 e = glm::normalize(b - a);
  const glm::dvec3 n = glm::normalize(glm::cross(b - a, c - a));
  return glm::dmat3(e, glm::cross(n, e), n);
}

}  // namespace

AttachmentTargets::AttachmentTargets(const ClothModel::Attachments& attachments,
                                     const std::vector<glm::dvec3>& x0,
                                     const std::vector<Collider>& colliders)
    : m_colliders(&colliders) {
  for (std::size_t k = 0; k < attachments.size(); ++k) {
    Binding b;
    b.collider = attachments.collider[k];
    const Collider& c = colliders[b.collider];
    b.local = to_local(c.pose_at(0.0), x0[attachments.vertex[k]]);
    if (!c.pose_positions.empty()) {
      // The nearest point of pose 0 (brute force: done once, for the attached vertices only).
      const std::vector<glm::dvec3>& p = c.pose_positions.front();
      float best = std::numeric_limits<float>::max();
      for (std::size_t t = 0; t < c.pose_triangles.size(); ++t) {
        const glm::uvec3 tri = c.pose_triangles[t];
        float u, v, w;
        const float d2 =
            kernels::closest_on_triangle(glm::vec3(b.local), glm::vec3(p[tri.x]),
                                         glm::vec3(p[tri.y]), glm::vec3(p[tri.z]), u, v, w);
        if (d2 < best) {
          best = d2;
          b.triangle = static_cast<std::int64_t>(t);
          b.weights = glm::dvec3(u, v, w);
        }
      }
      const glm::uvec3 tri = c.pose_triangles[b.triangle];
      const glm::dvec3 q = b.weights.x * p[tri.x] + b.weights.y * p[tri.y] + b.weights.z * p[tri.z];
      b.offset = glm::transpose(triangle_frame(p[tri.x], p[tri.y], p[tri.z])) * (b.local - q);
    }
    m_bindings.push_back(b);
  }
}

void AttachmentTargets::at(double t, std::vector<glm::dvec3>& out) const {
  out.resize(m_bindings.size());
  for (std::size_t k = 0; k < m_bindings.size(); ++k) {
    const Binding& b = m_bindings[k];
    const Collider& c = (*m_colliders)[b.collider];
    glm::dvec3 local = b.local;
    if (b.triangle >= 0) {
      const PoseBlend blend = c.blend_at(t);
      const glm::uvec3 tri = c.pose_triangles[b.triangle];
      glm::dvec3 corner[3];
      for (int i = 0; i < 3; ++i) {
        corner[i] = glm::mix(c.pose_positions[blend.k][tri[i]],
                             c.pose_positions[blend.next][tri[i]], blend.s);
      }
      local = b.weights.x * corner[0] + b.weights.y * corner[1] + b.weights.z * corner[2] +
              triangle_frame(corner[0], corner[1], corner[2]) * b.offset;
    }
    out[k] = to_world(c.pose_at(t), local);
  }
}

}  // namespace drape
