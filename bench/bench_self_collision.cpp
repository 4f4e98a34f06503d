// Self-collision cost: the folding scene of data/folding_cloth.json at 128² and 256² (thickness
// 3 mm, 32 substeps: enough that no pair moves farther than the contact search radius in one
// substep), simulated with self-collision off and on, on `cpu` (and `cuda` when a device exists).
// The two simulations' frames alternate, so that a shared machine's load falls on both alike.
// Per run: median ms/frame over the frames of the fold, the on/off ratio measured in the same
// process, each frame's time, contacts per frame and the most intersecting triangle pairs in any
// frame, and where edge-edge contacts were gathered (collision/edge_pairs.h; `--edge-pairs` sets
// the scene's choice). Results go to JSON. A scene whose cloth is a mesh (data/table_cloth.json,
// which reads the table cloth of ../shared/data) runs once, at its own substeps unless
// `--substeps` is given; `--sizes` applies to grids only.
//
//   bench_self_collision [--sizes 128,256] [--frames 16] [--threads 0] [--thickness 0.003]
//                        [--substeps 32 (grid), the scene's (mesh)] [--edge-pairs auto|all|near]
//                        [--scene data/folding_cloth.json] [--out
//                        bench/results/self_collision.json]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_util.h"
#include "collision/collider.h"
#include "collision/edge_pairs.h"
#include "collision/self_intersection.h"
#include "drape/error.h"
#include "drape/scene.h"
#include "model/cloth.h"
#include "solver/solver.h"

namespace {

using drape::bench::Clock;
using drape::bench::median;
using drape::bench::seconds_since;

struct Options {
  std::vector<int> sizes{128, 256};
  int frames = 16, threads = 0;
  int substeps = 0;  // 0: 32 for a grid, the scene's own for a mesh
  double thickness = 0.003;
  drape::EdgePairs edge_pairs = drape::EdgePairs::automatic;
  std::string scene = "data/folding_cloth.json";
  std::string out = "bench/results/self_collision.json";
};

struct Result {
  std::vector<double> ms;
  double median_ms = 0.0, contacts_per_frame = 0.0;
  std::uint64_t worst_intersections = 0;
};

// One simulation of the scene, stepped a frame at a time.
class Run {
 public:
  Run(const drape::Scene& scene, drape::Backend backend, int threads)
      : m_cloth(drape::build_cloth(scene)) {
    drape::SolverOptions options;
    options.threads = threads;
    m_solver = drape::make_solver(backend, m_cloth, drape::physics_params(scene), options,
                                  drape::build_colliders(scene));
  }

  void step() {
    const Clock::time_point t0 = Clock::now();
    m_solver->step_frame();
    m_solver->copy_positions(m_x);
    m_result.ms.push_back(1000.0 * seconds_since(t0));
    m_contacts += static_cast<double>(m_solver->self_contacts());
    m_result.worst_intersections = std::max(
        m_result.worst_intersections, drape::count_self_intersections(m_x, m_cloth.mesh.triangles));
  }

  Result result() const {
    Result r = m_result;
    r.median_ms = median(r.ms);
    r.contacts_per_frame = m_contacts / static_cast<double>(r.ms.size());
    return r;
  }

 private:
  drape::ClothModel m_cloth;
  std::unique_ptr<drape::Solver> m_solver;
  std::vector<glm::dvec3> m_x;
  Result m_result;
  double m_contacts = 0.0;
};

// The scene with self-collision off and on, their frames alternated so that both see the same
// load on a shared machine: {off, on}.
std::pair<Result, Result> run(drape::Scene scene, drape::Backend backend, int threads, int frames) {
  scene.cloth.self_collision = false;
  Run off(scene, backend, threads);
  scene.cloth.self_collision = true;
  Run on(scene, backend, threads);
  for (int f = 0; f < frames; ++f) {
    off.step();
    on.step();
  }
  return {off.result(), on.result()};
}

std::vector<int> parse_sizes(const std::string& text) {
  std::vector<int> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) sizes.push_back(std::stoi(item));
  return sizes;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) throw drape::InputError(a + ": needs a value");
    const std::string v = argv[++i];
    if (a == "--sizes") {
      o.sizes = parse_sizes(v);
    } else if (a == "--frames") {
      o.frames = std::stoi(v);
    } else if (a == "--threads") {
      o.threads = std::stoi(v);
    } else if (a == "--thickness") {
      o.thickness = std::stod(v);
    } else if (a == "--substeps") {
      o.substeps = std::stoi(v);
    } else if (a == "--edge-pairs") {
      if (v != "auto" && v != "all" && v != "near") {
        throw drape::InputError("--edge-pairs: expected auto, all or near, got '" + v + "'");
      }
      o.edge_pairs = v == "all"    ? drape::EdgePairs::all
                     : v == "near" ? drape::EdgePairs::near
                                   : drape::EdgePairs::automatic;
    } else if (a == "--scene") {
      o.scene = v;
    } else if (a == "--out") {
      o.out = v;
    } else {
      throw drape::InputError(a + ": unknown option");
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  const drape::Scene base = drape::load_scene(o.scene);
  std::vector<drape::Backend> backends{drape::Backend::cpu};
  if (drape::cuda_device_count() > 0) backends.push_back(drape::Backend::cuda);
  const int threads = o.threads > 0 ? o.threads : drape::default_thread_count();

  nlohmann::json rows = nlohmann::json::array();
  std::printf("%-6s %-7s %9s %5s %10s %10s %7s %12s %14s\n", "cloth", "backend", "thickness",
              "edges", "off ms/fr", "on ms/fr", "on/off", "contacts/fr", "intersections");
  // The scene as set up (a grid of n² vertices, or the scene's mesh for n = 0) on every backend.
  const auto measure = [&](drape::Scene scene, int n) {
    scene.cloth.thickness = o.thickness;
    if (o.substeps > 0 || n > 0) scene.solver.substeps = o.substeps > 0 ? o.substeps : 32;
    scene.cloth.self_collision_edge_pairs = o.edge_pairs;
    const drape::ClothModel cloth = drape::build_cloth(scene);
    const char* edges = drape::edge_pairs_name(
        drape::edge_pairs_near(o.edge_pairs, o.thickness, cloth.topology) ? drape::EdgePairs::near
                                                                          : drape::EdgePairs::all);
    const std::string label = n > 0 ? std::to_string(n) + "²" : "mesh";
    for (drape::Backend backend : backends) {
      const auto [off, on] = run(scene, backend, threads, o.frames);
      const double ratio = on.median_ms / off.median_ms;
      std::printf("%-6s %-7s %7.2f mm %5s %10.1f %10.1f %6.2fx %12.0f %6llu / %-6llu\n",
                  label.c_str(), std::string(drape::backend_name(backend)).c_str(),
                  1000.0 * scene.cloth.thickness, edges, off.median_ms, on.median_ms, ratio,
                  on.contacts_per_frame, static_cast<unsigned long long>(on.worst_intersections),
                  static_cast<unsigned long long>(off.worst_intersections));
      rows.push_back({{"grid", n > 0 ? nlohmann::json(n) : nlohmann::json(nullptr)},
                      {"vertices", cloth.mesh.positions.size()},
                      {"backend", drape::backend_name(backend)},
                      {"threads", backend == drape::Backend::cpu ? threads : 0},
                      {"thickness_m", scene.cloth.thickness},
                      {"edge_pairs", edges},
                      {"substeps", scene.solver.substeps},
                      {"iterations", scene.solver.iterations},
                      {"frames", o.frames},
                      {"off_median_ms_per_frame", off.median_ms},
                      {"on_median_ms_per_frame", on.median_ms},
                      {"on_off_ratio", ratio},
                      {"contacts_per_frame", on.contacts_per_frame},
                      {"max_intersecting_pairs_on", on.worst_intersections},
                      {"max_intersecting_pairs_off", off.worst_intersections},
                      {"off_ms_per_frame", off.ms},
                      {"on_ms_per_frame", on.ms}});
    }
  };
  if (base.cloth.grid) {
    for (int n : o.sizes) {
      drape::Scene scene = base;
      scene.cloth.grid->nx = scene.cloth.grid->nz = n;
      measure(scene, n);
    }
  } else {
    measure(base, 0);
  }
  const nlohmann::json doc = {{"benchmark", "self_collision"},
                              {"scene", o.scene},
                              {"device", drape::cuda_device_description()},
                              {"results", rows}};
  const std::filesystem::path out(o.out);
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
  std::ofstream(o.out) << doc.dump(2) << "\n";
  std::printf("results in %s\n", o.out.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_self_collision: %s\n", e.what());
  return 2;
}
