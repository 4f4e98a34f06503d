// Turns run-time colliders into the kernels' views, and counts penetrations on the host.
#pragma once

#include <vector>

#include "collision/collider.h"
#include "kernels/collider.h"

namespace drape {

// The view of `collider` for a substep from t_before to t_now; `grid` is where its level set lives
// in the memory the kernel reads (host or device), null for analytic shapes.
kernels::ColliderView make_view(const Collider& collider, double t_before, double t_now,
                                const void* grid);
// The same for a pose sequence, whose level sets live at `poses` (one per pose, in the memory
// the kernel reads) and its motion grids at `motion` (one per pose but the last); a collider of
// one level set passes just that.
kernels::ColliderView make_view(const Collider& collider, double t_before, double t_now,
                                const std::vector<const void*>& poses,
                                const std::vector<const void*>& motion = {});

// Vertices inside any collider (signed distance < 0) at time t.
std::size_t count_penetrations(const std::vector<Collider>& colliders,
                               const std::vector<glm::dvec3>& positions, double t);

}  // namespace drape
