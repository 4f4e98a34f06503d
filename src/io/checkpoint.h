// Checkpoints for resuming a run: the simulation state after the last frame written, in one binary
// file written whole (temporary name, then rename) after each frame.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drape/simulation.h"

namespace drape {

struct Checkpoint {
  std::uint64_t fingerprint = 0;  // of the scene's cloth and settings; a mismatch refuses resume
  SimulationState state;          // after the last frame written
};

void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);
// Empty when there is no file; InputError when it is unreadable or truncated.
std::optional<Checkpoint> read_checkpoint(const std::string& path);

// FNV-1a, 64 bits.
std::uint64_t fingerprint_bytes(const void* data, std::size_t size, std::uint64_t seed);

}  // namespace drape
