// Attachments to colliders for the coloured solver, written once for every launch layer
// (included by solver/parallel_solver.h): hard ones moved with their collider after the
// prediction of each substep, soft ones pulled once per iteration.
#pragma once

#include <cstdint>
#include <vector>

#include "collision/collider.h"
#include "kernels/attach.h"
#include "kernels/xpbd.h"
#include "model/cloth.h"
#include "solver/physics.h"

namespace drape {

// Each attached vertex in its collider's frame at time 0.
inline glm::dvec3 attach_local(const Collider& collider, const glm::dvec3& x) {
  const ColliderPose p = collider.pose_at(0.0);
  return glm::transpose(p.rotation) * (x - p.translation) / p.scale;
}

template <class Exec>
class ColliderAttachments {
  template <class T>
  using Buffer = typename Exec::template Buffer<T>;

 public:
  ColliderAttachments(const ClothModel& cloth, const PhysicsParams& params,
                      const std::vector<Collider>& colliders, Exec exec)
      : m_exec(exec), m_xpbd(params.xpbd) {
    const ClothModel::Attachments& a = cloth.attachments;
    std::vector<std::uint32_t> vertex[2], collider[2];
    std::vector<glm::vec3> local[2];
    std::vector<float> alpha, k_prime;
    const double dt2 = params.dt() * params.dt();
    for (std::size_t k = 0; k < a.size(); ++k) {
      const int soft = a.hard[k] ? 0 : 1;
      vertex[soft].push_back(a.vertex[k]);
      collider[soft].push_back(a.collider[k]);
      local[soft].push_back(
          glm::vec3(attach_local(colliders[a.collider[k]], cloth.mesh.positions[a.vertex[k]])));
      if (soft == 0) continue;
      alpha.push_back(static_cast<float>(a.compliance[k] / dt2));
      k_prime.push_back(static_cast<float>(scaled_stiffness(a.stiffness[k], params.iterations)));
    }
    for (int i = 0; i < 2; ++i) {
      m_count[i] = static_cast<std::uint32_t>(vertex[i].size());
      m_vertex[i].upload(vertex[i]);
      m_collider[i].upload(collider[i]);
      m_local[i].upload(local[i]);
    }
    m_alpha.upload(alpha);
    m_k_prime.upload(k_prime);
    m_lambda.upload(std::vector<float>(alpha.size(), 0.0f));
  }

  // After the prediction: hard attachments to their collider's point; XPBD multipliers to 0.
  void begin_substep(const kernels::ParticleView& s, const kernels::ColliderView* colliders) {
    m_exec.for_each(0, m_count[0], kernels::FollowColliders{s, colliders, view(0)});
    if (m_xpbd) m_exec.for_each(0, m_count[1], kernels::ZeroLambda{m_lambda.data()});
  }

  void project(const kernels::ParticleView& s, const kernels::ColliderView* colliders) {
    if (m_count[1] == 0) return;
    m_exec.for_each(0, m_count[1],
                    kernels::PullToColliders{s, colliders, view(1), m_alpha.data(),
                                             m_k_prime.data(), m_lambda.data(), m_xpbd});
  }

  std::size_t bytes() const {
    std::size_t b = m_alpha.bytes() + m_k_prime.bytes() + m_lambda.bytes();
    for (int i = 0; i < 2; ++i)
      b += m_vertex[i].bytes() + m_collider[i].bytes() + m_local[i].bytes();
    return b;
  }

 private:
  kernels::AttachView view(int i) {
    return {m_vertex[i].data(), m_collider[i].data(), m_local[i].data()};
  }

  Exec m_exec;
  bool m_xpbd;
  std::uint32_t m_count[2] = {0, 0};  // hard, soft
  Buffer<std::uint32_t> m_vertex[2], m_collider[2];
  Buffer<glm::vec3> m_local[2];
  Buffer<float> m_alpha, m_k_prime, m_lambda;
};

}  // namespace drape
