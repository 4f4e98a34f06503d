// Checkpoints for resuming a run: the solver state and the per-frame stats after the last frame
// written, in one binary file written whole (temporary name, then rename) after each frame.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drape/stats.h"
#include "solver/solver.h"

namespace drape {

struct Checkpoint {
  std::uint64_t fingerprint = 0;  // of the scene's cloth and settings; a mismatch refuses resume
  int frame = 0;
  SolverState state;
  std::vector<FrameStats> stats;  // frames 0..frame
};

void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);
// Empty when there is no file; InputError when it is unreadable or truncated.
std::optional<Checkpoint> read_checkpoint(const std::string& path);

// FNV-1a, 64 bits.
std::uint64_t fingerprint_bytes(const void* data, std::size_t size, std::uint64_t seed);

}  // namespace drape
