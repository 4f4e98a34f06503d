#include "solver/physics.h"

#include <cmath>

namespace drape {

double scaled_stiffness(double k, int iterations) {
  return 1.0 - std::pow(1.0 - k, 1.0 / iterations);
}

double PhysicsParams::stitch_k() const {
  return scaled_stiffness(stitch_stiffness, iterations * stitch_passes);
}

PhysicsParams physics_params(const Scene& scene) {
  PhysicsParams p;
  p.fps = scene.fps;
  p.substeps = scene.solver.substeps;
  p.iterations = scene.solver.iterations;
  p.gravity = scene.gravity;
  p.wind = scene.wind;
  p.stretch = scene.cloth.stretch;
  p.shear = scene.cloth.shear;
  p.bend = scene.cloth.bend;
  p.damping = scene.cloth.damping;
  p.xpbd = scene.cloth.model == ClothModelKind::xpbd;
  if (p.xpbd) p.damping = std::exp(-scene.cloth.material.damping * p.dt());
  p.max_strain = scene.cloth.max_strain;
  p.air = scene.air;
  p.sew_time = scene.cloth.sew_time;
  p.stitch_stiffness = scene.cloth.stitch_stiffness;
  p.stitch_compliance = scene.cloth.stitch_compliance;
  p.stitch_passes = scene.cloth.stitch_passes;
  p.self_collision.enabled = scene.cloth.self_collision;
  p.self_collision.thickness = scene.cloth.thickness;
  p.self_collision.friction = scene.cloth.friction;
  p.self_collision.cell_size = scene.cloth.self_collision_cell;
  p.self_collision.every_iteration = scene.cloth.self_collision_every_iteration;
  p.self_collision.untangle = scene.cloth.self_collision_untangle;
  p.self_collision.edge_pairs = scene.cloth.self_collision_edge_pairs;
  return p;
}

}  // namespace drape
