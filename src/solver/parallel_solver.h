// The graph-coloured Gauss-Seidel solver, written once for every launch layer. A translation unit
// includes an executor (solver/exec_cpu.h or solver/exec_cuda.cuh) and then this file; the
// per-constraint work is the DRAPE_HD code in kernels/. Colours are projected one after another,
// each colour's constraints in parallel (they share no vertex).
#pragma once

#include <cmath>
#include <memory>
#include <vector>

#include "collision/collider_view.h"
#include "collision/self_collision.h"
#include "kernels/bend.h"
#include "kernels/collider.h"
#include "kernels/distance.h"
#include "kernels/integrate.h"
#include "kernels/xpbd.h"
#include "solver/collider_attachments.h"
#include "solver/colouring.h"
#include "solver/solver.h"
#include "solver/stitch_constraints.h"

namespace drape {

template <class Exec>
class ParallelSolver final : public Solver {
  template <class T>
  using Buffer = typename Exec::template Buffer<T>;

 public:
  ParallelSolver(const ClothModel& cloth, const PhysicsParams& params,
                 const std::vector<Collider>& colliders, Exec exec)
      : m_exec(exec),
        m_params(params),
        m_colliders(colliders),
        m_vertices(static_cast<std::uint32_t>(cloth.mesh.positions.size())),
        m_projections(
            static_cast<double>(cloth.topology.edge_count() + 2 * cloth.topology.bend_count()) *
            params.iterations * params.substeps) {
    const Topology& t = cloth.topology;
    const ClothColouring colouring = colour_cloth(t, m_vertices);
    m_stretch_offsets = colouring.stretch.offsets;
    m_bend_offsets = colouring.bend.offsets;
    m_shear_offsets = colouring.shear.offsets;

    upload_in_order(colouring.stretch.order, t.edge_v0, m_stretch_v0);
    upload_in_order(colouring.stretch.order, t.edge_v1, m_stretch_v1);
    upload_in_order(colouring.stretch.order, t.edge_rest_length, m_stretch_rest);
    upload_in_order(colouring.shear.order, t.bend_v3, m_shear_v0);
    upload_in_order(colouring.shear.order, t.bend_v4, m_shear_v1);
    upload_in_order(colouring.shear.order, t.shear_rest_length, m_shear_rest);
    upload_in_order(colouring.bend.order, t.bend_v1, m_bend_v1);
    upload_in_order(colouring.bend.order, t.bend_v2, m_bend_v2);
    upload_in_order(colouring.bend.order, t.bend_v3, m_bend_v3);
    upload_in_order(colouring.bend.order, t.bend_v4, m_bend_v4);
    upload_in_order(colouring.bend.order, t.bend_rest_angle, m_bend_rest);

    std::vector<glm::vec3> x(m_vertices);
    for (std::uint32_t i = 0; i < m_vertices; ++i) x[i] = glm::vec3(cloth.mesh.positions[i]);
    m_x.upload(x);
    m_p.upload(x);
    m_v.upload(std::vector<glm::vec3>(m_vertices, glm::vec3(0.0f)));
    m_clear_at.upload(std::vector<glm::vec3>(m_vertices, glm::vec3(0.0f)));
    m_clear_reach.upload(std::vector<float>(m_vertices, 0.0f));
    m_w.upload(std::vector<float>(cloth.inv_mass.begin(), cloth.inv_mass.end()));

    // Level sets (every pose of a sequence, and its motion grids) go to the backend's memory
    // once; analytic colliders need nothing there.
    m_grids.resize(m_colliders.size());
    m_motion.resize(m_colliders.size());
    for (std::size_t c = 0; c < m_colliders.size(); ++c) {
      const Collider& collider = m_colliders[c];
      if (!collider.poses.empty()) {
        m_grids[c].resize(collider.poses.size());
        for (std::size_t k = 0; k < collider.poses.size(); ++k) {
          m_grids[c][k].upload(collider.poses[k]->blocks());
        }
        m_motion[c].resize(collider.motion.size());
        for (std::size_t k = 0; k < collider.motion.size(); ++k) {
          m_motion[c][k].upload(collider.motion[k]->blocks());
        }
      } else if (collider.grid) {
        m_grids[c].resize(1);
        m_grids[c][0].upload(collider.grid->blocks());
      }
    }
    m_k_stretch = static_cast<float>(scaled_stiffness(params.stretch, params.iterations));
    m_k_shear = static_cast<float>(scaled_stiffness(params.shear, params.iterations));
    m_k_bend = static_cast<float>(scaled_stiffness(params.bend, params.iterations));
    if (params.xpbd) upload_compliance(cloth, colouring);
    if (!cloth.attach_pin.empty()) {
      std::vector<std::uint32_t> pins(cloth.attach_pin.begin(), cloth.attach_pin.end());
      for (std::uint32_t& p : pins) p = p == kNoPin ? kernels::kNone : p;
      m_attach_pin.upload(pins);
      m_attach_length.upload(
          std::vector<float>(cloth.attach_length.begin(), cloth.attach_length.end()));
    }
    if (params.air.enabled) upload_air(cloth);
    if (cloth.attachments.size() > 0) {
      m_attach = std::make_unique<ColliderAttachments<Exec>>(cloth, params, m_colliders, exec);
    }
    if (cloth.stitches.size() > 0) {
      m_stitches = std::make_unique<StitchConstraints<Exec>>(cloth.stitches, params, exec);
    }
    if (params.self_collision.enabled) {
      m_self =
          std::make_unique<SelfCollision<Exec>>(cloth, params.self_collision, m_w.data(), exec);
    }
  }

  void step_frame() override {
    for (int s = 0; s < m_params.substeps; ++s) substep();
    m_exec.synchronize();
    if (m_self) m_self_contacts = m_self->take_contact_count();
  }

  std::uint64_t self_contacts() const override { return m_self_contacts; }
  int host_threads() const override { return m_exec.threads(); }

  void copy_positions(std::vector<glm::dvec3>& out) const override { download(m_x, out); }
  void copy_velocities(std::vector<glm::dvec3>& out) const override { download(m_v, out); }

  SolverState state() const override {
    SolverState s;
    download(m_x, s.positions);
    download(m_v, s.velocities);
    s.substeps_done = m_substeps_done;
    return s;
  }

  void restore(const SolverState& state) override {
    m_x.upload(std::vector<glm::vec3>(state.positions.begin(), state.positions.end()));
    m_v.upload(std::vector<glm::vec3>(state.velocities.begin(), state.velocities.end()));
    m_substeps_done = state.substeps_done;
  }
  double projections_per_frame() const override { return m_projections; }

  std::size_t memory_bytes() const override {
    return m_x.bytes() + m_p.bytes() + m_v.bytes() + m_w.bytes() + m_stretch_v0.bytes() +
           m_stretch_v1.bytes() + m_stretch_rest.bytes() + m_shear_v0.bytes() + m_shear_v1.bytes() +
           m_shear_rest.bytes() + m_bend_v1.bytes() + m_bend_v2.bytes() + m_bend_v3.bytes() +
           m_bend_v4.bytes() + m_bend_rest.bytes() + m_alpha.bytes() + m_lambda.bytes() +
           m_attach_pin.bytes() + m_attach_length.bytes() + m_triangles.bytes() +
           m_vertex_triangle_offsets.bytes() + m_vertex_triangles.bytes() + m_air.bytes() +
           (m_self ? m_self->bytes() : 0) + (m_stitches ? m_stitches->bytes() : 0) +
           (m_attach ? m_attach->bytes() : 0);
  }

 private:
  static constexpr std::size_t kIterationGraph = 0;

  void substep() {
    const kernels::ParticleView s = particles();
    const float dt = static_cast<float>(m_params.dt());
    const glm::vec3 accel(m_params.gravity + m_params.wind);
    const float damping = static_cast<float>(m_params.damping);
    if (m_params.air.enabled) {
      const AirDesc& air = m_params.air;
      m_exec.for_each(
          0, m_vertices,
          kernels::AirAcceleration{s, m_triangles.data(), m_vertex_triangle_offsets.data(),
                                   m_vertex_triangles.data(), glm::vec3(air.wind),
                                   static_cast<float>(air.density), static_cast<float>(air.drag),
                                   static_cast<float>(air.lift), m_air.data()});
      m_exec.for_each(0, m_vertices, kernels::PredictInAir{s, dt, accel, damping, m_air.data()});
    } else {
      m_exec.for_each(0, m_vertices, kernels::Predict{s, dt, accel, damping});
    }
    if (m_params.xpbd) {
      m_exec.for_each(0, static_cast<std::uint32_t>(m_lambda.size()),
                      kernels::ZeroLambda{m_lambda.data()});
    }
    const kernels::ProjectBatch<kernels::DistanceView> stretch{
        s, {m_stretch_v0.data(), m_stretch_v1.data(), m_stretch_rest.data()}, m_k_stretch};
    const kernels::ProjectBatch<kernels::DistanceView> shear{
        s, {m_shear_v0.data(), m_shear_v1.data(), m_shear_rest.data()}, m_k_shear};
    const kernels::ProjectBatch<kernels::BendView> bend{
        s,
        {m_bend_v1.data(), m_bend_v2.data(), m_bend_v3.data(), m_bend_v4.data(),
         m_bend_rest.data()},
        m_k_bend};
    const kernels::CollideChunk collide{upload_collider_views(),
                                        static_cast<std::uint32_t>(m_colliders.size()),
                                        s,
                                        {m_clear_at.data(), m_clear_reach.data()}};
    if (collide.count > 0)
      m_exec.for_each(0, m_vertices, kernels::ForgetClearance{collide.clear.reach});
    if (m_attach)
      m_attach->begin_substep(s, static_cast<double>(m_substeps_done + 1) * m_params.dt());
    if (m_stitches) m_stitches->begin_substep(static_cast<double>(m_substeps_done) * m_params.dt());
    if (m_self && m_self->untangles()) {
      download(m_x, m_host_x);
      m_self->find_crossings(m_host_x, m_exec.threads());
    }
    if (m_self && !m_self->every_iteration()) m_self->rebuild(s);
    for (int it = 0; it < m_params.iterations; ++it) {
      m_exec.iteration_begin();
      // The same launches with the same arguments every iteration of every substep (collider
      // placements change in device memory only): the cuda backend replays them as one graph.
      m_exec.replay(kIterationGraph, [&] {
        if (m_params.xpbd) {
          project_xpbd(s);
        } else {
          project(stretch, bend, shear);
        }
        if (m_stitches) m_stitches->project(s);
        if (m_attach) m_attach->project(s);
        if (m_params.max_strain > 0.0) limit_strain(s, stretch.c);
        if (collide.count > 0) m_exec.for_each_chunk(0, m_vertices, collide);
      });
      if (m_self) {
        if (m_self->every_iteration()) m_self->rebuild(s);
        m_self->project(s);
      }
      m_exec.iteration_end();
    }
    if (m_params.max_strain > 0.0) limit_strain(s, stretch.c);
    if (m_self) m_self->settle(s);
    ++m_substeps_done;
    m_exec.for_each(0, m_vertices, kernels::UpdateVelocity{s, dt});
  }

  // One XPBD iteration over the multipliers of this substep.
  void project_xpbd(const kernels::ParticleView& s) {
    const std::size_t edges = m_stretch_v0.size(), pairs = m_bend_v1.size();
    float* lambda = m_lambda.data();
    const float* alpha = m_alpha.data();
    const kernels::XpbdBatch<kernels::XpbdDistanceView> stretch{
        s, {m_stretch_v0.data(), m_stretch_v1.data(), m_stretch_rest.data(), alpha, lambda}};
    const kernels::XpbdBatch<kernels::XpbdBendView> bend{
        s,
        {{m_bend_v1.data(), m_bend_v2.data(), m_bend_v3.data(), m_bend_v4.data(),
          m_bend_rest.data()},
         alpha + edges,
         lambda + edges}};
    const kernels::XpbdBatch<kernels::XpbdDistanceView> shear{
        s,
        {m_shear_v0.data(), m_shear_v1.data(), m_shear_rest.data(), alpha + edges + pairs,
         lambda + edges + pairs}};
    project(stretch, bend, shear);
  }

  // One iteration of either model: stretch, bend (four pairs at a time on the cpu), shear, each
  // colour after colour.
  template <class Distance, class Bend>
  void project(const Distance& stretch, const Bend& bend, const Distance& shear) {
    for_each_colour(m_stretch_offsets, stretch);
    for (std::size_t c = 0; c + 1 < m_bend_offsets.size(); ++c) {
      m_exec.for_each_pack(m_bend_offsets[c], m_bend_offsets[c + 1], bend);
    }
    for_each_colour(m_shear_offsets, shear);
  }

  // The long-range attachments, then strain limiting (Provot) over the stretch edges.
  void limit_strain(const kernels::ParticleView& s, const kernels::DistanceView& edges) {
    const float ratio = static_cast<float>(1.0 + m_params.max_strain);
    if (m_attach_pin.size() > 0) {
      m_exec.for_each(0, m_vertices,
                      kernels::AttachToPins{s, m_attach_pin.data(), m_attach_length.data(), ratio});
    }
    for (int pass = 0; pass < kStrainLimitPasses; ++pass) {
      for_each_colour(m_stretch_offsets, kernels::StrainLimitBatch{s, edges, ratio});
    }
  }

  // XPBD compliances over dt^2 in colour order (stretch | bend | shear) and their multipliers.
  void upload_compliance(const ClothModel& cloth, const ClothColouring& colouring) {
    const double dt2 = m_params.dt() * m_params.dt();
    std::vector<float> alpha;
    const auto append = [&](const std::vector<std::uint32_t>& order,
                            const std::vector<double>& compliance) {
      for (std::uint32_t k : order) alpha.push_back(static_cast<float>(compliance[k] / dt2));
    };
    append(colouring.stretch.order, cloth.stretch_compliance);
    append(colouring.bend.order, cloth.bend_compliance);
    append(colouring.shear.order, cloth.shear_compliance);
    m_alpha.upload(alpha);
    m_lambda.upload(std::vector<float>(alpha.size(), 0.0f));
  }

  void upload_air(const ClothModel& cloth) {
    std::vector<std::uint32_t> corners;
    for (const glm::uvec3& t : cloth.mesh.triangles) corners.insert(corners.end(), {t.x, t.y, t.z});
    m_triangles.upload(corners);
    m_vertex_triangle_offsets.upload(cloth.vertex_triangle_offsets);
    m_vertex_triangles.upload(cloth.vertex_triangles);
    m_air.upload(std::vector<glm::vec3>(m_vertices, glm::vec3(0.0f)));
  }

  // Colour after colour; the constraints of one colour share no vertex and run in parallel.
  template <class Project>
  void for_each_colour(const std::vector<std::uint32_t>& offsets, Project project) {
    for (std::size_t colour = 0; colour + 1 < offsets.size(); ++colour) {
      m_exec.for_each(offsets[colour], offsets[colour + 1], project);
    }
  }

  // This substep's collider placements, in the backend's memory.
  const kernels::ColliderView* upload_collider_views() {
    if (m_colliders.empty()) return nullptr;
    const double dt = m_params.dt();
    const double t_before = static_cast<double>(m_substeps_done) * dt;
    std::vector<kernels::ColliderView> views;
    for (std::size_t c = 0; c < m_colliders.size(); ++c) {
      std::vector<const void*> grids, motion;
      for (auto& pose : m_grids[c]) grids.push_back(pose.data());
      for (auto& m : m_motion[c]) motion.push_back(m.data());
      views.push_back(make_view(m_colliders[c], t_before, t_before + dt, grids, motion));
      views.back().coulomb = m_params.xpbd;
    }
    m_collider_views.upload(views);
    return m_collider_views.data();
  }

  static void download(const Buffer<glm::vec3>& buffer, std::vector<glm::dvec3>& out) {
    std::vector<glm::vec3> host;
    buffer.download(host);
    out.assign(host.begin(), host.end());
  }

  kernels::ParticleView particles() {
    return {m_x.data(), m_p.data(), m_v.data(), m_w.data(), m_vertices};
  }

  Exec m_exec;
  PhysicsParams m_params;
  std::vector<Collider> m_colliders;
  std::uint32_t m_vertices;
  double m_projections;
  float m_k_stretch = 0, m_k_shear = 0, m_k_bend = 0;
  std::vector<std::uint32_t> m_stretch_offsets, m_bend_offsets, m_shear_offsets;
  Buffer<glm::vec3> m_x, m_p, m_v;
  Buffer<float> m_w;
  Buffer<glm::vec3> m_clear_at;  // kernels::Clearance: where the colliders were last sampled
  Buffer<float> m_clear_reach;
  Buffer<std::uint32_t> m_stretch_v0, m_stretch_v1, m_shear_v0, m_shear_v1;
  Buffer<std::uint32_t> m_bend_v1, m_bend_v2, m_bend_v3, m_bend_v4;
  Buffer<float> m_stretch_rest, m_shear_rest, m_bend_rest;
  Buffer<float> m_alpha, m_lambda;  // XPBD, colour order: stretch | bend | shear
  Buffer<std::uint32_t> m_attach_pin;
  Buffer<float> m_attach_length;
  Buffer<std::uint32_t> m_triangles, m_vertex_triangle_offsets, m_vertex_triangles;
  Buffer<glm::vec3> m_air;
  std::vector<std::vector<Buffer<GridBuffer::Block>>> m_grids;   // per collider, per pose
  std::vector<std::vector<Buffer<GridBuffer::Block>>> m_motion;  // per collider, per interval
  Buffer<kernels::ColliderView> m_collider_views;
  long long m_substeps_done = 0;
  std::unique_ptr<StitchConstraints<Exec>> m_stitches;
  std::unique_ptr<ColliderAttachments<Exec>> m_attach;
  std::unique_ptr<SelfCollision<Exec>> m_self;
  std::uint64_t m_self_contacts = 0;
  std::vector<glm::dvec3> m_host_x;  // the start positions on the host, for untangling
};

}  // namespace drape
