// The physical settings a solver runs with, taken from a scene.
#pragma once

#include <glm/vec3.hpp>

#include "drape/scene.h"

namespace drape {

// Self-collision (spec section 3): contacts within 1.5 x thickness are gathered from a spatial hash
// and pushed apart to the thickness.
struct SelfCollisionParams {
  bool enabled = false;
  double thickness = 0.005, friction = 0.3;
  double cell_size = 0.0;        // hash cell, metres; 0 = the mean rest edge length
  bool every_iteration = false;  // gather contacts every iteration instead of every substep
  bool untangle = false;         // recover from self-intersections (collision/untangle.h)
  EdgePairs edge_pairs = EdgePairs::automatic;  // where edge-edge contacts are gathered
};

struct PhysicsParams {
  double fps = 24.0;
  int substeps = 4, iterations = 10;
  glm::dvec3 gravity{0.0, -9.81, 0.0}, wind{0.0};
  double stretch = 1.0, shear = 1.0, bend = 0.1;
  double damping = 0.99;  // velocity factor per substep (XPBD: exp(-material damping x dt))
  SelfCollisionParams self_collision;
  bool xpbd = false;        // compliance per constraint (ClothModel) instead of stiffness
  double max_strain = 0.0;  // strain limit after the iterations, 0 = none
  AirDesc air;
  // Stitches shorten from their start length to zero over sew_time seconds (0: at once); PBD
  // stiffness in [0, 1], XPBD compliance in m/N.
  double sew_time = 0.0, stitch_stiffness = 1.0, stitch_compliance = 0.0;
  int stitch_passes = 1;  // stitch projections per iteration
  // PBD's stitch stiffness per projection: `stitch_stiffness` over a substep's projections.
  double stitch_k() const;

  double dt() const { return 1.0 / (fps * substeps); }
  // A stitch's length at time `t` seconds, as a fraction of its start length.
  double stitch_fraction(double t) const { return t < sew_time ? 1.0 - t / sew_time : 0.0; }
};

PhysicsParams physics_params(const Scene& scene);

// Iteration-independent stiffness, k' = 1 - (1 - k)^(1/n), n = constraint iterations
// (Mueller et al. 2006, section 3.3; design doc "Conventions").
double scaled_stiffness(double k, int iterations);

// Gauss-Seidel passes of the strain limit over the stretch edges (after the long-range
// attachments), run after every iteration and once more after the substep's iterations.
constexpr int kStrainLimitPasses = 4;

}  // namespace drape
