// Solver backends: one frame at a time, positions out in input order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "drape/cloth.h"

namespace drape {

struct PhysicsParams {
  double fps = 24.0;
  int substeps = 4, iterations = 10;
  glm::dvec3 gravity{0.0, -9.81, 0.0}, wind{0.0};
  double stretch = 1.0, shear = 1.0, bend = 0.1, damping = 0.99;

  double dt() const { return 1.0 / (fps * substeps); }
};

PhysicsParams physics_params(const Scene& scene);

// Iteration-independent stiffness, k' = 1 - (1 - k)^(1/n), n = constraint iterations
// (Mueller et al. 2006, section 3.3; design doc "Conventions").
double scaled_stiffness(double k, int iterations);

class Solver {
 public:
  virtual ~Solver() = default;
  // Advances one frame of 1/fps seconds: `substeps` substeps of predict, project, update.
  virtual void step_frame() = 0;
  virtual void copy_positions(std::vector<glm::dvec3>& out) const = 0;
  virtual void copy_velocities(std::vector<glm::dvec3>& out) const = 0;
  // Constraint projections one frame performs, for throughput figures.
  virtual double projections_per_frame() const = 0;
};

// The serial double-precision solver that follows the spec's loop exactly.
std::unique_ptr<Solver> make_reference_solver(const ClothModel& cloth, const PhysicsParams& params);

// Throws InputError for a backend this build does not have.
std::unique_ptr<Solver> make_solver(const std::string& backend, const ClothModel& cloth,
                                    const PhysicsParams& params);

}  // namespace drape
