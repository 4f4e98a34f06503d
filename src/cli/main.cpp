// The drape command: wires the stages together and turns errors into exit codes
// (0 success, 2 bad input, 1 runtime failure).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <glm/common.hpp>

#include "cli/progress.h"
#include "collision/collider.h"
#include "collision/self_intersection.h"
#include "drape/error.h"
#include "drape/run.h"
#include "drape/scene.h"
#include "drape/simulation.h"
#include "drape/version.h"
#include "io/render.h"
#include "io/text_scan.h"
#include "model/cloth.h"
#include "model/topology.h"
#include "solver/colouring.h"

namespace drape::cli {
namespace {

constexpr const char* kUsage = R"(drape — a Position Based Dynamics cloth solver

usage:
  drape simulate SCENE.json [-o DIR] [--backend reference|cpu|cuda] [--frames N]
                            [--threads N] [--format ply,obj,usd,usdc] [--stats FILE] [--resume]
                            [--keep-checkpoint] [--quiet]
  drape sdf MESH -o OUT.nvdb [--voxel-size H] [--band N]
                                 precompute a collider's signed distance field
  drape render SCENE.json|MESH -o OUT.png [--frames K[,K...]] [--columns N] [--size WxH]
                                 a shaded picture of cached frames (several: a contact sheet)
  drape info MESH|SCENE.json     mesh and constraint statistics
  drape --help | --version

simulate options (each overrides the scene file):
  -o, --output DIR   folder for the cache (scene: output.dir, default "out")
  --backend NAME     solver backend (scene: solver.backend, default cpu):
                       reference  serial, double precision: the spec's algorithm exactly
                       cpu        graph-coloured, float32, on host threads
                       cuda       graph-coloured, float32, on an NVIDIA GPU
  --threads N        worker threads of the cpu backend (default: as many as pay off now, up
                     to the usable CPUs; chosen while it runs)
  --frames N         frames to simulate after frame 0
  --format LIST      comma-separated cache formats: ply, obj, usd (one NAME.usda),
                     usdc (one binary NAME.usdc; needs Python with usd-core)
  --stats FILE       where to write stats.json (default DIR/stats.json)
  --resume           continue a killed run from DIR/NAME.checkpoint (written after every
                     frame); the frames are identical to an uninterrupted run's
  --keep-checkpoint  keep the checkpoint when the run finishes (removed by default), so that
                     a later --resume with more --frames extends the run
  --quiet            no progress bar, no summary

sdf options:
  --voxel-size H     voxel edge in metres (default 0.005)
  --band N           narrow band, voxels on each side of the surface (default 3)

Caches are NAME.%04d.EXT for frames 0..N; exit codes: 0 ok, 2 bad input, 1 runtime failure.
)";

struct SimulateArgs {
  std::string scene_path, output_dir, backend, formats, stats_path;
  long long frames = -1;
  int threads = 0;
  bool quiet = false;
  bool resume = false;
  bool keep_checkpoint = false;
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = s.find(',', start);
    parts.push_back(s.substr(start, comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

// The value after the option at args[i]; advances i past it.
const std::string& option_value(const std::vector<std::string>& args, std::size_t& i) {
  if (i + 1 >= args.size()) throw InputError(args[i] + ": needs a value");
  return args[++i];
}

SimulateArgs parse_simulate(const std::vector<std::string>& args) {
  SimulateArgs a;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto value = [&]() -> const std::string& { return option_value(args, i); };
    if (arg == "-o" || arg == "--output") {
      a.output_dir = value();
    } else if (arg == "--backend") {
      a.backend = value();
    } else if (arg == "--frames") {
      const std::string& v = value();
      std::int64_t n = 0;
      if (!parse_int(v, n) || n < 0 || n > 10'000'000) {
        throw InputError("--frames: expected a non-negative integer, got '" + v + "'");
      }
      a.frames = n;
    } else if (arg == "--threads") {
      const std::string& v = value();
      std::int64_t n = 0;
      if (!parse_int(v, n) || n < 1 || n > 4096) {
        throw InputError("--threads: expected a positive integer, got '" + v + "'");
      }
      a.threads = static_cast<int>(n);
    } else if (arg == "--format") {
      a.formats = value();
    } else if (arg == "--stats") {
      a.stats_path = value();
    } else if (arg == "--quiet" || arg == "-q") {
      a.quiet = true;
    } else if (arg == "--resume") {
      a.resume = true;
    } else if (arg == "--keep-checkpoint") {
      a.keep_checkpoint = true;
    } else if (!arg.empty() && arg[0] == '-') {
      throw InputError(arg + ": unknown option (see drape --help)");
    } else if (a.scene_path.empty()) {
      a.scene_path = arg;
    } else {
      throw InputError(arg + ": unexpected argument (one scene file per run)");
    }
  }
  if (a.scene_path.empty()) throw InputError("simulate: needs a scene file (see drape --help)");
  return a;
}

void apply_overrides(const SimulateArgs& a, Scene& scene) {
  if (!a.output_dir.empty()) scene.output.dir = a.output_dir;
  if (!a.backend.empty()) {
    const std::optional<Backend> backend = find_backend(a.backend);
    if (!backend) {
      throw InputError("--backend: unknown backend '" + a.backend + "' (known: " + backend_names() +
                       ")");
    }
    scene.solver.backend = *backend;
  }
  if (a.frames >= 0) scene.frames = static_cast<int>(a.frames);
  if (!a.formats.empty()) {
    scene.output.formats = split_commas(a.formats);
    for (const std::string& f : scene.output.formats) {
      const auto& known = known_formats();
      if (std::find(known.begin(), known.end(), f) == known.end()) {
        throw InputError("--format: unknown format '" + f + "' (known: " + format_names() + ")");
      }
    }
  }
}

// A cloth that is not a garment's size in metres was most likely modelled in other units.
void warn_about_units(const std::string& source, const TriMesh& mesh) {
  glm::dvec3 lo(1e300), hi(-1e300);
  for (const glm::dvec3& p : mesh.positions) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  const glm::dvec3 size = hi - lo;
  const double across = std::max({size.x, size.y, size.z});
  if (across > 10.0 || across < 0.01) {
    std::fprintf(stderr,
                 "drape: warning: %s: the cloth is %g m across; drape works in metres: if the mesh "
                 "is in other units, scale it with cloth.transform.scale (0.01 for centimetres)\n",
                 source.c_str(), across);
  }
}

// OBJ lines the mesh reader skipped, once per kind; `stitch` lines sew only through
// cloth.stitches, and `seam` lines (seam counts) are not needed for that.
void warn_about_skipped(const std::string& source, const TriMesh& mesh, bool sewn) {
  for (const auto& [kind, count] : mesh.skipped_statements) {
    if (sewn && (kind == "stitch" || kind == "seam")) continue;
    const char* why = kind == "stitch" ? "not sewn: set cloth.stitches to this file to sew them"
                      : kind == "seam" ? "seam counts, not needed for sewing"
                                       : "not an OBJ statement drape reads";
    std::fprintf(stderr, "drape: warning: %s: %zu '%s' line%s skipped (%s)\n", source.c_str(),
                 count, kind.c_str(), count == 1 ? "" : "s", why);
  }
}

void warn_about(const std::string& source, const ClothModel& cloth) {
  warn_about_skipped(source, cloth.mesh, cloth.stitches.size() > 0);
  warn_about_units(source, cloth.mesh);
  if (cloth.mesh.fan_triangulated_polygons > 0) {
    std::fprintf(
        stderr,
        "drape: warning: %s: %zu polygons with more than 3 vertices were fan-triangulated\n",
        source.c_str(), cloth.mesh.fan_triangulated_polygons);
  }
  if (cloth.mesh.uvs_dropped) {
    std::fprintf(stderr,
                 "drape: warning: %s: some faces have texture coordinates and others none; the "
                 "cache has no UVs\n",
                 source.c_str());
  }
  const Topology& t = cloth.topology;
  if (t.degenerate_triangles > 0 || t.nonmanifold_edges > 0) {
    std::fprintf(stderr,
                 "drape: warning: %s: %zu degenerate triangles and %zu non-manifold edges make no "
                 "constraint\n",
                 source.c_str(), t.degenerate_triangles, t.nonmanifold_edges);
  }
}

// Self-collision keeps pairs apart only if it sees them coming (see README, Self-collision).
void warn_about_self_intersections(const RunSummary& s, bool untangle) {
  if (s.initial_self_intersections > 0) {
    std::fprintf(
        stderr,
        "drape: warning: the cloth intersects itself in %zu triangle pairs at frame 0; %s\n",
        s.initial_self_intersections,
        untangle ? "untangling pushes them back through"
                 : "self-collision holds pairs that start crossed (cloth.self_collision."
                   "untangle pushes them back)");
  } else if (s.first_self_intersection_frame > 0) {
    std::fprintf(stderr,
                 "drape: warning: with self-collision on, triangle pairs intersected from frame %d "
                 "(at most %zu in a frame): some moved farther than 1.5 x thickness within one "
                 "substep; raise solver.substeps\n",
                 s.first_self_intersection_frame, s.max_self_intersections);
  }
}

int simulate(const std::vector<std::string>& args) {
  const SimulateArgs a = parse_simulate(args);
  Scene scene = load_scene(a.scene_path);
  apply_overrides(a, scene);
  validate_scene(scene);
  SimulationOptions sim_options;
  sim_options.threads = a.threads;
  Simulation simulation(scene, sim_options);
  warn_about(scene.cloth.grid ? scene.path : scene.cloth.mesh_path, cloth_model(simulation));

  Progress progress(!a.quiet && ::isatty(STDERR_FILENO));
  RunOptions options;
  options.stats_path = a.stats_path;
  options.resume = a.resume;
  options.keep_checkpoint = a.keep_checkpoint;
  const RunSummary s = run_simulation(
      simulation, options, [&](int frame, int frames, double) { progress.update(frame, frames); });
  progress.finish();
  if (!a.quiet && scene.cloth.self_collision) {
    warn_about_self_intersections(s, scene.cloth.self_collision_untangle);
  }
  if (!a.quiet && s.resumed_from >= 0) {
    std::printf("drape: resumed from frame %d of a checkpoint\n", s.resumed_from);
  }
  if (!a.quiet) {
    std::printf(
        "drape: simulated %d frames of %zu vertices / %zu triangles on the %s backend in %.2f s "
        "(%.2f ms/frame); max edge strain %.4f; at most %zu vertices inside a collider; at most "
        "%zu "
        "self-intersecting triangle pairs; cache in %s, stats in %s\n",
        s.frames, s.vertices, s.triangles, std::string(backend_name(scene.solver.backend)).c_str(),
        s.wall_seconds, s.ms_per_frame, s.max_strain, s.max_penetrations, s.max_self_intersections,
        s.output_dir.c_str(), s.stats_path.c_str());
    if (s.stitches > 0) {
      std::printf(
          "drape: %zu stitches; widest seam gap %.2f mm in the last frame, %.2f mm in any\n",
          s.stitches, 1000.0 * s.last_stitch_gap, 1000.0 * s.max_stitch_gap);
    }
  }
  return 0;
}

bool ends_with_json(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

std::vector<int> parse_frame_list(const std::string& text) {
  std::vector<int> frames;
  for (const std::string& item : split_commas(text)) {
    std::int64_t f = 0;
    if (!parse_int(item, f) || f < 0 || f > 10'000'000) {
      throw InputError("--frames: expected frame numbers, got '" + text + "'");
    }
    frames.push_back(static_cast<int>(f));
  }
  return frames;
}

int render(const std::vector<std::string>& args) {
  std::string input, out_path;
  std::vector<int> frames;
  std::int64_t columns = 4, width = 640, height = 480;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto value = [&]() -> const std::string& { return option_value(args, i); };
    if (arg == "-o" || arg == "--output") {
      out_path = value();
    } else if (arg == "--frame" || arg == "--frames") {
      frames = parse_frame_list(value());
    } else if (arg == "--columns") {
      const std::string& v = value();
      if (!parse_int(v, columns) || columns < 1 || columns > 64) {
        throw InputError("--columns: expected 1 to 64, got '" + v + "'");
      }
    } else if (arg == "--size") {
      const std::string v = value();
      const std::size_t x = v.find('x');
      if (x == std::string::npos || !parse_int(v.substr(0, x), width) ||
          !parse_int(v.substr(x + 1), height) || width < 16 || height < 16 || width > 8192 ||
          height > 8192) {
        throw InputError("--size: expected WIDTHxHEIGHT from 16 to 8192, got '" + v + "'");
      }
    } else if (!arg.empty() && arg[0] == '-') {
      throw InputError(arg + ": unknown option (see drape --help)");
    } else if (input.empty()) {
      input = arg;
    } else {
      throw InputError(arg + ": unexpected argument");
    }
  }
  if (input.empty()) throw InputError("render: needs a scene or a mesh file (see drape --help)");
  if (out_path.empty()) throw InputError("render: needs -o OUT.png");
  std::vector<Image> tiles;
  const int w = static_cast<int>(width), h = static_cast<int>(height);
  if (ends_with_json(input)) {
    const Scene scene = load_scene(input);
    if (frames.empty()) frames.push_back(scene.frames);
    for (int frame : frames) {
      int skipped = 0;
      tiles.push_back(render_meshes(scene_frame_meshes(scene, frame, skipped), w, h));
      if (skipped > 0 && frame == frames.front()) {
        std::fprintf(stderr, "drape: note: %d level-set collider(s) have no mesh to draw\n",
                     skipped);
      }
    }
  } else {
    if (!frames.empty()) throw InputError("--frames: applies to a scene, not to a mesh file");
    tiles.push_back(
        render_meshes({{load_mesh(input), glm::vec3(0.35f, 0.55f, 0.85f), true}}, w, h));
  }
  const Image image = tiles.size() == 1
                          ? tiles[0]
                          : contact_sheet(tiles, std::min<int>(static_cast<int>(columns),
                                                               static_cast<int>(tiles.size())));
  write_png(out_path, image);
  std::printf("drape: wrote %s (%dx%d, %zu frame%s)\n", out_path.c_str(), image.width, image.height,
              tiles.size(), tiles.size() == 1 ? "" : "s");
  return 0;
}

int sdf(const std::vector<std::string>& args) {
  std::string mesh_path, out_path;
  double voxel = 0.005;
  std::int64_t band = 3;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto value = [&]() -> const std::string& { return option_value(args, i); };
    if (arg == "-o" || arg == "--output") {
      out_path = value();
    } else if (arg == "--voxel-size") {
      const std::string& v = value();
      if (!parse_double(v, voxel) || !(voxel >= 1e-5 && voxel <= 10.0)) {
        throw InputError("--voxel-size: expected metres in [1e-5, 10], got '" + v + "'");
      }
    } else if (arg == "--band") {
      const std::string& v = value();
      if (!parse_int(v, band) || band < 1 || band > 100) {
        throw InputError("--band: expected voxels in [1, 100], got '" + v + "'");
      }
    } else if (!arg.empty() && arg[0] == '-') {
      throw InputError(arg + ": unknown option (see drape --help)");
    } else if (mesh_path.empty()) {
      mesh_path = arg;
    } else {
      throw InputError(arg + ": unexpected argument (one mesh per run)");
    }
  }
  if (mesh_path.empty()) throw InputError("sdf: needs a mesh file (see drape --help)");
  if (out_path.empty()) throw InputError("sdf: needs -o OUT.nvdb");
  const TriMesh mesh = load_mesh(mesh_path);
  const auto start = std::chrono::steady_clock::now();
  const SdfGrid grid = build_mesh_sdf(mesh, voxel, static_cast<int>(band));
  save_nvdb(grid, out_path);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("drape: wrote %s: level set of %s, voxel %g m, band %lld voxels, %.1f MB, %.2f s\n",
              out_path.c_str(), mesh_path.c_str(), voxel, static_cast<long long>(band),
              static_cast<double>(grid.size()) / 1e6, seconds);
  return 0;
}

void print_colours(const char* kind, const Colouring& c) {
  std::printf("%-7s colours     %zu:", kind, c.colour_count());
  for (std::size_t i = 0; i < c.colour_count(); ++i) std::printf(" %zu", c.colour_size(i));
  std::printf("\n");
}

void print_topology(const ClothModel& cloth) {
  const Topology& t = cloth.topology;
  std::printf("vertices            %zu\n", cloth.mesh.positions.size());
  std::printf("triangles           %zu\n", cloth.mesh.triangles.size());
  std::printf("fan-triangulated    %zu polygons\n", cloth.mesh.fan_triangulated_polygons);
  std::printf("stretch constraints %zu\n", t.edge_count());
  std::printf("bend constraints    %zu\n", t.bend_count());
  std::printf("shear constraints   %zu\n", t.bend_count());
  std::printf("boundary edges      %zu\n", t.boundary_edges);
  std::printf("degenerate tris     %zu\n", t.degenerate_triangles);
  std::printf("non-manifold edges  %zu\n", t.nonmanifold_edges);
  std::printf("self-intersections  %llu triangle pairs\n",
              static_cast<unsigned long long>(
                  count_self_intersections(cloth.mesh.positions, cloth.mesh.triangles)));
  const ClothColouring colouring = colour_cloth(t, cloth.mesh.positions.size());
  print_colours("stretch", colouring.stretch);
  print_colours("bend", colouring.bend);
  print_colours("shear", colouring.shear);
  for (const VertexGroup& g : cloth.mesh.groups) {
    std::printf("group %-13s %zu vertices\n", g.name.c_str(), g.vertices.size());
  }
  std::printf("texture coords      %s\n",
              cloth.mesh.uvs.empty() ? "none"
              : cloth.mesh.face_varying_uvs()
                  ? (std::to_string(cloth.mesh.uvs.size()) + " per face corner").c_str()
                  : "per vertex");
  for (const auto& [kind, count] : cloth.mesh.skipped_statements) {
    std::printf("%-19s %zu lines%s\n", kind.c_str(), count,
                kind == "stitch" ? " (sewing: cloth.stitches reads them)" : " (skipped)");
  }
  if (cloth.stitches.size() > 0) std::printf("stitches            %zu\n", cloth.stitches.size());
}

int info(const std::vector<std::string>& args) {
  if (args.size() != 1) throw InputError("info: needs exactly one mesh or scene file");
  const std::string& path = args[0];
  ClothModel cloth;
  if (ends_with_json(path)) {
    const Scene scene = load_scene(path);
    cloth = build_cloth(scene);
    std::printf("scene               %s\n", path.c_str());
    std::printf("pinned vertices     %zu\n", cloth.pinned);
    if (cloth.attachments.size() > 0) {
      std::printf("attached vertices   %zu (to colliders; the hard ones count as pinned)\n",
                  cloth.attachments.size());
    }
    std::printf("solver              %s, %d substeps, %d iterations, %g fps, %d frames\n",
                std::string(backend_name(scene.solver.backend)).c_str(), scene.solver.substeps,
                scene.solver.iterations, scene.fps, scene.frames);
    const ClothDesc& c = scene.cloth;
    if (c.self_collision) {
      char cell[32] = "mean edge";
      if (c.self_collision_cell > 0)
        std::snprintf(cell, sizeof cell, "%g m", c.self_collision_cell);
      std::printf("self-collision      on, thickness %g m, friction %g, cell %s, every %s%s\n",
                  c.thickness, c.friction, cell,
                  c.self_collision_every_iteration ? "iteration" : "substep",
                  c.self_collision_untangle ? ", untangling" : "");
    } else {
      std::printf("self-collision      off\n");
    }
  } else {
    cloth.mesh = load_mesh(path);
    cloth.topology = build_topology(cloth.mesh.positions, cloth.mesh.triangles);
    std::printf("mesh                %s\n", path.c_str());
  }
  print_topology(cloth);
  warn_about_units(path, cloth.mesh);
  return 0;
}

int run(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::printf("drape %s\n", kVersion);
    return 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "simulate") return simulate(rest);
  if (args[0] == "info") return info(rest);
  if (args[0] == "sdf") return sdf(rest);
  if (args[0] == "render") return render(rest);
  throw InputError(args[0] + ": unknown command (see drape --help)");
}

}  // namespace
}  // namespace drape::cli

int main(int argc, char** argv) {
  try {
    return drape::cli::run(argc, argv);
  } catch (const drape::InputError& e) {
    std::fprintf(stderr, "drape: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "drape: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "drape: error: %s\n", e.what());
    return 1;
  }
}
