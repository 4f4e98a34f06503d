// One simulation run: scene in, cache frames and stats.json out.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "drape/cloth.h"
#include "drape/scene.h"
#include "drape/solver.h"
#include "drape/stats.h"

namespace drape {

struct RunSummary {
  int frames = 0;  // simulated frames (frame 0 is written but not simulated)
  std::size_t vertices = 0, triangles = 0;
  double wall_seconds = 0.0;
  double ms_per_frame = 0.0;
  double max_strain = 0.0;
  std::size_t max_penetrations = 0;  // most vertices inside a collider in any frame
  std::string output_dir;
  std::string stats_path;
};

// Called after each frame is written: (frame, frames, ms for this frame).
using FrameCallback = std::function<void(int, int, double)>;

// Simulates `scene.frames` frames of `cloth` (from build_cloth), writes NAME.%04d.EXT for frames
// 0..N and then the stats (to `stats_path`, or DIR/stats.json when empty). Input errors are
// raised before the first file is written; stats.json is written last, so its presence marks a
// run that finished.
RunSummary run_simulation(const Scene& scene, const ClothModel& cloth, const SolverOptions& options,
                          const std::string& stats_path, const FrameCallback& on_frame);

}  // namespace drape
