// bench_solvers --contended: the `cpu` backend next to other work, as on an artist's workstation
// or a farm node. For the default scene (data/sphere_drape.json, 24 frames, stats on as in
// `drape simulate`) and the 256² grid of the throughput table (16 frames, solver only), it times a
// run with --threads 1 and one with the default thread count (the ThreadGovernor, up to all usable
// CPUs), alternately, `repeats` times each, in three conditions: a quiet machine; next to a busy
// single-threaded process; next to a second simulation of the same scene with the same thread
// setting. Competitors are separate processes (this program re-run with --competitor), started
// before and killed after each timed run.
#pragma once

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "bench_util.h"
#include "drape/scene.h"
#include "drape/simulation.h"

namespace drape::bench {

struct ContendedScene {
  std::string name;
  int frames = 0;
  bool stats = true;
};

inline Scene contended_scene(const std::string& name) {
  if (name == "default") return load_scene("data/sphere_drape.json");
  Scene s = make_grid_scene(std::stoi(name), 1.0, {0, 1, 0});
  s.cloth.pins.kind = PinDesc::Kind::indices;
  s.cloth.pins.indices = {0, std::stoi(name) - 1};
  s.cloth.bend = 0.1;
  s.wind = {0, 0, 2};
  return s;
}

// The competitor processes: `--competitor busy` spins one thread; `--competitor SCENE THREADS`
// simulates that scene over and over. Both run until killed.
[[noreturn]] inline void run_competitor(const std::string& what, int threads) {
  if (what == "busy") {
    volatile unsigned long long n = 0;
    for (;;) n = n + 1;
  }
  for (;;) {
    Simulation sim(contended_scene(what), SimulationOptions{threads, what == "default"});
    sim.step(sim.scene().frames);
  }
}

inline pid_t start_competitor(const std::string& self, const std::string& what, int threads) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string t = std::to_string(threads);
    execl(self.c_str(), self.c_str(), "--competitor", what.c_str(), t.c_str(),
          static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  usleep(200000);  // let it start (and load its scene) before the timed run
  return pid;
}

inline void stop_competitor(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

// Milliseconds per frame of one run.
inline double contended_run(const ContendedScene& cs, int threads) {
  Simulation sim(contended_scene(cs.name), SimulationOptions{threads, cs.stats});
  const Clock::time_point t0 = Clock::now();
  sim.step(cs.frames);
  return 1e3 * seconds_since(t0) / cs.frames;
}

inline nlohmann::json contended_benchmark(const std::string& self, int repeats, int cores) {
  const std::vector<ContendedScene> scenes{{"default", 24, true}, {"256", 16, false}};
  const std::vector<std::string> conditions{"quiet", "busy process", "second simulation"};
  nlohmann::json out = nlohmann::json::array();
  std::printf(
      "| scene | next to | --threads 1 ms/frame | default (up to %d) ms/frame | default / 1 "
      "|\n|---|---|---|---|---|\n",
      cores);
  for (const ContendedScene& cs : scenes) {
    for (const std::string& condition : conditions) {
      std::vector<double> one, many;
      for (int r = 0; r < repeats; ++r) {
        for (int threads : {1, 0}) {
          pid_t competitor = 0;
          if (condition == "busy process") competitor = start_competitor(self, "busy", 1);
          if (condition == "second simulation") {
            competitor = start_competitor(self, cs.name, threads);
          }
          (threads == 1 ? one : many).push_back(contended_run(cs, threads));
          stop_competitor(competitor);
        }
      }
      const double a = median(one), b = median(many);
      std::printf("| %s | %s | %.1f | %.1f | %.2fx |\n", cs.name.c_str(), condition.c_str(), a, b,
                  b / a);
      std::fflush(stdout);
      out.push_back({{"scene", cs.name},
                     {"frames", cs.frames},
                     {"condition", condition},
                     {"threads_1_ms", a},
                     {"default_ms", b},
                     {"default_over_1", b / a},
                     {"threads_1_runs_ms", one},
                     {"default_runs_ms", many}});
    }
  }
  return out;
}

}  // namespace drape::bench
