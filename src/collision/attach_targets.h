// Where attached vertices (cloth.attach) are at a time: for an analytic or level-set collider, the
// vertex's start position carried by the collider's placement; for a pose sequence, the point of
// the body's surface nearest to the vertex at time 0 (a triangle and barycentric weights), on the
// poses blended at that time, plus the vertex's start offset from it, kept in the frame of that
// triangle (so it turns with the surface).
#pragma once

#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

#include "collision/collider.h"
#include "model/cloth.h"

namespace drape {

class AttachmentTargets {
 public:
  // x0: the cloth's start positions (world).
  AttachmentTargets(const ClothModel::Attachments& attachments, const std::vector<glm::dvec3>& x0,
                    const std::vector<Collider>& colliders);

  std::size_t size() const { return m_bindings.size(); }
  // Every attachment's point at time t, in attachment order, world space.
  void at(double t, std::vector<glm::dvec3>& out) const;

 private:
  struct Binding {
    std::uint32_t collider = 0;
    glm::dvec3 local{0.0};  // rigid: the start position in the collider's frame
    // Sequence: the nearest triangle of pose 0, the weights of the nearest point, and the
    // vertex's offset from it in the triangle's frame (first edge, across, normal).
    std::int64_t triangle = -1;
    glm::dvec3 weights{0.0}, offset{0.0};
  };

  const std::vector<Collider>* m_colliders;
  std::vector<Binding> m_bindings;
};

}  // namespace drape
