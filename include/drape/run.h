// A run that writes its cache: a Simulation stepped to the scene's last frame, every frame written
// as it comes (PLY/OBJ/USD), a checkpoint after each, and stats.json last.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "drape/simulation.h"

namespace drape {

struct RunSummary {
  int frames = 0;         // frames in the cache after frame 0
  int resumed_from = -1;  // the checkpoint's frame when the run was resumed
  std::size_t vertices = 0, triangles = 0;
  double wall_seconds = 0.0;
  double ms_per_frame = 0.0;
  double max_strain = 0.0;
  std::size_t max_penetrations = 0;            // most vertices inside a collider in any frame
  std::size_t max_self_intersections = 0;      // most intersecting triangle pairs in any frame
  std::size_t initial_self_intersections = 0;  // intersecting triangle pairs in frame 0
  int first_self_intersection_frame = -1;      // the first frame with any, -1 for none
  std::size_t stitches = 0;                    // cloth.stitches in use
  double max_stitch_gap = 0.0;                 // metres, the most in any frame
  double last_stitch_gap = 0.0;                // metres, the most in the last frame
  std::string output_dir;
  std::string stats_path;
};

// Called after each frame is written: (frame, frames, ms for this frame).
using FrameCallback = std::function<void(int, int, double)>;

struct RunOptions {
  std::string stats_path;  // empty: DIR/stats.json
  // Continue from DIR/NAME.checkpoint when there is one (written after every frame): the frames
  // that follow are bit-identical to those of an uninterrupted run on the same backend.
  bool resume = false;
  // Keep DIR/NAME.checkpoint after a finished run (to extend it later with more frames and
  // resume); by default it is removed once stats.json is written.
  bool keep_checkpoint = false;
};

// Steps `simulation` (at frame 0) to its scene's `frames` and writes NAME.%04d.EXT for frames
// 0..N, a checkpoint after each frame, and then the stats. Input errors are raised before the
// first file is written; stats.json is written last, so its presence marks a finished run.
RunSummary run_simulation(Simulation& simulation, const RunOptions& options,
                          const FrameCallback& on_frame);

// DIR/NAME.checkpoint
std::string checkpoint_path(const Scene& scene);

}  // namespace drape
