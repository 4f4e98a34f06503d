// Attachments to colliders for the coloured solver, written once for every launch layer
// (included by solver/parallel_solver.h): the targets of the substep computed on the host and
// uploaded, hard attachments moved there after the prediction, soft ones pulled every iteration.
#pragma once

#include <cstdint>
#include <vector>

#include "collision/attach_targets.h"
#include "kernels/attach.h"
#include "kernels/xpbd.h"
#include "model/cloth.h"
#include "solver/physics.h"

namespace drape {

template <class Exec>
class ColliderAttachments {
  template <class T>
  using Buffer = typename Exec::template Buffer<T>;

 public:
  ColliderAttachments(const ClothModel& cloth, const PhysicsParams& params,
                      const std::vector<Collider>& colliders, Exec exec)
      : m_exec(exec),
        m_xpbd(params.xpbd),
        m_targets(cloth.attachments, cloth.mesh.positions, colliders) {
    const ClothModel::Attachments& a = cloth.attachments;
    std::vector<std::uint32_t> vertex[2];
    std::vector<float> alpha, k_prime;
    const double dt2 = params.dt() * params.dt();
    for (std::size_t k = 0; k < a.size(); ++k) {
      const int soft = a.hard[k] ? 0 : 1;
      vertex[soft].push_back(a.vertex[k]);
      m_order[soft].push_back(static_cast<std::uint32_t>(k));
      if (soft == 0) continue;
      alpha.push_back(static_cast<float>(a.compliance[k] / dt2));
      k_prime.push_back(static_cast<float>(scaled_stiffness(a.stiffness[k], params.iterations)));
    }
    for (int i = 0; i < 2; ++i) {
      m_vertex[i].upload(vertex[i]);
      m_target[i].resize(vertex[i].size());
    }
    m_alpha.upload(alpha);
    m_k_prime.upload(k_prime);
    m_lambda.upload(std::vector<float>(alpha.size(), 0.0f));
  }

  // After the prediction of the substep that ends at t_now: the targets, hard attachments on
  // them, XPBD multipliers to 0.
  void begin_substep(const kernels::ParticleView& s, double t_now) {
    m_targets.at(t_now, m_host);
    for (int i = 0; i < 2; ++i) {
      std::vector<glm::vec3> targets;
      for (std::uint32_t k : m_order[i]) targets.push_back(glm::vec3(m_host[k]));
      m_target[i].upload(targets);
    }
    m_exec.for_each(0, count(0), kernels::FollowTargets{s, m_vertex[0].data(), m_target[0].data()});
    if (m_xpbd) m_exec.for_each(0, count(1), kernels::ZeroLambda{m_lambda.data()});
  }

  void project(const kernels::ParticleView& s) {
    if (count(1) == 0) return;
    m_exec.for_each(
        0, count(1),
        kernels::PullToTargets{s, m_vertex[1].data(), m_target[1].data(), m_alpha.data(),
                               m_k_prime.data(), m_lambda.data(), m_xpbd});
  }

  std::size_t bytes() const {
    std::size_t b = m_alpha.bytes() + m_k_prime.bytes() + m_lambda.bytes();
    for (int i = 0; i < 2; ++i) b += m_vertex[i].bytes() + m_target[i].bytes();
    return b;
  }

 private:
  std::uint32_t count(int i) const { return static_cast<std::uint32_t>(m_order[i].size()); }

  Exec m_exec;
  bool m_xpbd;
  AttachmentTargets m_targets;
  std::vector<glm::dvec3> m_host;
  std::vector<std::uint32_t> m_order[2];  // hard, soft: attachment indices
  Buffer<std::uint32_t> m_vertex[2];
  Buffer<glm::vec3> m_target[2];
  Buffer<float> m_alpha, m_k_prime, m_lambda;
};

}  // namespace drape
