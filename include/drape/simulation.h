// A simulation to embed: a scene (or a mesh given as arrays) in, frames stepped on demand,
// positions and per-frame stats out. Writes no file; drape/run.h writes caches on top of it.
//
//   drape::Simulation sim(drape::load_scene("scene.json"));
//   sim.step(24);                                   // one second at 24 fps
//   const std::vector<glm::dvec3>& x = sim.positions();
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <glm/vec3.hpp>

#include "drape/scene.h"
#include "drape/stats.h"

namespace drape {

struct ClothModel;

struct SimulationOptions {
  int threads = 0;    // worker threads of the cpu backend; 0 = chosen while it runs (up to the
                      // usable CPUs: solver/thread_governor.h)
  bool stats = true;  // strain, vertices inside colliders and self-intersections per frame
};

// Everything a later step depends on: restoring a state saved after frame k and stepping gives bit
// for bit what stepping on from frame k gives (on the same backend).
struct SimulationState {
  int frame = 0;
  std::vector<glm::dvec3> positions, velocities;  // input order
  long long substeps = 0;                         // substeps taken; places moving colliders
  std::vector<FrameStats> stats;                  // frames 0..frame
};

class Simulation {
 public:
  // Builds the cloth, its constraints and colliders and the scene's backend. InputError for bad
  // input (a missing mesh, pins out of range, ...), RuntimeError when the backend cannot run here.
  explicit Simulation(Scene scene, const SimulationOptions& options = {});
  // A cloth given as arrays: vertices in order, triangles as vertex indices. `settings` holds
  // every other setting (parse_settings reads them from JSON); its cloth mesh is not used.
  Simulation(std::vector<glm::dvec3> positions, std::vector<glm::uvec3> triangles, Scene settings,
             const SimulationOptions& options = {});
  ~Simulation();
  Simulation(Simulation&&) noexcept;
  Simulation& operator=(Simulation&&) noexcept;

  // Advances `frames` frames of 1/fps seconds. RuntimeError, naming the frame and the first bad
  // vertex, when the solve produces NaN or infinity; the frame is not counted and stepping on is
  // pointless.
  void step(int frames = 1);

  const std::vector<glm::dvec3>& positions() const;  // vertices in input order
  const std::vector<glm::uvec3>& triangles() const;  // input order, polygons fan-triangulated
  std::size_t vertex_count() const;
  int frame() const;    // frames stepped; frame 0 is the initial state
  double time() const;  // frame() / fps, seconds
  const Scene& scene() const;
  const SimulationOptions& options() const;
  // Stats of frames 0..frame() (with options.stats off: frame, ms and self_contacts only).
  const std::vector<FrameStats>& stats() const;

  SimulationState save_state() const;
  // InputError when the state does not fit this cloth (another vertex count).
  void restore_state(const SimulationState& state);

  // The cloth as built (mesh, masses, constraints), for drape's own tools.
  friend const ClothModel& cloth_model(const Simulation& simulation);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace drape
