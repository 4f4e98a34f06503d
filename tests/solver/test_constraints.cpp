// Constraint functions of the reference backend against hand-computed values, finite differences
// and conservation of linear momentum.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "solver/reference_constraints.h"
#include "solver/solver.h"

namespace drape {
namespace {

constexpr double kPi = 3.14159265358979323846;

void expect_vec_near(const glm::dvec3& a, const glm::dvec3& b, double tol) {
  EXPECT_NEAR(a.x, b.x, tol);
  EXPECT_NEAR(a.y, b.y, tol);
  EXPECT_NEAR(a.z, b.z, tol);
}

TEST(Stiffness, ScaledByIterationCount) {
  EXPECT_DOUBLE_EQ(scaled_stiffness(1.0, 10), 1.0);
  EXPECT_DOUBLE_EQ(scaled_stiffness(0.0, 10), 0.0);
  // 1 - (1 - 0.75)^(1/2) = 0.5
  EXPECT_NEAR(scaled_stiffness(0.75, 2), 0.5, 1e-15);
  // n applications of k' leave (1 - k') ^ n = 1 - k of the error
  const double k_prime = scaled_stiffness(0.3, 7);
  EXPECT_NEAR(1.0 - std::pow(1.0 - k_prime, 7), 0.3, 1e-14);
}

TEST(Distance, StretchedEdgeMovesBothEndsHalfway) {
  glm::dvec3 dp0, dp1;
  ASSERT_TRUE(reference::distance_correction({0, 0, 0}, 1.0, {2, 0, 0}, 1.0, 1.0, 1.0, dp0, dp1));
  // |p0 - p1| = 2, d0 = 1: each end moves 0.5 toward the other.
  expect_vec_near(dp0, {0.5, 0, 0}, 1e-9);
  expect_vec_near(dp1, {-0.5, 0, 0}, 1e-9);
}

TEST(Distance, CompressedEdgeWithStiffnessHalf) {
  glm::dvec3 dp0, dp1;
  ASSERT_TRUE(reference::distance_correction({0, 0, 0}, 1.0, {0, 1, 0}, 1.0, 3.0, 0.5, dp0, dp1));
  // C = 1 - 3 = -2; the full correction pushes each end 1 apart, k' = 0.5 halves it.
  expect_vec_near(dp0, {0, -0.5, 0}, 1e-9);
  expect_vec_near(dp1, {0, 0.5, 0}, 1e-9);
}

TEST(Distance, PinnedEndStaysAndFreeEndTakesWholeCorrection) {
  glm::dvec3 dp0, dp1;
  ASSERT_TRUE(reference::distance_correction({0, 0, 0}, 0.0, {0, 0, 3}, 1.0, 1.0, 1.0, dp0, dp1));
  expect_vec_near(dp0, {0, 0, 0}, 0.0);
  expect_vec_near(dp1, {0, 0, -2}, 1e-8);
}

TEST(Distance, BothPinnedIsSkipped) {
  glm::dvec3 dp0{7.0}, dp1{7.0};
  EXPECT_FALSE(reference::distance_correction({0, 0, 0}, 0.0, {1, 0, 0}, 0.0, 2.0, 1.0, dp0, dp1));
}

TEST(Distance, CoincidentPointsGiveNoNaN) {
  glm::dvec3 dp0, dp1;
  ASSERT_TRUE(reference::distance_correction({1, 1, 1}, 1.0, {1, 1, 1}, 1.0, 0.5, 1.0, dp0, dp1));
  EXPECT_TRUE(std::isfinite(dp0.x + dp0.y + dp0.z + dp1.x + dp1.y + dp1.z));
}

TEST(Distance, ConservesLinearMomentumForEqualMasses) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    const glm::dvec3 p0{u(rng), u(rng), u(rng)}, p1{u(rng), u(rng), u(rng)};
    glm::dvec3 dp0, dp1;
    ASSERT_TRUE(reference::distance_correction(p0, 1.0, p1, 1.0, std::abs(u(rng)), 0.7, dp0, dp1));
    expect_vec_near(dp0 + dp1, {0, 0, 0}, 1e-15);
  }
}

// A 90 degree fold along the X axis: p1 = 0, p2 = x, p3 = y, p4 = z.
// n1 = x × y = z, n2 = x × z = -y, d = 0, so C = pi/2 - phi0.
// q3 = x × n2 = -z, q4 = x × n1 = -y, q2 = -(y × -y) - (z × z) = 0, q1 = -(q2 + q3 + q4) = y + z.
TEST(Bend, NinetyDegreeFoldByHand) {
  const glm::dvec3 p[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  glm::dvec3 q[4];
  EXPECT_NEAR(reference::bend_directions(p[0], p[1], p[2], p[3], q), 0.0, 1e-12);
  expect_vec_near(q[0], {0, 1, 1}, 1e-8);
  expect_vec_near(q[1], {0, 0, 0}, 1e-8);
  expect_vec_near(q[2], {0, 0, -1}, 1e-8);
  expect_vec_near(q[3], {0, -1, 0}, 1e-8);

  // Rest angle pi (flat): sum w|q|^2 = 2 + 0 + 1 + 1 = 4, coefficient (1)(pi/2 - pi)/4 = -pi/8,
  // dp_i = -w_i q_i coeff = q_i pi/8.
  const double w[4] = {1, 1, 1, 1};
  glm::dvec3 dp[4];
  ASSERT_TRUE(reference::bend_correction(p, w, kPi, 1.0, dp));
  const double c = kPi / 8;
  expect_vec_near(dp[0], {0, c, c}, 1e-8);
  expect_vec_near(dp[1], {0, 0, 0}, 1e-8);
  expect_vec_near(dp[2], {0, 0, -c}, 1e-8);
  expect_vec_near(dp[3], {0, -c, 0}, 1e-8);
}

TEST(Bend, CorrectionOpensTheFoldTowardItsRestAngle) {
  const glm::dvec3 p[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const double w[4] = {1, 1, 1, 1};
  glm::dvec3 dp[4];
  ASSERT_TRUE(reference::bend_correction(p, w, kPi, 0.1, dp));
  glm::dvec3 moved[4];
  for (int i = 0; i < 4; ++i) moved[i] = p[i] + dp[i];
  glm::dvec3 q[4];
  const double d_after = reference::bend_directions(moved[0], moved[1], moved[2], moved[3], q);
  EXPECT_GT(std::acos(d_after), kPi / 2);  // the angle grew toward pi
}

TEST(Bend, AtRestAngleNoCorrection) {
  const glm::dvec3 p[4] = {{0, 0, 0}, {1, 0, 0}, {0.3, 1, 0.2}, {0.5, -0.2, 0.9}};
  glm::dvec3 q[4];
  const double rest = std::acos(reference::bend_directions(p[0], p[1], p[2], p[3], q));
  const double w[4] = {1, 1, 1, 1};
  glm::dvec3 dp[4];
  ASSERT_TRUE(reference::bend_correction(p, w, rest, 1.0, dp));
  for (const glm::dvec3& d : dp) expect_vec_near(d, {0, 0, 0}, 1e-12);
}

// q_i = -d(n1 . n2)/dp_i: compare with central differences of d on random folds.
TEST(Bend, DirectionsMatchFiniteDifferences) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double h = 1e-6;
  for (int trial = 0; trial < 50; ++trial) {
    glm::dvec3 p[4] = {{u(rng), u(rng), u(rng)},
                       {u(rng), u(rng), u(rng)},
                       {u(rng), u(rng), u(rng)},
                       {u(rng), u(rng), u(rng)}};
    glm::dvec3 q[4], scratch[4];
    reference::bend_directions(p[0], p[1], p[2], p[3], q);
    for (int i = 0; i < 4; ++i) {
      for (int axis = 0; axis < 3; ++axis) {
        glm::dvec3 plus[4] = {p[0], p[1], p[2], p[3]}, minus[4] = {p[0], p[1], p[2], p[3]};
        plus[i][axis] += h;
        minus[i][axis] -= h;
        const double dp = reference::bend_directions(plus[0], plus[1], plus[2], plus[3], scratch);
        const double dm =
            reference::bend_directions(minus[0], minus[1], minus[2], minus[3], scratch);
        const double fd = (dp - dm) / (2 * h);
        EXPECT_NEAR(q[i][axis], -fd, 1e-5 * (1.0 + std::abs(fd))) << "trial " << trial;
      }
    }
  }
}

TEST(Bend, ConservesLinearMomentumForEqualMasses) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    const glm::dvec3 p[4] = {{u(rng), u(rng), u(rng)},
                             {u(rng), u(rng), u(rng)},
                             {u(rng), u(rng), u(rng)},
                             {u(rng), u(rng), u(rng)}};
    const double w[4] = {1, 1, 1, 1};
    glm::dvec3 dp[4];
    if (!reference::bend_correction(p, w, 2.0, 0.8, dp)) continue;
    expect_vec_near(dp[0] + dp[1] + dp[2] + dp[3], {0, 0, 0}, 1e-12);
  }
}

TEST(Bend, PinnedVerticesGetNoCorrection) {
  const glm::dvec3 p[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const double w[4] = {0, 0, 1, 0};
  glm::dvec3 dp[4];
  ASSERT_TRUE(reference::bend_correction(p, w, kPi, 1.0, dp));
  EXPECT_EQ(dp[0], glm::dvec3(0.0));
  EXPECT_EQ(dp[1], glm::dvec3(0.0));
  EXPECT_EQ(dp[3], glm::dvec3(0.0));
  EXPECT_NE(dp[2], glm::dvec3(0.0));
}

TEST(Bend, FlatAndFoldedFlatPairsGiveNoNaN) {
  const double w[4] = {1, 1, 1, 1};
  glm::dvec3 dp[4];
  const glm::dvec3 flat[4] = {{0, 0, 0}, {1, 0, 0}, {0.5, 0, 1}, {0.5, 0, -1}};
  const glm::dvec3 closed[4] = {{0, 0, 0}, {1, 0, 0}, {0.5, 0, 1}, {0.5, 0, 1}};
  const glm::dvec3 collapsed[4] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0.5, 0, -1}};
  for (const glm::dvec3* p : {flat, closed, collapsed}) {
    if (!reference::bend_correction(p, w, 1.0, 1.0, dp)) continue;
    for (const glm::dvec3& d : dp) EXPECT_TRUE(std::isfinite(d.x + d.y + d.z));
  }
}

}  // namespace
}  // namespace drape
