// Solver throughput on square grids: ms/frame (median of timed frames after a warm-up of at
// least a frame and 0.3 s),
// constraint projections per second and bytes of solver memory per vertex, for `reference`,
// `cpu` on one thread and with its default thread count (chosen while it runs, up to all usable
// CPUs), and `cuda` when a device is present (replaying iteration graphs, and launching one by
// one), each with its ratio
// to `reference` measured in the same run; plus the time to load a 1M-triangle mesh. Results go
// to JSON and a Markdown table on stdout.
//
//   bench_solvers [--sizes 64,128,256,512] [--frames 5] [--reference-max 512]
//                 [--out bench/results/solvers.json]
//   bench_solvers --contended [--repeats 3] [--out bench/results/contended.json]
// (contended.h: 1 thread against the default thread count next to a busy process and next to a
// second simulation).
// Then, per grid size, the cuda backend on paper (gpu_paper.h): launches and bytes per frame and
// the lower bound they put on an H200.
// Grids above --reference-max skip `reference` and single-threaded `cpu` (too slow) and report
// ratios to `cpu` on all cores instead.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "bench_util.h"
#include "contended.h"
#include "drape/error.h"
#include "gpu_paper.h"
#include "io/atomic_file.h"
#include "io/cache.h"
#include "model/cloth.h"
#include "solver/solver.h"

namespace {

using drape::bench::Clock;
using drape::bench::median;
using drape::bench::seconds_since;

drape::Scene grid_scene(int n) {
  drape::Scene s = drape::make_grid_scene(n, 1.0, {0, 1, 0});
  s.cloth.pins.kind = drape::PinDesc::Kind::indices;
  s.cloth.pins.indices = {0, n - 1};
  s.cloth.bend = 0.1;
  s.wind = {0, 0, 2};
  return s;
}

struct Measurement {
  double ms_per_frame = 0.0;
  double projections_per_second = 0.0;
  double bytes_per_vertex = 0.0;
};

struct Config {
  std::string label;
  drape::Backend backend;
  int threads = 1;  // 0: the default, chosen while it runs
  bool cuda_graphs = true;
};

Measurement measure(const Config& config, const drape::ClothModel& cloth,
                    const drape::PhysicsParams& params, int frames) {
  drape::SolverOptions options;
  options.threads = config.threads;
  options.cuda_graphs = config.cuda_graphs;
  auto solver = drape::make_solver(config.backend, cloth, params, options);
  // Warm-up: at least a frame and 0.3 s, which lets the default thread count settle.
  const Clock::time_point warm = Clock::now();
  do {
    solver->step_frame();
  } while (seconds_since(warm) < 0.3);
  std::vector<double> ms;
  for (int f = 0; f < frames; ++f) {
    const Clock::time_point t0 = Clock::now();
    solver->step_frame();
    ms.push_back(1000.0 * seconds_since(t0));
  }
  Measurement m;
  m.ms_per_frame = median(ms);
  m.projections_per_second = solver->projections_per_frame() / (m.ms_per_frame / 1000.0);
  m.bytes_per_vertex = static_cast<double>(solver->memory_bytes()) /
                       static_cast<double>(cloth.mesh.positions.size());
  return m;
}

// Runs f in a child process; returns its peak resident memory in MB. The parent stays small, so
// the child's peak is what f itself needed.
template <class F>
double child_peak_mb(F f) {
  const pid_t pid = fork();
  if (pid == 0) {
    f();
    std::_Exit(0);
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Load time and peak memory of OBJ and binary PLY grids of about 1M and 5M triangles: both should
// grow linearly with the size.
nlohmann::json mesh_load_benchmark() {
  const std::string dir = std::filesystem::temp_directory_path().string();
  nlohmann::json out = nlohmann::json::array();
  std::printf("| mesh | triangles | load s | peak MB |\n|---|---|---|---|\n");
  for (int n : {709, 1582}) {  // 2 (n-1)^2 = 1,002,528 and 4,999,122 triangles
    const std::size_t triangles = 2 * static_cast<std::size_t>(n - 1) * (n - 1);
    for (const std::string ext : {"obj", "ply"}) {
      const std::string path = dir + "/drape-bench-load." + ext;
      child_peak_mb([&] {
        drape::GridDesc g;
        g.nx = g.nz = n;
        const drape::TriMesh mesh = drape::make_grid(g);
        drape::write_file_atomically(path, ext == "obj" ? drape::encode_obj(mesh.positions, mesh)
                                                        : drape::encode_ply(mesh.positions, mesh));
      });
      std::vector<double> s;
      double peak = 0.0;
      for (int r = 0; r < 3; ++r) {
        peak = std::max(peak, child_peak_mb([&] {
                          const Clock::time_point t0 = Clock::now();
                          drape::load_mesh(path);
                          const double seconds = seconds_since(t0);
                          std::FILE* f = std::fopen((path + ".time").c_str(), "w");
                          std::fprintf(f, "%.17g", seconds);
                          std::fclose(f);
                        }));
        std::FILE* f = std::fopen((path + ".time").c_str(), "r");
        double seconds = 0.0;
        if (std::fscanf(f, "%lf", &seconds) != 1) seconds = 0.0;
        std::fclose(f);
        s.push_back(seconds);
      }
      std::filesystem::remove(path);
      std::filesystem::remove(path + ".time");
      std::printf("| %s | %zu | %.2f | %.0f |\n", ext.c_str(), triangles, median(s), peak);
      out.push_back({{"format", ext},
                     {"triangles", triangles},
                     {"load_seconds", median(s)},
                     {"peak_mb", peak}});
    }
  }
  return out;
}

std::vector<int> parse_sizes(const std::string& s) {
  std::vector<int> sizes;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = s.find(',', start);
    sizes.push_back(std::stoi(s.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return sizes;
}

int contended_main(const char* self, int repeats, const std::string& out_path) {
  const int cores = drape::default_thread_count();
  std::printf("cpu backend next to other work, host threads: %d, medians of %d runs\n\n", cores,
              repeats);
  const nlohmann::json result = {
      {"cores", cores},
      {"repeats", repeats},
      {"contended", drape::bench::contended_benchmark(self, repeats, cores)}};
  drape::write_file_atomically(out_path, result.dump(2) + "\n");
  std::printf("\nwrote %s\n", out_path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--competitor") {
    drape::bench::run_competitor(argv[2], std::atoi(argv[3]));
  }
  std::vector<int> sizes{64, 128, 256, 512};
  int frames = 5, reference_max = 512, repeats = 3;
  bool contended = false;
  std::string out_path;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--contended") {
      contended = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "bench_solvers: %s needs a value\n", flag.c_str());
      return 2;
    }
    ++i;
    if (flag == "--repeats") {
      repeats = std::max(1, std::atoi(argv[i]));
    } else if (flag == "--sizes") {
      sizes = parse_sizes(argv[i]);
    } else if (flag == "--frames") {
      frames = std::max(1, std::atoi(argv[i]));
    } else if (flag == "--reference-max") {
      reference_max = std::atoi(argv[i]);
    } else if (flag == "--out") {
      out_path = argv[i];
    } else {
      std::fprintf(stderr, "bench_solvers: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (contended) {
    return contended_main(argv[0], repeats,
                          out_path.empty() ? "bench/results/contended.json" : out_path);
  }
  if (out_path.empty()) out_path = "bench/results/solvers.json";
  // First, while this process is small: the children that load meshes inherit its pages.
  const nlohmann::json mesh_load = mesh_load_benchmark();
  std::printf("\n");
  const int cores = drape::default_thread_count();
  using drape::Backend;
  std::vector<Config> configs{
      {"reference", Backend::reference, 1},
      {"cpu 1 thread", Backend::cpu, 1},
      {"cpu default (up to " + std::to_string(cores) + ")", Backend::cpu, 0}};
  const bool have_cuda = drape::cuda_device_count() > 0;
  if (have_cuda) {
    configs.push_back({"cuda", Backend::cuda, 1, true});
    configs.push_back({"cuda, no graphs", Backend::cuda, 1, false});
  }
  const std::string device = drape::cuda_device_description();
  std::printf("cuda device: %s; host threads: %d\n\n", device.c_str(), cores);
  std::printf(
      "| grid | vertices | backend | ms/frame | projections/s | bytes/vertex | speed-up |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  nlohmann::json runs = nlohmann::json::array();
  for (int n : sizes) {
    const drape::Scene scene = grid_scene(n);
    const drape::ClothModel cloth = drape::build_cloth(scene);
    const drape::PhysicsParams params = drape::physics_params(scene);
    const bool with_reference = n <= reference_max;
    double baseline_ms = 0.0;
    std::string baseline;
    for (const Config& config : configs) {
      if (config.threads == 1 && config.backend != Backend::cuda && !with_reference) continue;
      const Measurement m = measure(config, cloth, params, frames);
      if (baseline.empty()) {
        baseline = config.label;
        baseline_ms = m.ms_per_frame;
      }
      const double speedup = baseline_ms / m.ms_per_frame;
      std::printf("| %d² | %zu | %s | %.2f | %.3g | %.0f | %.2fx vs %s |\n", n,
                  cloth.mesh.positions.size(), config.label.c_str(), m.ms_per_frame,
                  m.projections_per_second, m.bytes_per_vertex, speedup, baseline.c_str());
      std::fflush(stdout);
      runs.push_back({{"grid", n},
                      {"vertices", cloth.mesh.positions.size()},
                      {"backend", drape::backend_name(config.backend)},
                      {"threads", config.threads == 0 ? cores : config.threads},
                      {"threads_chosen_while_running", config.threads == 0},
                      {"device", config.backend == Backend::cuda ? device : "host"},
                      {"cuda_graphs", config.backend == Backend::cuda && config.cuda_graphs},
                      {"substeps", params.substeps},
                      {"iterations", params.iterations},
                      {"ms_per_frame", m.ms_per_frame},
                      {"projections_per_second", m.projections_per_second},
                      {"bytes_per_vertex", m.bytes_per_vertex},
                      {"speedup", speedup},
                      {"speedup_baseline", baseline}});
    }
  }
  std::printf(
      "\nThe cuda backend on paper (bench/gpu_paper.h): H200 at 4.8 TB/s, 5 us per launch "
      "(assumed), 1 us per kernel of a graph (assumed)\n\n");
  std::printf(
      "| grid | vertices | colours/iteration | launches/frame | MB/frame | bandwidth bound "
      "ms | launch bound ms | dominated by | host launches/frame with graphs | launch bound "
      "with graphs ms |\n|---|---|---|---|---|---|---|---|---|---|\n");
  nlohmann::json paper = nlohmann::json::array();
  for (int n : sizes) {
    const drape::Scene scene = grid_scene(n);
    paper.push_back(drape::bench::gpu_on_paper(
        n, drape::build_cloth(scene), drape::physics_params(scene), scene.colliders.size()));
  }
  std::printf("\n");
  const nlohmann::json result = {{"frames_timed", frames},
                                 {"cuda_device", device},
                                 {"runs", runs},
                                 {"gpu_on_paper", paper},
                                 {"mesh_load", mesh_load}};
  const std::filesystem::path parent = std::filesystem::path(out_path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  drape::write_file_atomically(out_path, result.dump(2) + "\n");
  std::printf("wrote %s\n", out_path.c_str());
  return 0;
}
