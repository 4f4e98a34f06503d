#include "drape/run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "collision/edge_pairs.h"
#include "drape/error.h"
#include "io/atomic_file.h"
#include "io/cache.h"
#include "io/checkpoint.h"
#include "io/usd_cache.h"
#include "io/usdc.h"
#include "model/cloth.h"
#include "model/scene_json.h"
#include "solver/solver.h"

namespace drape {

namespace {

using Clock = std::chrono::steady_clock;

void write_frame(const Scene& scene, int frame, const std::vector<glm::dvec3>& positions,
                 const TriMesh& mesh) {
  for (const std::string& format : scene.output.formats) {
    if (format == "usd" || format == "usdc") continue;  // one file for the run: UsdCacheWriter
    const std::string path = frame_path(scene.output.dir, scene.output.name, frame, format);
    const bool normals = scene.output.normals;
    write_file_atomically(path, format == "ply" ? encode_ply(positions, mesh, normals)
                                                : encode_obj(positions, mesh, normals));
  }
}

int worker_threads(const Simulation& simulation) {
  if (simulation.scene().solver.backend != Backend::cpu) return 1;
  const int threads = simulation.options().threads;
  return threads > 0 ? threads : default_thread_count();
}

nlohmann::json vec(const glm::dvec3& v) {
  return nlohmann::json::array({v.x, v.y, v.z});
}

// The fabric and air settings (issue 16's keys), in stats.json and in a resumed run's fingerprint.
nlohmann::json fabric_json(const Scene& scene) {
  const ClothDesc& c = scene.cloth;
  const Material& m = c.material;
  return {{"model", c.model == ClothModelKind::xpbd ? "xpbd" : "pbd"},
          {"material",
           {{"name", m.name},
            {"density", m.density},
            {"stretch", m.stretch},
            {"shear", m.shear},
            {"bend", m.bend},
            {"damping", m.damping}}},
          {"mass", c.mass == MassModel::area ? "area" : "unit"},
          {"max_strain", c.max_strain},
          {"rest_mesh", c.rest_mesh_path},
          {"bend_rest", c.bend_rest_flat ? "flat" : "mesh"},
          {"air",
           {{"enabled", scene.air.enabled},
            {"wind", vec(scene.air.wind)},
            {"density", scene.air.density},
            {"drag", scene.air.drag},
            {"lift", scene.air.lift}}}};
}

// Where edge-edge contacts are gathered, as the solver decides it: "all" or "near"; "none" for
// the reference backend (point-triangle only) or without self-collision.
const char* self_collision_edge_pairs(const Scene& scene, const ClothModel& cloth) {
  if (!scene.cloth.self_collision || scene.solver.backend == Backend::reference) return "none";
  return edge_pairs_name(
      edge_pairs_near(scene.cloth.self_collision_edge_pairs, scene.cloth.thickness, cloth.topology)
          ? EdgePairs::near
          : EdgePairs::all);
}

nlohmann::json settings_json(const Scene& scene, const ClothModel& cloth, int threads) {
  return {{"scene", scene.path},
          {"backend", backend_name(scene.solver.backend)},
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
          {"self_collision", scene.cloth.self_collision},
          {"thickness", scene.cloth.thickness},
          {"friction", scene.cloth.friction},
          {"self_collision_cell", scene.cloth.self_collision_cell},
          {"self_collision_rebuild",
           scene.cloth.self_collision_every_iteration ? "iteration" : "substep"},
          {"self_collision_untangle", scene.cloth.self_collision_untangle},
          {"self_collision_edge_pairs", self_collision_edge_pairs(scene, cloth)},
          {"vertices", cloth.mesh.positions.size()},
          {"triangles", cloth.mesh.triangles.size()},
          {"pinned", cloth.pinned},
          {"stretch_constraints", cloth.topology.edge_count()},
          {"bend_constraints", cloth.topology.bend_count()},
          {"shear_constraints", cloth.topology.bend_count()},
          {"colliders", scene.colliders.size()},
          {"formats", scene.output.formats},
          {"normals", scene.output.normals},
          {"fabric", fabric_json(scene)},
          {"stitches", cloth.stitches.size()},
          {"sew_time", scene.cloth.sew_time},
          {"stitch_stiffness", scene.cloth.stitch_stiffness},
          {"stitch_compliance", scene.cloth.stitch_compliance},
          {"stitch_passes", scene.cloth.stitch_passes},
          {"attached", cloth.attachments.size()}};
}

}  // namespace

std::string checkpoint_path(const Scene& scene) {
  return (scene.output.dir.empty() ? "" : scene.output.dir + "/") + scene.output.name +
         ".checkpoint";
}

namespace {

// What a checkpoint must match to be resumed: the cloth as built and every setting that changes
// its motion or the cache (not the frame count, which a resume may raise, or the thread count).
std::uint64_t run_fingerprint(const Scene& scene, const ClothModel& cloth) {
  nlohmann::json settings = settings_json(scene, cloth, 0);
  settings.erase("frames");
  settings.erase("threads");
  settings.erase("scene");
  nlohmann::json colliders = nlohmann::json::array();
  for (const ColliderDesc& c : scene.colliders) colliders.push_back(collider_json(c));
  settings["colliders"] = colliders;
  const std::string text = settings.dump();
  std::uint64_t h = fingerprint_bytes(text.data(), text.size(), 0);
  h = fingerprint_bytes(cloth.mesh.positions.data(),
                        cloth.mesh.positions.size() * sizeof(glm::dvec3), h);
  h = fingerprint_bytes(cloth.inv_mass.data(), cloth.inv_mass.size() * sizeof(double), h);
  const StitchSet& st = cloth.stitches;
  for (const auto* ids : {&st.v, &st.a, &st.b}) {
    h = fingerprint_bytes(ids->data(), ids->size() * sizeof(std::uint32_t), h);
  }
  h = fingerprint_bytes(st.t.data(), st.t.size() * sizeof(double), h);
  const ClothModel::Attachments& a = cloth.attachments;
  for (const auto* ids : {&a.vertex, &a.collider}) {
    h = fingerprint_bytes(ids->data(), ids->size() * sizeof(std::uint32_t), h);
  }
  for (const auto* values : {&a.stiffness, &a.compliance}) {
    h = fingerprint_bytes(values->data(), values->size() * sizeof(double), h);
  }
  return h;
}

// Temporaries of an interrupted write of this cache (NAME.*.tmpPID), never complete files.
void remove_stale_temporaries(const Scene& scene) {
  if (!std::filesystem::is_directory(scene.output.dir.empty() ? "." : scene.output.dir)) return;
  const std::string prefix = scene.output.name + ".";
  for (const auto& entry :
       std::filesystem::directory_iterator(scene.output.dir.empty() ? "." : scene.output.dir)) {
    std::string name = entry.path().filename().string();
    // NAME.*.tmpPID, and NAME.tmpPID.usdc of a binary USD conversion.
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".usdc") == 0)
      name.resize(name.size() - 5);
    const std::size_t tmp = name.rfind(".tmp");
    if (name.rfind(prefix, 0) == 0 && tmp != std::string::npos &&
        name.find_first_not_of("0123456789", tmp + 4) == std::string::npos) {
      std::error_code ec;
      std::filesystem::remove(entry.path(), ec);
    }
  }
}

nlohmann::json frame_json(const FrameStats& s, bool sewn) {
  nlohmann::json f = {{"frame", s.frame},
                      {"max_strain", s.strain.max},
                      {"mean_strain", s.strain.mean},
                      {"penetrations", s.penetrations},
                      {"self_intersections", s.self_intersections},
                      {"self_contacts", s.self_contacts},
                      {"ms", s.ms}};
  if (sewn) f["stitch_gap"] = {{"max", s.stitch_gap.max}, {"mean", s.stitch_gap.mean}};
  return f;
}

}  // namespace

RunSummary run_simulation(Simulation& simulation, const RunOptions& options,
                          const FrameCallback& on_frame) {
  const Scene& scene = simulation.scene();
  const ClothModel& cloth = cloth_model(simulation);
  const std::uint64_t fingerprint = run_fingerprint(scene, cloth);
  const std::string checkpoint_file = checkpoint_path(scene);
  std::optional<Checkpoint> checkpoint;
  if (options.resume) {
    checkpoint = read_checkpoint(checkpoint_file);
    if (checkpoint && (checkpoint->fingerprint != fingerprint ||
                       checkpoint->state.positions.size() != simulation.vertex_count())) {
      throw InputError(checkpoint_file +
                       ": written by a different scene or settings; run without --resume to "
                       "start over");
    }
  }

  const auto& formats = scene.output.formats;
  const auto wants = [&](const char* format) {
    return std::find(formats.begin(), formats.end(), format) != formats.end();
  };
  // Binary USD is converted from the text cache at the end: make sure that can happen first.
  if (wants("usdc")) require_usd_python();

  RunSummary summary;
  summary.vertices = simulation.vertex_count();
  summary.triangles = simulation.triangles().size();
  summary.output_dir = scene.output.dir;
  summary.stats_path = options.stats_path.empty()
                           ? (scene.output.dir.empty() ? "" : scene.output.dir + "/") + "stats.json"
                           : options.stats_path;
  std::error_code ec;
  if (!scene.output.dir.empty()) std::filesystem::create_directories(scene.output.dir, ec);
  if (ec) {
    throw RuntimeError(scene.output.dir + ": cannot create the output folder: " + ec.message());
  }
  remove_stale_temporaries(scene);

  std::optional<UsdCacheWriter> usd;
  const bool want_usd = wants("usd") || wants("usdc");
  if (checkpoint) {
    SimulationState& state = checkpoint->state;
    state.stats.resize(
        std::min<std::size_t>(state.stats.size(), static_cast<std::size_t>(scene.frames) + 1));
    simulation.restore_state(state);
    summary.resumed_from = state.frame;
    if (want_usd) {
      usd.emplace(scene.output.dir, scene.output.name, scene.fps, cloth.mesh, state.frame,
                  state.positions);
    }
  } else {
    write_frame(scene, 0, simulation.positions(), cloth.mesh);
    if (want_usd) {
      usd.emplace(scene.output.dir, scene.output.name, scene.fps, cloth.mesh, -1,
                  std::vector<glm::dvec3>());
      usd->add_frame(0, simulation.positions());
    }
  }

  const int first = simulation.frame() + 1;
  const Clock::time_point start = Clock::now();
  for (int frame = first; frame <= scene.frames; ++frame) {
    simulation.step(1);
    write_frame(scene, frame, simulation.positions(), cloth.mesh);
    if (usd) usd->add_frame(frame, simulation.positions());
    write_checkpoint(checkpoint_file, {fingerprint, simulation.save_state()});
    if (on_frame) on_frame(frame, scene.frames, simulation.stats().back().ms);
  }
  if (usd) {
    usd->finish(scene.frames);
    if (wants("usdc")) {
      const std::string usda = usd->path();
      convert_to_usdc(usda, usda.substr(0, usda.size() - 1) + "c");
      if (!wants("usd")) std::filesystem::remove(usda, ec);
    }
  }
  const int simulated = std::max(0, scene.frames - first + 1);
  summary.frames = scene.frames;
  summary.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  summary.ms_per_frame = simulated > 0 ? 1000.0 * summary.wall_seconds / simulated : 0.0;

  nlohmann::json frames = nlohmann::json::array();
  for (const FrameStats& s : simulation.stats()) {
    summary.max_strain = std::max(summary.max_strain, s.strain.max);
    summary.max_penetrations = std::max<std::size_t>(summary.max_penetrations, s.penetrations);
    summary.max_self_intersections =
        std::max<std::size_t>(summary.max_self_intersections, s.self_intersections);
    if (s.frame == 0) summary.initial_self_intersections = s.self_intersections;
    if (s.self_intersections > 0 && summary.first_self_intersection_frame < 0) {
      summary.first_self_intersection_frame = s.frame;
    }
    summary.max_stitch_gap = std::max(summary.max_stitch_gap, s.stitch_gap.max);
    frames.push_back(frame_json(s, cloth.stitches.size() > 0));
  }
  nlohmann::json settings = settings_json(scene, cloth, worker_threads(simulation));
  // threads is the most the cpu backend may use; when chosen while it runs, it may use fewer.
  settings["threads_chosen_while_running"] =
      scene.solver.backend == Backend::cpu && simulation.options().threads <= 0;
  nlohmann::json stats_json = {{"settings", settings},
                               {"summary",
                                {{"frames", summary.frames},
                                 {"wall_seconds", summary.wall_seconds},
                                 {"ms_per_frame", summary.ms_per_frame},
                                 {"max_strain", summary.max_strain},
                                 {"max_penetrations", summary.max_penetrations},
                                 {"max_self_intersections", summary.max_self_intersections}}},
                               {"frames", frames}};
  if (summary.resumed_from >= 0) stats_json["summary"]["resumed_from_frame"] = summary.resumed_from;
  if (cloth.stitches.size() > 0) {
    summary.stitches = cloth.stitches.size();
    summary.last_stitch_gap = simulation.stats().back().stitch_gap.max;
    stats_json["summary"]["stitches"] = summary.stitches;
    stats_json["summary"]["max_stitch_gap"] = summary.max_stitch_gap;
    stats_json["summary"]["last_frame_max_stitch_gap"] = summary.last_stitch_gap;
  }
  write_file_atomically(summary.stats_path, stats_json.dump(2) + "\n");
  if (!options.keep_checkpoint) std::filesystem::remove(checkpoint_file, ec);
  return summary;
}

}  // namespace drape
