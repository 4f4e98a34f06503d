#include "drape/simulation.h"

#include <chrono>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "collider_view.h"
#include "drape/cache.h"
#include "drape/error.h"
#include "drape/solver.h"

namespace drape {

namespace {

using Clock = std::chrono::steady_clock;

void write_frame(const Scene& scene, int frame, const std::vector<glm::dvec3>& positions,
                 const std::vector<glm::uvec3>& triangles) {
  for (const std::string& format : scene.output.formats) {
    const std::string path = frame_path(scene.output.dir, scene.output.name, frame, format);
    write_file_atomically(path, format == "ply" ? encode_ply(positions, triangles)
                                                : encode_obj(positions, triangles));
  }
}

// Numerical guard: a frame with a NaN or infinite position is never written.
void check_finite(const std::vector<glm::dvec3>& positions, int frame) {
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const glm::dvec3& p = positions[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
      throw RuntimeError("frame " + std::to_string(frame) + ": vertex " + std::to_string(i) +
                         " has a non-finite position; the solve diverged");
    }
  }
}

int worker_threads(const Scene& scene, const SolverOptions& options) {
  if (scene.solver.backend != "cpu") return 1;
  return options.threads > 0 ? options.threads : default_thread_count();
}

nlohmann::json settings_json(const Scene& scene, const ClothModel& cloth, int threads) {
  const auto vec = [](const glm::dvec3& v) { return nlohmann::json::array({v.x, v.y, v.z}); };
  return {{"scene", scene.path},
          {"backend", scene.solver.backend},
          {"threads", threads},
          {"fps", scene.fps},
          {"frames", scene.frames},
          {"substeps", scene.solver.substeps},
          {"iterations", scene.solver.iterations},
          {"gravity", vec(scene.gravity)},
          {"wind", vec(scene.wind)},
          {"stretch", scene.cloth.stretch},
          {"shear", scene.cloth.shear},
          {"bend", scene.cloth.bend},
          {"damping", scene.cloth.damping},
          {"vertices", cloth.mesh.positions.size()},
          {"triangles", cloth.mesh.triangles.size()},
          {"pinned", cloth.pinned},
          {"stretch_constraints", cloth.topology.edge_count()},
          {"bend_constraints", cloth.topology.bend_count()},
          {"shear_constraints", cloth.topology.bend_count()},
          {"colliders", scene.colliders.size()},
          {"formats", scene.output.formats}};
}

}  // namespace

RunSummary run_simulation(const Scene& scene, const ClothModel& cloth, const SolverOptions& options,
                          const std::string& stats_path, const FrameCallback& on_frame) {
  const std::vector<Collider> colliders = build_colliders(scene);
  std::unique_ptr<Solver> solver =
      make_solver(scene.solver.backend, cloth, physics_params(scene), options, colliders);

  RunSummary summary;
  summary.vertices = cloth.mesh.positions.size();
  summary.triangles = cloth.mesh.triangles.size();
  summary.output_dir = scene.output.dir;
  summary.stats_path = stats_path.empty()
                           ? (scene.output.dir.empty() ? "" : scene.output.dir + "/") + "stats.json"
                           : stats_path;
  std::error_code ec;
  if (!scene.output.dir.empty()) std::filesystem::create_directories(scene.output.dir, ec);
  if (ec)
    throw RuntimeError(scene.output.dir + ": cannot create the output folder: " + ec.message());

  nlohmann::json frames = nlohmann::json::array();
  std::vector<glm::dvec3> positions = cloth.mesh.positions;
  const auto record = [&](int frame, double ms) {
    const StrainStats strain = edge_strain(cloth.topology, positions);
    const std::size_t inside = count_penetrations(colliders, positions, frame / scene.fps);
    summary.max_strain = std::max(summary.max_strain, strain.max);
    summary.max_penetrations = std::max(summary.max_penetrations, inside);
    frames.push_back({{"frame", frame},
                      {"max_strain", strain.max},
                      {"mean_strain", strain.mean},
                      {"penetrations", inside},
                      {"ms", ms}});
  };

  write_frame(scene, 0, positions, cloth.mesh.triangles);
  record(0, 0.0);

  const Clock::time_point start = Clock::now();
  for (int frame = 1; frame <= scene.frames; ++frame) {
    const Clock::time_point t0 = Clock::now();
    solver->step_frame();
    solver->copy_positions(positions);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    check_finite(positions, frame);
    write_frame(scene, frame, positions, cloth.mesh.triangles);
    record(frame, ms);
    if (on_frame) on_frame(frame, scene.frames, ms);
  }
  summary.frames = scene.frames;
  summary.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  summary.ms_per_frame = scene.frames > 0 ? 1000.0 * summary.wall_seconds / scene.frames : 0.0;

  const nlohmann::json stats = {
      {"settings", settings_json(scene, cloth, worker_threads(scene, options))},
      {"summary",
       {{"frames", summary.frames},
        {"wall_seconds", summary.wall_seconds},
        {"ms_per_frame", summary.ms_per_frame},
        {"max_strain", summary.max_strain},
        {"max_penetrations", summary.max_penetrations}}},
      {"frames", frames}};
  write_file_atomically(summary.stats_path, stats.dump(2) + "\n");
  return summary;
}

}  // namespace drape
