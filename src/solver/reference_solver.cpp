// The reference backend: serial, double precision, the spec's solver loop (section 2) in the
// spec's order. Every other backend is checked against it.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "collision/attach_targets.h"
#include "collision/collider_view.h"
#include "drape/error.h"
#include "kernels/attach.h"
#include "kernels/stitch.h"
#include "kernels/xpbd.h"
#include "solver/reference_constraints.h"
#include "solver/solver.h"

namespace drape {

namespace {

using V3 = kernels::Vec3<double>;

V3 vec(const glm::dvec3& v) {
  return {v.x, v.y, v.z};
}
glm::dvec3 to_glm(const V3& v) {
  return {v.x, v.y, v.z};
}

class ReferenceSolver final : public Solver {
 public:
  ReferenceSolver(const ClothModel& cloth, const PhysicsParams& params,
                  const std::vector<Collider>& colliders)
      : m_topo(cloth.topology),
        m_colliders(colliders),
        m_params(params),
        m_x(cloth.mesh.positions),
        m_p(cloth.mesh.positions),
        m_v(cloth.mesh.positions.size(), glm::dvec3(0.0)),
        m_w(cloth.inv_mass),
        m_k_stretch(scaled_stiffness(params.stretch, params.iterations)),
        m_k_shear(scaled_stiffness(params.shear, params.iterations)),
        m_k_bend(scaled_stiffness(params.bend, params.iterations)),
        m_triangles(cloth.mesh.triangles),
        m_stretch_compliance(cloth.stretch_compliance),
        m_shear_compliance(cloth.shear_compliance),
        m_bend_compliance(cloth.bend_compliance),
        m_attach_pin(cloth.attach_pin),
        m_attach_length(cloth.attach_length),
        m_vertex_triangle_offsets(cloth.vertex_triangle_offsets),
        m_vertex_triangles(cloth.vertex_triangles),
        m_stitches(cloth.stitches),
        m_seams(seam_neighbours(cloth.stitches, cloth.mesh.triangles, cloth.mesh.positions.size())),
        m_attachments(cloth.attachments),
        m_targets(cloth.attachments, cloth.mesh.positions, m_colliders),
        m_k_stitch(params.xpbd ? 1.0 : params.stitch_k()),
        m_stitch_alpha(params.stitch_compliance / (params.dt() * params.dt())) {
    const double dt2 = params.dt() * params.dt();
    for (auto* c : {&m_stretch_compliance, &m_shear_compliance, &m_bend_compliance}) {
      for (double& a : *c) a /= dt2;  // alpha~ = alpha / dt^2
    }
    if (params.self_collision.enabled) {
      m_cell_size = params.self_collision.cell_size > 0.0 ? params.self_collision.cell_size
                                                          : mean_rest_edge_length(m_topo);
    }
  }

  void step_frame() override {
    for (int s = 0; s < m_params.substeps; ++s) substep();
  }

  void copy_positions(std::vector<glm::dvec3>& out) const override { out = m_x; }
  void copy_velocities(std::vector<glm::dvec3>& out) const override { out = m_v; }
  SolverState state() const override { return {m_x, m_v, m_substeps_done}; }
  void restore(const SolverState& state) override {
    m_x = state.positions;
    m_v = state.velocities;
    m_substeps_done = state.substeps_done;
  }

  double projections_per_frame() const override {
    const double per_iteration = static_cast<double>(m_topo.edge_count() + 2 * m_topo.bend_count());
    return per_iteration * m_params.iterations * m_params.substeps;
  }

 private:
  void substep() {
    const double dt = m_params.dt();
    const glm::dvec3 accel = m_params.gravity + m_params.wind;
    if (m_params.air.enabled) air_accelerations();
    for (std::size_t i = 0; i < m_x.size(); ++i) {
      if (m_w[i] > 0.0) m_v[i] += dt * (m_air.empty() ? accel : accel + m_air[i]);
      m_v[i] *= m_params.damping;
      m_p[i] = m_x[i] + dt * m_v[i];
    }
    const double t_before = static_cast<double>(m_substeps_done) * dt;
    m_views.clear();
    for (const Collider& c : m_colliders) {
      m_views.push_back(make_view(c, t_before, t_before + dt, c.grid ? c.grid->data() : nullptr));
      m_views.back().coulomb = m_params.xpbd;
    }
    follow_colliders(t_before + dt);
    if (m_params.xpbd) {
      m_stretch_lambda.assign(m_topo.edge_count(), 0.0);
      m_bend_lambda.assign(m_topo.bend_count(), 0.0);
      m_shear_lambda.assign(m_topo.bend_count(), 0.0);
    }
    m_stitch_lambda.assign(m_stitches.size(), 0.0);
    m_stitch_fraction = m_params.stitch_fraction(t_before + dt);
    for (int it = 0; it < m_params.iterations; ++it) {
      if (m_params.xpbd) {
        project_xpbd_stretch_and_shear(m_topo.edge_v0, m_topo.edge_v1, m_topo.edge_rest_length,
                                       m_stretch_compliance, m_stretch_lambda);
        project_xpbd_bend();
        project_xpbd_stretch_and_shear(m_topo.bend_v3, m_topo.bend_v4, m_topo.shear_rest_length,
                                       m_shear_compliance, m_shear_lambda);
      } else {
        project_stretch();
        project_bend();
        project_shear();
      }
      project_stitches();
      pull_to_colliders();
      if (m_params.max_strain > 0.0) limit_strain();
      project_obstacles();
      if (m_params.self_collision.enabled) project_self_collisions();
    }
    if (m_params.max_strain > 0.0) limit_strain();
    for (std::size_t i = 0; i < m_x.size(); ++i) {
      m_v[i] = (m_p[i] - m_x[i]) / dt;
      m_x[i] = m_p[i];
    }
    ++m_substeps_done;
  }

  // Per-vertex air acceleration: w_i times a third of the force on each of its triangles.
  void air_accelerations() {
    const AirDesc& air = m_params.air;
    m_air.assign(m_x.size(), glm::dvec3(0.0));
    for (std::size_t i = 0; i < m_x.size(); ++i) {
      V3 sum{0.0, 0.0, 0.0};
      for (std::uint32_t j = m_vertex_triangle_offsets[i]; j < m_vertex_triangle_offsets[i + 1];
           ++j) {
        const glm::uvec3 t = m_triangles[m_vertex_triangles[j]];
        const V3 x[3] = {vec(m_x[t.x]), vec(m_x[t.y]), vec(m_x[t.z])};
        const V3 v[3] = {vec(m_v[t.x]), vec(m_v[t.y]), vec(m_v[t.z])};
        sum = sum + kernels::air_force(x, v, vec(air.wind), air.density, air.drag, air.lift);
      }
      m_air[i] = to_glm(sum) * (m_w[i] / 3.0);
    }
  }

  void project_xpbd_stretch_and_shear(const std::vector<std::uint32_t>& v0,
                                      const std::vector<std::uint32_t>& v1,
                                      const std::vector<double>& rest,
                                      const std::vector<double>& alpha,
                                      std::vector<double>& lambda) {
    for (std::size_t k = 0; k < v0.size(); ++k) {
      const std::uint32_t a = v0[k], b = v1[k];
      V3 n;
      const double dl = kernels::xpbd_distance(vec(m_p[a]), m_w[a], vec(m_p[b]), m_w[b], rest[k],
                                               alpha[k], lambda[k], n);
      lambda[k] += dl;
      m_p[a] += to_glm(n) * (m_w[a] * dl);
      m_p[b] -= to_glm(n) * (m_w[b] * dl);
    }
  }

  void project_xpbd_bend() {
    for (std::size_t k = 0; k < m_topo.bend_count(); ++k) {
      const std::uint32_t idx[4] = {m_topo.bend_v1[k], m_topo.bend_v2[k], m_topo.bend_v3[k],
                                    m_topo.bend_v4[k]};
      V3 p[4], q[4];
      double w[4];
      for (int i = 0; i < 4; ++i) {
        p[i] = vec(m_p[idx[i]]);
        w[i] = m_w[idx[i]];
      }
      double dl;
      const double coeff = kernels::xpbd_bend_coefficient(
          p, w, m_topo.bend_rest_angle[k], m_bend_compliance[k], m_bend_lambda[k], q, dl);
      m_bend_lambda[k] += dl;
      for (int i = 0; i < 4; ++i) m_p[idx[i]] += to_glm(q[i]) * (w[i] * coeff);
    }
  }

  // The attachments' targets at the end of the substep, the hard ones on them; multipliers to 0.
  void follow_colliders(double t_now) {
    const ClothModel::Attachments& a = m_attachments;
    m_attach_lambda.assign(a.size(), 0.0);
    m_targets.at(t_now, m_attach_target);
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (a.hard[k]) m_p[a.vertex[k]] = m_attach_target[k];
    }
  }

  // Soft attachments in order (kernels/attach.h).
  void pull_to_colliders() {
    const ClothModel::Attachments& a = m_attachments;
    const double dt2 = m_params.dt() * m_params.dt();
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (a.hard[k]) continue;
      const std::uint32_t v = a.vertex[k];
      const glm::dvec3 d = m_p[v] - m_attach_target[k];
      if (!m_params.xpbd) {
        m_p[v] -= scaled_stiffness(a.stiffness[k], m_params.iterations) * d;
        continue;
      }
      const double len = glm::length(d);
      if (!(len > 1e-12)) continue;
      const double dl =
          kernels::attach_dlambda(len, m_w[v], a.compliance[k] / dt2, m_attach_lambda[k]);
      m_attach_lambda[k] += dl;
      m_p[v] += (m_w[v] * dl / len) * d;
    }
  }

  // Stitches in order, stitch_passes times: XPBD with their compliance, or PBD with the scaled
  // stiffness.
  void project_stitches() {
    const StitchSet& st = m_stitches;
    for (int pass = 0; pass < m_params.stitch_passes; ++pass) {
      for (std::size_t k = 0; k < st.size(); ++k) project_stitch(st, k);
    }
  }

  void project_stitch(const StitchSet& st, std::size_t k) {
    const std::uint32_t v = st.v[k], a = st.a[k], b = st.b[k];
    const double t = st.t[k];
    V3 n{0.0, 0.0, 0.0};
    const double dl =
        kernels::stitch_dlambda(vec(m_p[v]), m_w[v], vec(m_p[a]), m_w[a], vec(m_p[b]), m_w[b], t,
                                st.length[k] * m_stitch_fraction,
                                m_params.xpbd ? m_stitch_alpha : 0.0, m_stitch_lambda[k], n);
    m_stitch_lambda[k] += dl;
    const glm::dvec3 step = to_glm(n) * (dl * m_k_stitch);
    m_p[v] += step * m_w[v];
    m_p[a] -= step * ((1.0 - t) * m_w[a]);
    m_p[b] -= step * (t * m_w[b]);
  }

  // The long-range attachments, then strain limiting over the edges in order.
  void limit_strain() {
    const double ratio = 1.0 + m_params.max_strain;
    for (std::size_t i = 0; i < m_attach_pin.size(); ++i) {
      if (m_attach_pin[i] == kNoPin) continue;
      V3 out;
      if (kernels::attach(vec(m_p[i]), vec(m_p[m_attach_pin[i]]), m_attach_length[i] * ratio,
                          out)) {
        m_p[i] = to_glm(out);
      }
    }
    for (int pass = 0; pass < kStrainLimitPasses; ++pass) {
      for (std::size_t e = 0; e < m_topo.edge_count(); ++e) {
        const std::uint32_t a = m_topo.edge_v0[e], b = m_topo.edge_v1[e];
        V3 da, db;
        if (kernels::strain_limit(vec(m_p[a]), m_w[a], vec(m_p[b]), m_w[b],
                                  m_topo.edge_rest_length[e] * ratio, da, db)) {
          m_p[a] += to_glm(da);
          m_p[b] += to_glm(db);
        }
      }
    }
  }

  void project_obstacles() {
    if (m_views.empty()) return;
    for (std::size_t i = 0; i < m_x.size(); ++i) {
      if (m_w[i] == 0.0) continue;
      for (const kernels::ColliderView& view : m_views) kernels::collide(view, m_p[i], m_x[i]);
    }
  }

  using Cell = std::array<long long, 3>;

  Cell cell_of(const glm::dvec3& p) const {
    return {static_cast<long long>(std::floor(p.x / m_cell_size)),
            static_cast<long long>(std::floor(p.y / m_cell_size)),
            static_cast<long long>(std::floor(p.z / m_cell_size))};
  }

  // Spec section 3, project_self_collisions: triangle centroids hashed into a dictionary of
  // cells, then every vertex against the triangles of its 27 neighbour cells, in the spec's order.
  void project_self_collisions() {
    std::map<Cell, std::vector<std::uint32_t>> grid;
    for (std::size_t t = 0; t < m_triangles.size(); ++t) {
      const glm::uvec3 v = m_triangles[t];
      grid[cell_of((m_p[v.x] + m_p[v.y] + m_p[v.z]) / 3.0)].push_back(
          static_cast<std::uint32_t>(t));
    }
    const double thickness = m_params.self_collision.thickness;
    for (std::size_t i = 0; i < m_p.size(); ++i) {
      const Cell c = cell_of(m_p[i]);
      for (long long dx = -1; dx <= 1; ++dx) {
        for (long long dy = -1; dy <= 1; ++dy) {
          for (long long dz = -1; dz <= 1; ++dz) {
            const auto found = grid.find({c[0] + dx, c[1] + dy, c[2] + dz});
            if (found == grid.end()) continue;
            for (std::uint32_t t : found->second) {
              const glm::uvec3 v = m_triangles[t];
              if (v.x == i || v.y == i || v.z == i) continue;
              const auto u = static_cast<std::uint32_t>(i);
              if (m_seams.joined(u, v.x) || m_seams.joined(u, v.y) || m_seams.joined(u, v.z)) {
                continue;  // the two sides of a seam
              }
              const glm::dvec3 abc[3] = {m_p[v.x], m_p[v.y], m_p[v.z]};
              const double w_abc[3] = {m_w[v.x], m_w[v.y], m_w[v.z]};
              glm::dvec3 dp[4];
              if (!reference::point_triangle_correction(m_p[i], m_w[i], abc, w_abc, thickness,
                                                        dp)) {
                continue;
              }
              m_p[i] += dp[0];
              m_p[v.x] += dp[1];
              m_p[v.y] += dp[2];
              m_p[v.z] += dp[3];
            }
          }
        }
      }
    }
  }

  void project_distance(std::uint32_t a, std::uint32_t b, double rest, double k_prime) {
    glm::dvec3 da, db;
    if (reference::distance_correction(m_p[a], m_w[a], m_p[b], m_w[b], rest, k_prime, da, db)) {
      m_p[a] += da;
      m_p[b] += db;
    }
  }

  void project_stretch() {
    for (std::size_t i = 0; i < m_topo.edge_count(); ++i) {
      project_distance(m_topo.edge_v0[i], m_topo.edge_v1[i], m_topo.edge_rest_length[i],
                       m_k_stretch);
    }
  }

  void project_shear() {
    for (std::size_t i = 0; i < m_topo.bend_count(); ++i) {
      project_distance(m_topo.bend_v3[i], m_topo.bend_v4[i], m_topo.shear_rest_length[i],
                       m_k_shear);
    }
  }

  void project_bend() {
    for (std::size_t i = 0; i < m_topo.bend_count(); ++i) {
      const std::uint32_t idx[4] = {m_topo.bend_v1[i], m_topo.bend_v2[i], m_topo.bend_v3[i],
                                    m_topo.bend_v4[i]};
      const glm::dvec3 p[4] = {m_p[idx[0]], m_p[idx[1]], m_p[idx[2]], m_p[idx[3]]};
      const double w[4] = {m_w[idx[0]], m_w[idx[1]], m_w[idx[2]], m_w[idx[3]]};
      glm::dvec3 dp[4];
      if (!reference::bend_correction(p, w, m_topo.bend_rest_angle[i], m_k_bend, dp)) continue;
      for (int j = 0; j < 4; ++j) m_p[idx[j]] += dp[j];
    }
  }

  Topology m_topo;
  std::vector<Collider> m_colliders;
  std::vector<kernels::ColliderView> m_views;
  long long m_substeps_done = 0;
  PhysicsParams m_params;
  std::vector<glm::dvec3> m_x, m_p, m_v;
  std::vector<double> m_w;
  double m_k_stretch, m_k_shear, m_k_bend;
  std::vector<glm::uvec3> m_triangles;
  double m_cell_size = 0.0;
  std::vector<double> m_stretch_compliance, m_shear_compliance, m_bend_compliance;  // / dt^2
  std::vector<double> m_stretch_lambda, m_shear_lambda, m_bend_lambda;
  std::vector<std::uint32_t> m_attach_pin;
  std::vector<double> m_attach_length;
  std::vector<std::uint32_t> m_vertex_triangle_offsets, m_vertex_triangles;
  std::vector<glm::dvec3> m_air;
  StitchSet m_stitches;
  SeamNeighbours m_seams;
  ClothModel::Attachments m_attachments;
  AttachmentTargets m_targets;
  std::vector<glm::dvec3> m_attach_target;
  std::vector<double> m_attach_lambda;
  double m_k_stitch, m_stitch_alpha, m_stitch_fraction = 0.0;
  std::vector<double> m_stitch_lambda;
};

}  // namespace

std::unique_ptr<Solver> make_reference_solver(const ClothModel& cloth, const PhysicsParams& params,
                                              const std::vector<Collider>& colliders) {
  if (params.self_collision.untangle) {
    throw InputError(
        "cloth.self_collision.untangle: the reference backend's self-collision (the spec's) keeps "
        "no contact sides to untangle; use the cpu or cuda backend");
  }
  if (params.self_collision.edge_pairs != EdgePairs::automatic) {
    throw InputError(
        "cloth.self_collision.edge_pairs: the reference backend's self-collision (the spec's) has "
        "point-triangle contacts only; use the cpu or cuda backend");
  }
  return std::make_unique<ReferenceSolver>(cloth, params, colliders);
}

}  // namespace drape
