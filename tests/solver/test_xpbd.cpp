// XPBD, strain limiting, long-range attachments and air forces (kernels/xpbd.h): hand-computed
// values, finite-difference gradients, momentum, and the limits where XPBD is PBD.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/xpbd.h"
#include "solver/reference_constraints.h"

namespace drape {
namespace {

using V = kernels::Vec3<double>;

glm::dvec3 g(const V& v) {
  return {v.x, v.y, v.z};
}

TEST(Xpbd, DistanceStepIsTheHandComputedOne) {
  // |p0 - p1| = 2, rest 1.5: C = 0.5; dlambda = (-C - at lambda) / (w0 + w1 + at).
  const V p0{2, 0, 0}, p1{0, 0, 0};
  V n;
  EXPECT_NEAR(kernels::xpbd_distance(p0, 1.0, p1, 3.0, 1.5, 0.0, 0.0, n), -0.5 / 4.0, 1e-15);
  EXPECT_NEAR(n.x, 1.0, 1e-9);
  EXPECT_NEAR(kernels::xpbd_distance(p0, 1.0, p1, 3.0, 1.5, 2.0, 0.1, n), (-0.5 - 0.2) / 6.0,
              1e-15);
  EXPECT_EQ(kernels::xpbd_distance(p0, 0.0, p1, 0.0, 1.5, 2.0, 0.0, n), 0.0);
}

TEST(Xpbd, ZeroComplianceIsPbdWithFullStiffnessAndKeepsMomentum) {
  const glm::dvec3 a{0.3, -0.2, 0.9}, b{1.1, 0.4, 0.2};
  const double wa = 2.0, wb = 0.5, rest = 0.7;
  V n;
  const double dl =
      kernels::xpbd_distance(V{a.x, a.y, a.z}, wa, V{b.x, b.y, b.z}, wb, rest, 0.0, 0.0, n);
  glm::dvec3 da, db;
  ASSERT_TRUE(reference::distance_correction(a, wa, b, wb, rest, 1.0, da, db));
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(g(n)[i] * wa * dl, da[i], 1e-12);
    EXPECT_NEAR(-g(n)[i] * wb * dl, db[i], 1e-12);
    // m_a dp_a + m_b dp_b = 0: the constraint is internal.
    EXPECT_NEAR(da[i] / wa + db[i] / wb, 0.0, 1e-12);
  }
}

// The angle of kernels::bend_geometry at positions p.
double bend_angle(const V p[4]) {
  const double w[4] = {1, 1, 1, 1};
  V q[4];
  return kernels::bend_geometry(p, w, q).angle;
}

TEST(Xpbd, BendGradientIsQOverSineByFiniteDifferences) {
  V p[4] = {{0, 0, 0}, {1, 0.1, 0}, {0.4, 0.9, 0.2}, {0.6, -0.8, 0.5}};
  const double w[4] = {1, 1, 1, 1};
  V q[4];
  const kernels::BendGeometry<double> geo = kernels::bend_geometry(p, w, q);
  const double h = 1e-6;
  for (int i = 0; i < 4; ++i) {
    for (int axis = 0; axis < 3; ++axis) {
      V plus[4] = {p[0], p[1], p[2], p[3]}, minus[4] = {p[0], p[1], p[2], p[3]};
      double* up = axis == 0 ? &plus[i].x : axis == 1 ? &plus[i].y : &plus[i].z;
      double* down = axis == 0 ? &minus[i].x : axis == 1 ? &minus[i].y : &minus[i].z;
      *up += h;
      *down -= h;
      const double numeric = (bend_angle(plus) - bend_angle(minus)) / (2 * h);
      EXPECT_NEAR(numeric, g(q[i])[axis] / geo.sine, 1e-6) << "vertex " << i << " axis " << axis;
    }
  }
}

TEST(Xpbd, BendWithoutComplianceIsPbdBendWithFullStiffness) {
  const V p[4] = {{0, 0, 0}, {1, 0.1, 0}, {0.4, 0.9, 0.2}, {0.6, -0.8, 0.5}};
  const double w[4] = {1, 0.5, 2, 1}, rest = 2.5;
  V q[4], q_pbd[4];
  double dl = 0;
  const double c = kernels::xpbd_bend_coefficient(p, w, rest, 0.0, 0.0, q, dl);
  const double c_pbd = kernels::bend_coefficient(p, w, rest, 1.0, q_pbd);
  EXPECT_NEAR(c, c_pbd, 1e-12);
  // With compliance the step is smaller, and dlambda solves the XPBD equation:
  // dlambda (sum w |grad C|^2 + at) = -C - at lambda.
  const double at = 0.3, lambda = 0.05;
  kernels::xpbd_bend_coefficient(p, w, rest, at, lambda, q, dl);
  const kernels::BendGeometry<double> geo = kernels::bend_geometry(p, w, q);
  const double grad2 = geo.denom / (geo.sine * geo.sine);
  EXPECT_NEAR(dl * (grad2 + at), -(geo.angle - rest) - at * lambda, 1e-12);
}

TEST(Xpbd, StrainLimitShortensOnlyLongEdgesMassWeighted) {
  V d0, d1;
  EXPECT_FALSE(kernels::strain_limit(V{1.05, 0, 0}, 1.0, V{0, 0, 0}, 1.0, 1.1, d0, d1));
  ASSERT_TRUE(kernels::strain_limit(V{1.5, 0, 0}, 1.0, V{0, 0, 0}, 3.0, 1.1, d0, d1));
  EXPECT_NEAR(d0.x, -0.4 * 0.25, 1e-15);  // the light end moves a quarter of 0.4
  EXPECT_NEAR(d1.x, 0.4 * 0.75, 1e-15);
  EXPECT_FALSE(kernels::strain_limit(V{1.5, 0, 0}, 0.0, V{0, 0, 0}, 0.0, 1.1, d0, d1));
}

TEST(Xpbd, AttachmentPullsBackOntoTheSphereAroundThePin) {
  V out;
  EXPECT_FALSE(kernels::attach(V{0, -0.9, 0}, V{0, 0, 0}, 1.0, out));
  ASSERT_TRUE(kernels::attach(V{0, -3, 4}, V{0, 0, 0}, 2.5, out));
  EXPECT_NEAR(out.y, -1.5, 1e-12);
  EXPECT_NEAR(out.z, 2.0, 1e-12);
}

TEST(Xpbd, AirForceOnAPlateIsDragAlongTheNormalAndLiftAcrossTheFlow) {
  // A unit right triangle (area 0.5) in the XZ plane, normal +Y (or -Y: the force does not care).
  const V x[3] = {{0, 0, 0}, {0, 0, 1}, {1, 0, 0}};
  const V still[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  const double rho = 1.2, cd = 1.1, cl = 0.4;
  // Wind of 3 m/s straight up against the plate: drag 1/2 rho cd A v^2 upwards, no lift.
  V f = kernels::air_force(x, still, V{0, 3, 0}, rho, cd, cl);
  EXPECT_NEAR(f.y, 0.5 * rho * cd * 0.5 * 9.0, 1e-12);
  EXPECT_NEAR(f.x, 0.0, 1e-12);
  EXPECT_NEAR(f.z, 0.0, 1e-12);
  // Wind along the plate: no force at all.
  f = kernels::air_force(x, still, V{3, 0, 0}, rho, cd, cl);
  EXPECT_NEAR(glm::length(g(f)), 0.0, 1e-12);
  // At 45 degrees: drag 1/2 rho cd A (v cos)^2 along the normal, lift 1/2 rho cl A v^2 cos sin
  // across the flow (perpendicular to it).
  const double v = 3.0, c = std::sqrt(0.5);
  f = kernels::air_force(x, still, V{v * c, v * c, 0}, rho, cd, cl);
  const glm::dvec3 flow{c, c, 0}, lift_dir{-c, c, 0};
  const double drag = 0.5 * rho * cd * 0.5 * (v * c) * (v * c);
  const double lift = 0.5 * rho * cl * 0.5 * v * v * c * c;
  EXPECT_NEAR(f.y, drag + lift * c, 1e-12);
  EXPECT_NEAR(glm::dot(g(f), lift_dir), lift + drag * c, 1e-12);
  EXPECT_GT(glm::dot(g(f), flow), 0.0);  // the plate is pushed downwind
}

}  // namespace
}  // namespace drape
