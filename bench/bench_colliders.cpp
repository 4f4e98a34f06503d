// Collider costs: the share of a cpu frame spent on obstacle collisions, for a 128² cloth resting
// on an analytic sphere and on a level-set sphere, and the time and memory to build the body's
// SDF at 5 mm and 2 mm. Results go to JSON.
//
// The share is measured on the resting state itself: the frame time of the solver, and the time
// of the same collision passes (substeps x iterations over all vertices, through the same kernel
// and launch layer, the clearance forgotten at each substep as the solver does) on that state.
// Comparing against a run without the collider would mislead: that cloth falls flat, and the
// bend kernel's cost depends on how many pairs are flat.
//
//   bench_colliders [--body PATH] [--grid 128] [--frames 5] [--out bench/results/colliders.json]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_util.h"
#include "collision/collider.h"
#include "collision/collider_view.h"
#include "io/atomic_file.h"
#include "model/cloth.h"
#include "solver/exec_cpu.h"
#include "solver/solver.h"

namespace {

using drape::bench::Clock;
using drape::bench::median;
using drape::bench::seconds_since;

drape::Scene drop_scene(int n) {
  drape::Scene s = drape::make_grid_scene(n, 1.0, {0, 0.36, 0});
  s.cloth.bend = 0.05;
  return s;
}

struct Cost {
  double frame_ms = 0.0, collision_ms = 0.0;
};

// Median ms/frame over `frames` frames after 12 frames that bring the cloth to rest on the
// collider, and the median time of one frame's worth of collision passes on that state.
Cost measure(const drape::Scene& scene, const drape::Collider& collider, int frames) {
  const drape::ClothModel cloth = drape::build_cloth(scene);
  const drape::PhysicsParams params = drape::physics_params(scene);
  auto solver = drape::make_cpu_solver(cloth, params, 0, {collider});
  for (int f = 0; f < 12; ++f) solver->step_frame();
  std::vector<double> frame_ms, collision_ms;
  std::vector<glm::dvec3> state;
  for (int f = 0; f < frames; ++f) {
    const Clock::time_point t0 = Clock::now();
    solver->step_frame();
    frame_ms.push_back(1000.0 * seconds_since(t0));
  }
  solver->copy_positions(state);
  std::vector<glm::vec3> p(state.begin(), state.end());
  std::vector<glm::vec3> x = p;
  const double t = 12.0 / params.fps;
  const drape::kernels::ColliderView view =
      drape::make_view(collider, t, t, collider.grid ? collider.grid->data() : nullptr);
  const drape::exec::CpuExec exec(drape::default_thread_count());
  const std::vector<float> w(p.size(), 1.0f);
  // As the solver does: the clearance is forgotten at each substep, then every iteration's pass
  // samples the vertices that may have come near.
  std::vector<glm::vec3> at(p.size());
  std::vector<float> reach(p.size());
  const drape::kernels::CollideChunk chunk{
      &view,
      1,
      {x.data(), p.data(), nullptr, w.data(), static_cast<std::uint32_t>(p.size())},
      {at.data(), reach.data()}};
  for (int f = 0; f < frames; ++f) {
    const Clock::time_point t0 = Clock::now();
    for (int substep = 0; substep < params.substeps; ++substep) {
      std::fill(reach.begin(), reach.end(), 0.0f);
      for (int it = 0; it < params.iterations; ++it) {
        exec.for_each_chunk(0, static_cast<std::uint32_t>(p.size()), chunk);
      }
    }
    collision_ms.push_back(1000.0 * seconds_since(t0));
  }
  return {median(frame_ms), median(collision_ms)};
}

}  // namespace

int main(int argc, char** argv) {
  std::string body = std::string(DRAPE_DATA_DIR) + "/bodies/mean_all.obj";
  std::string out_path = "bench/results/colliders.json";
  int n = 128, frames = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--body") {
      body = argv[i + 1];
    } else if (flag == "--grid") {
      n = std::atoi(argv[i + 1]);
    } else if (flag == "--frames") {
      frames = std::max(1, std::atoi(argv[i + 1]));
    } else if (flag == "--out") {
      out_path = argv[i + 1];
    } else {
      std::fprintf(stderr, "bench_colliders: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  nlohmann::json result = {{"grid", n}, {"threads", drape::default_thread_count()}};

  drape::ColliderDesc sphere;
  sphere.shape = drape::ColliderDesc::Shape::sphere;
  sphere.radius = 0.3;
  sphere.thickness = 0.005;
  drape::Collider analytic;
  analytic.desc = sphere;
  drape::Collider level_set = analytic;
  level_set.desc.shape = drape::ColliderDesc::Shape::nvdb;
  level_set.grid = std::make_shared<drape::SdfGrid>(
      drape::build_mesh_sdf(drape::make_uv_sphere(glm::dvec3(0.0), 0.3, 64, 128), 0.005, 3));

  const drape::Scene scene = drop_scene(n);
  std::printf(
      "| collider (%d² cloth at rest, cpu, %d threads) | ms/frame | collisions ms/frame | share "
      "|\n",
      n, drape::default_thread_count());
  std::printf("|---|---|---|---|\n");
  nlohmann::json costs = nlohmann::json::array();
  for (const auto& [name, collider] :
       {std::pair{"analytic sphere", analytic}, std::pair{"level-set sphere (5 mm)", level_set}}) {
    const Cost cost = measure(scene, collider, frames);
    const double share = cost.collision_ms / cost.frame_ms;
    std::printf("| %s | %.1f | %.1f | %.1f%% |\n", name, cost.frame_ms, cost.collision_ms,
                100.0 * share);
    costs.push_back({{"collider", name},
                     {"ms_per_frame", cost.frame_ms},
                     {"collision_ms_per_frame", cost.collision_ms},
                     {"share", share}});
  }
  result["collider_costs"] = costs;

  nlohmann::json builds = nlohmann::json::array();
  if (std::filesystem::exists(body)) {
    const drape::TriMesh mesh = drape::load_mesh(body);
    std::printf("\n| body SDF (%zu triangles) | build s | memory MB |\n|---|---|---|\n",
                mesh.triangles.size());
    for (double voxel : {0.005, 0.002}) {
      std::vector<double> s;
      std::size_t bytes = 0;
      for (int r = 0; r < 3; ++r) {
        const Clock::time_point t0 = Clock::now();
        bytes = drape::build_mesh_sdf(mesh, voxel, 3).size();
        s.push_back(seconds_since(t0));
      }
      std::printf("| %.0f mm, band 3 | %.2f | %.1f |\n", voxel * 1000, median(s),
                  static_cast<double>(bytes) / 1e6);
      builds.push_back(
          {{"voxel_size", voxel}, {"band", 3}, {"seconds", median(s)}, {"bytes", bytes}});
    }
  } else {
    std::printf("\n%s is absent: SDF build times skipped\n", body.c_str());
  }
  result["body_sdf"] = builds;
  const std::filesystem::path parent = std::filesystem::path(out_path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  drape::write_file_atomically(out_path, result.dump(2) + "\n");
  std::printf("wrote %s\n", out_path.c_str());
  return 0;
}
