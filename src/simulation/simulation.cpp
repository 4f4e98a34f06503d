#include "drape/simulation.h"

#include <chrono>
#include <cmath>
#include <string>

#include "collision/collider.h"
#include "collision/collider_view.h"
#include "collision/self_intersection.h"
#include "drape/error.h"
#include "model/cloth.h"
#include "model/strain.h"
#include "solver/solver.h"

namespace drape {

namespace {

// A cloth given as arrays becomes the scene's in-memory mesh; indices are checked here, since no
// file reader has seen them.
Scene with_mesh(std::vector<glm::dvec3> positions, std::vector<glm::uvec3> triangles,
                Scene settings) {
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const glm::dvec3& p = positions[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
      throw InputError("positions: row " + std::to_string(i) + " is not finite");
    }
  }
  for (std::size_t i = 0; i < triangles.size(); ++i) {
    for (int k = 0; k < 3; ++k) {
      if (triangles[i][k] >= positions.size()) {
        throw InputError("triangles: row " + std::to_string(i) + " has vertex index " +
                         std::to_string(triangles[i][k]) + " out of range (" +
                         std::to_string(positions.size()) + " vertices)");
      }
    }
  }
  if (triangles.empty()) throw InputError("triangles: no triangles");
  auto mesh = std::make_shared<TriMesh>();
  mesh->positions = std::move(positions);
  mesh->triangles = std::move(triangles);
  settings.cloth.mesh_path.clear();
  settings.cloth.grid.reset();
  settings.cloth.mesh_data = std::move(mesh);
  return settings;
}

// Numerical guard: a frame with a NaN or infinite position is never counted.
void check_finite(const std::vector<glm::dvec3>& positions, int frame) {
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const glm::dvec3& p = positions[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
      throw RuntimeError("frame " + std::to_string(frame) + ": vertex " + std::to_string(i) +
                         " has a non-finite position; the solve diverged");
    }
  }
}

}  // namespace

struct Simulation::Impl {
  Impl(Scene s, const SimulationOptions& o)
      : scene(std::move(s)),
        options(o),
        cloth(build_cloth(scene)),
        colliders(build_colliders(scene)),
        solver(make_solver(scene.solver.backend, cloth, physics_params(scene),
                           SolverOptions{options.threads}, colliders)),
        positions(cloth.mesh.positions),
        seams(seam_neighbours(cloth.stitches, cloth.mesh.triangles, cloth.mesh.positions.size())) {
    record(0.0);
  }

  void record(double ms) {
    FrameStats s;
    s.frame = frame;
    if (options.stats) {
      s.strain = edge_strain(cloth.topology, positions);
      s.penetrations = count_penetrations(colliders, positions, frame / scene.fps);
      s.self_intersections =
          count_self_intersections(positions, cloth.mesh.triangles, solver->host_threads(), &seams);
      s.stitch_gap = stitch_gap(cloth.stitches, positions);
    }
    s.self_contacts = frame > 0 ? solver->self_contacts() : 0;
    s.ms = ms;
    stats.push_back(s);
  }

  Scene scene;
  SimulationOptions options;
  ClothModel cloth;
  std::vector<Collider> colliders;
  std::unique_ptr<Solver> solver;
  std::vector<glm::dvec3> positions;
  SeamNeighbours seams;
  std::vector<FrameStats> stats;
  int frame = 0;
};

Simulation::Simulation(Scene scene, const SimulationOptions& options)
    : m_impl(std::make_unique<Impl>(std::move(scene), options)) {}

Simulation::Simulation(std::vector<glm::dvec3> positions, std::vector<glm::uvec3> triangles,
                       Scene settings, const SimulationOptions& options)
    : Simulation(with_mesh(std::move(positions), std::move(triangles), std::move(settings)),
                 options) {}

Simulation::~Simulation() = default;
Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;

void Simulation::step(int frames) {
  if (frames < 0)
    throw InputError("step: frames must not be negative, got " + std::to_string(frames));
  Impl& s = *m_impl;
  for (int f = 0; f < frames; ++f) {
    const auto t0 = std::chrono::steady_clock::now();
    s.solver->step_frame();
    s.solver->copy_positions(s.positions);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    check_finite(s.positions, s.frame + 1);
    ++s.frame;
    s.record(ms);
  }
}

const std::vector<glm::dvec3>& Simulation::positions() const {
  return m_impl->positions;
}

const std::vector<glm::uvec3>& Simulation::triangles() const {
  return m_impl->cloth.mesh.triangles;
}

std::size_t Simulation::vertex_count() const {
  return m_impl->positions.size();
}

int Simulation::frame() const {
  return m_impl->frame;
}

double Simulation::time() const {
  return m_impl->frame / m_impl->scene.fps;
}

const Scene& Simulation::scene() const {
  return m_impl->scene;
}

const SimulationOptions& Simulation::options() const {
  return m_impl->options;
}

const std::vector<FrameStats>& Simulation::stats() const {
  return m_impl->stats;
}

SimulationState Simulation::save_state() const {
  const SolverState solver = m_impl->solver->state();
  return {m_impl->frame, solver.positions, solver.velocities, solver.substeps_done, m_impl->stats};
}

void Simulation::restore_state(const SimulationState& state) {
  Impl& s = *m_impl;
  if (state.positions.size() != s.positions.size() ||
      state.velocities.size() != s.positions.size()) {
    throw InputError("restore_state: the state has " + std::to_string(state.positions.size()) +
                     " vertices, this cloth " + std::to_string(s.positions.size()));
  }
  s.solver->restore({state.positions, state.velocities, state.substeps});
  s.solver->copy_positions(s.positions);
  s.frame = state.frame;
  s.stats = state.stats;
}

const ClothModel& cloth_model(const Simulation& simulation) {
  return simulation.m_impl->cloth;
}

}  // namespace drape
