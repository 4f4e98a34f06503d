// Sewing for the coloured solver, written once for every launch layer (included by
// solver/parallel_solver.h): the stitches coloured into independent batches (no two in a colour
// share a vertex), their lengths set at the start of each substep (outside the replayed
// iteration, whose launches keep their arguments), projected colour after colour every iteration.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/stitch.h"
#include "model/cloth.h"
#include "solver/colouring.h"
#include "solver/physics.h"

namespace drape {

template <class Exec>
class StitchConstraints {
  template <class T>
  using Buffer = typename Exec::template Buffer<T>;

 public:
  StitchConstraints(const StitchSet& stitches, const PhysicsParams& params, Exec exec)
      : m_exec(exec), m_params(params), m_count(static_cast<std::uint32_t>(stitches.size())) {
    const Colouring colouring =
        colour_constraints({stitches.v.data(), stitches.a.data(), stitches.b.data()},
                           stitches.size(), max_vertex(stitches) + 1);
    m_offsets = colouring.offsets;
    upload_in_order(colouring.order, stitches.v, m_v);
    upload_in_order(colouring.order, stitches.a, m_a);
    upload_in_order(colouring.order, stitches.b, m_b);
    upload_in_order(colouring.order, stitches.t, m_t);
    upload_in_order(colouring.order, stitches.length, m_start);
    m_rest.resize(m_count);
    m_lambda.upload(std::vector<float>(m_count, 0.0f));
    m_alpha = static_cast<float>(params.stitch_compliance / (params.dt() * params.dt()));
    m_k_prime = params.xpbd ? 1.0f : static_cast<float>(params.stitch_k());
  }

  // Lengths at the end of the substep that starts at time `t`; XPBD multipliers back to 0.
  void begin_substep(double t) {
    const auto fraction = static_cast<float>(m_params.stitch_fraction(t + m_params.dt()));
    m_exec.for_each(0, m_count, kernels::StitchLengths{m_start.data(), m_rest.data(), fraction});
    if (m_params.xpbd) m_exec.for_each(0, m_count, kernels::ZeroLambda{m_lambda.data()});
  }

  void project(const kernels::ParticleView& s) {
    const kernels::StitchBatch batch{
        s,
        {m_v.data(), m_a.data(), m_b.data(), m_t.data(), m_rest.data(), m_lambda.data()},
        m_alpha,
        m_k_prime,
        m_params.xpbd};
    for (int pass = 0; pass < m_params.stitch_passes; ++pass) {
      for (std::size_t c = 0; c + 1 < m_offsets.size(); ++c) {
        m_exec.for_each(m_offsets[c], m_offsets[c + 1], batch);
      }
    }
  }

  std::size_t bytes() const {
    return m_v.bytes() + m_a.bytes() + m_b.bytes() + m_t.bytes() + m_start.bytes() +
           m_rest.bytes() + m_lambda.bytes();
  }

 private:
  static std::size_t max_vertex(const StitchSet& s) {
    std::uint32_t most = 0;
    for (std::size_t k = 0; k < s.size(); ++k) most = std::max({most, s.v[k], s.a[k], s.b[k]});
    return most;
  }

  Exec m_exec;
  PhysicsParams m_params;
  std::uint32_t m_count;
  std::vector<std::uint32_t> m_offsets;
  Buffer<std::uint32_t> m_v, m_a, m_b;
  Buffer<float> m_t, m_start, m_rest, m_lambda;
  float m_alpha = 0.0f, m_k_prime = 1.0f;
};

}  // namespace drape
