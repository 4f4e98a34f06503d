// The cuda backend on paper, until a GPU run exists (issue "Speed that holds on a shared
// machine", point 3): for one frame, the kernel launches the coloured solver makes and the fewest
// bytes its kernels must move through device memory (each index, rest value, inverse mass and
// position read once per kernel, each position written once), and from them a lower bound on an
// H200: bytes over 4.8 TB/s (its datasheet bandwidth) against launches times 5 us (an assumed
// cost of one launch and its gap, without CUDA graphs). The larger bound says which dominates.
// The cuda backend replays each iteration's launches from a CUDA graph: the host then launches
// predict, one graph per iteration and update per substep, and the graph's kernels follow one
// another on the device at an assumed 1 us each (neither figure is measured: no GPU has run
// drape yet).
#pragma once

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "model/cloth.h"
#include "solver/colouring.h"
#include "solver/physics.h"

namespace drape::bench {

constexpr double kH200BytesPerSecond = 4.8e12;
constexpr double kSecondsPerLaunch = 5e-6;
constexpr double kSecondsPerGraphNode = 1e-6;

// Bytes per element, float32 positions (12 B), uint32 indices and float rest values and inverse
// masses (4 B each):
constexpr double kPredictBytes = 12 + 12 + 4 + 12 + 12;  // read x, v, w; write v, p
constexpr double kUpdateBytes = 12 + 12 + 12 + 12;       // read p, x; write v, x
constexpr double kDistanceBytes =
    2 * 4 + 4 + 2 * (4 + 12 + 12);  // 2 indices, rest; per end w, p in, p out
constexpr double kBendBytes =
    4 * 4 + 4 + 4 * (4 + 12 + 12);                   // 4 indices, rest; per vertex w, p in, p out
constexpr double kColliderBytes = 4 + 12 + 12 + 12;  // per vertex: w, x, p in, p out

// One row of the table, and its JSON.
inline nlohmann::json gpu_on_paper(int grid, const ClothModel& cloth, const PhysicsParams& params,
                                   std::size_t colliders) {
  const ClothColouring c = colour_cloth(cloth.topology, cloth.mesh.positions.size());
  const double vertices = static_cast<double>(cloth.mesh.positions.size());
  const double edges = static_cast<double>(cloth.topology.edge_count());
  const double pairs = static_cast<double>(cloth.topology.bend_count());
  const std::size_t colours =
      c.stretch.colour_count() + c.bend.colour_count() + c.shear.colour_count();
  const double per_iteration_launches = static_cast<double>(colours + (colliders > 0 ? 1 : 0));
  const double launches = params.substeps * (2.0 + params.iterations * per_iteration_launches);
  const double per_iteration_bytes = edges * kDistanceBytes + pairs * kBendBytes +
                                     pairs * kDistanceBytes +
                                     (colliders > 0 ? vertices * kColliderBytes : 0.0);
  const double bytes = params.substeps * (vertices * (kPredictBytes + kUpdateBytes) +
                                          params.iterations * per_iteration_bytes);
  const double bandwidth_ms = 1e3 * bytes / kH200BytesPerSecond;
  const double launch_ms = 1e3 * launches * kSecondsPerLaunch;
  const char* bound = launch_ms > bandwidth_ms ? "launches" : "bandwidth";
  const double graph_launches = params.substeps * (2.0 + params.iterations);
  const double graph_ms =
      1e3 * (graph_launches * kSecondsPerLaunch +
             params.substeps * params.iterations * per_iteration_launches * kSecondsPerGraphNode);
  std::printf("| %d² | %.0f | %zu | %.0f | %.1f | %.3f | %.2f | %s | %.0f | %.2f |\n", grid,
              vertices, colours, launches, bytes / 1e6, bandwidth_ms, launch_ms, bound,
              graph_launches, graph_ms);
  return {{"grid", grid},
          {"vertices", vertices},
          {"colours_per_iteration", colours},
          {"launches_per_frame", launches},
          {"bytes_per_frame", bytes},
          {"h200_bandwidth_bound_ms", bandwidth_ms},
          {"h200_launch_bound_ms", launch_ms},
          {"lower_bound_ms", std::max(bandwidth_ms, launch_ms)},
          {"dominated_by", bound},
          {"host_launches_per_frame_with_graphs", graph_launches},
          {"h200_launch_bound_with_graphs_ms", graph_ms},
          {"lower_bound_with_graphs_ms", std::max(bandwidth_ms, graph_ms)}};
}

}  // namespace drape::bench
