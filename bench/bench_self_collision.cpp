// Self-collision cost: the folding scene of data/folding_cloth.json at 128² and 256² (thickness
// 3 mm, 32 substeps: enough that no pair moves farther than the contact search radius in one
// substep), simulated with self-collision off and on, on `cpu` (and `cuda` when a device exists).
// Per run: median ms/frame over the frames of the fold, the on/off ratio measured in the same
// process, contacts per frame and the most intersecting triangle pairs in any frame. Results go to
// JSON.
//
//   bench_self_collision [--sizes 128,256] [--frames 16] [--threads 0] [--thickness 0.003]
//                        [--substeps 32] [--scene data/folding_cloth.json]
//                        [--out bench/results/self_collision.json]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_util.h"
#include "collision/collider.h"
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
  int frames = 16, threads = 0, substeps = 32;
  double thickness = 0.003;
  std::string scene = "data/folding_cloth.json";
  std::string out = "bench/results/self_collision.json";
};

struct Result {
  double median_ms = 0.0, contacts_per_frame = 0.0;
  std::uint64_t worst_intersections = 0;
};

Result run(const drape::Scene& scene, drape::Backend backend, int threads, int frames) {
  const drape::ClothModel cloth = drape::build_cloth(scene);
  drape::SolverOptions options;
  options.threads = threads;
  auto solver = drape::make_solver(backend, cloth, drape::physics_params(scene), options,
                                   drape::build_colliders(scene));
  std::vector<double> ms;
  std::vector<glm::dvec3> x;
  Result r;
  double contacts = 0.0;
  for (int f = 0; f < frames; ++f) {
    const Clock::time_point t0 = Clock::now();
    solver->step_frame();
    solver->copy_positions(x);
    ms.push_back(1000.0 * seconds_since(t0));
    contacts += static_cast<double>(solver->self_contacts());
    r.worst_intersections =
        std::max(r.worst_intersections, drape::count_self_intersections(x, cloth.mesh.triangles));
  }
  r.median_ms = median(ms);
  r.contacts_per_frame = contacts / frames;
  return r;
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
  if (!base.cloth.grid) throw drape::InputError(o.scene + ": needs a grid cloth");
  std::vector<drape::Backend> backends{drape::Backend::cpu};
  if (drape::cuda_device_count() > 0) backends.push_back(drape::Backend::cuda);
  const int threads = o.threads > 0 ? o.threads : drape::default_thread_count();

  nlohmann::json rows = nlohmann::json::array();
  std::printf("%-6s %-5s %9s %10s %10s %7s %12s %14s\n", "grid", "backend", "thickness",
              "off ms/fr", "on ms/fr", "on/off", "contacts/fr", "intersections");
  for (int n : o.sizes) {
    drape::Scene scene = base;
    scene.cloth.grid->nx = scene.cloth.grid->nz = n;
    scene.cloth.thickness = o.thickness;
    scene.solver.substeps = o.substeps;
    for (drape::Backend backend : backends) {
      scene.cloth.self_collision = false;
      const Result off = run(scene, backend, threads, o.frames);
      scene.cloth.self_collision = true;
      const Result on = run(scene, backend, threads, o.frames);
      const double ratio = on.median_ms / off.median_ms;
      std::printf("%4d²  %-7s %7.2f mm %10.1f %10.1f %6.2fx %12.0f %6llu / %-6llu\n", n,
                  std::string(drape::backend_name(backend)).c_str(), 1000.0 * scene.cloth.thickness,
                  off.median_ms, on.median_ms, ratio, on.contacts_per_frame,
                  static_cast<unsigned long long>(on.worst_intersections),
                  static_cast<unsigned long long>(off.worst_intersections));
      rows.push_back({{"grid", n},
                      {"vertices", n * n},
                      {"backend", drape::backend_name(backend)},
                      {"threads", backend == drape::Backend::cpu ? threads : 0},
                      {"thickness_m", scene.cloth.thickness},
                      {"substeps", scene.solver.substeps},
                      {"iterations", scene.solver.iterations},
                      {"frames", o.frames},
                      {"off_median_ms_per_frame", off.median_ms},
                      {"on_median_ms_per_frame", on.median_ms},
                      {"on_off_ratio", ratio},
                      {"contacts_per_frame", on.contacts_per_frame},
                      {"max_intersecting_pairs_on", on.worst_intersections},
                      {"max_intersecting_pairs_off", off.worst_intersections}});
    }
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
