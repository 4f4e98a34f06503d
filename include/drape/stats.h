// Per-frame quality figures (design doc, "Quality metrics").
#pragma once

#include <cstdint>

namespace drape {

struct StrainStats {
  double max = 0.0, mean = 0.0;  // |L - L0| / L0 over edges with L0 > 0
};

struct StitchGapStats {
  double max = 0.0, mean = 0.0;  // distance of each stitched vertex to its point, metres
};

struct FrameStats {
  int frame = 0;
  StrainStats strain;
  std::uint64_t penetrations = 0;        // vertices inside a collider
  std::uint64_t self_intersections = 0;  // intersecting triangle pairs that share no vertex
  std::uint64_t self_contacts = 0;       // self-collision contacts gathered (cpu, cuda)
  double ms = 0.0;                       // wall time to simulate this frame (0 for frame 0)
  StitchGapStats stitch_gap;             // with stitches only
};

}  // namespace drape
