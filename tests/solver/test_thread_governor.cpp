// The cpu backend's thread governor: the team size it settles on under synthetic timings (the
// units below take a set time at each team size, on a synthetic clock), and frames that stay
// bit-identical however often the size changes.
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>

#include <gtest/gtest.h>

#include "model/cloth.h"
#include "solver/cpu_solver.h"
#include "solver/thread_governor.h"
#include "test_scenes.h"

namespace drape {
namespace {

// Synthetic time: a unit advances it by its cost instead of spinning, so what the governor decides
// does not depend on how busy the machine running the tests is.
struct FakeClock {
  double seconds = 0.0;
  std::chrono::steady_clock::time_point now() const {
    return std::chrono::steady_clock::time_point(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(seconds)));
  }
};

// An adaptive governor up to `most` threads that times units on `clock`.
ThreadGovernor timed_by(FakeClock& clock, int most) {
  ThreadGovernor governor = ThreadGovernor::adaptive_up_to(most);
  governor.set_clock([&clock] { return clock.now(); });
  return governor;
}

// Runs `units` units whose time depends on the team size and the unit's number; returns the
// share of units run on one thread.
template <class Cost>
double share_on_one_thread(ThreadGovernor& governor, FakeClock& clock, int units, Cost cost) {
  for (int u = 0; u < units; ++u) {
    governor.begin();
    clock.seconds += cost(governor.threads(), u);
    governor.end();
  }
  return static_cast<double>(governor.units_per_size()[0]) / units;
}

TEST(ThreadGovernor, UsableCpusLieWithinTheAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_GE(usable_cpus(), 1);
  EXPECT_LE(usable_cpus(), CPU_COUNT(&set));
}

TEST(ThreadGovernor, AnExplicitCountNeverChanges) {
  ThreadGovernor governor(3);
  EXPECT_FALSE(governor.adaptive());
  for (int u = 0; u < 200; ++u) {
    governor.begin();
    EXPECT_EQ(governor.threads(), 3);
    governor.end();
  }
}

// CPU times as /proc/stat and getrusage would count them on a two-CPU machine where this
// process keeps `own` CPUs busy, other processes `others`, and the rest is idle.
std::function<CpuTimes()> machine(const FakeClock& clock, double own, double others) {
  return [&clock, own, others] {
    const double t = clock.seconds;
    return CpuTimes{(2.0 - own - others) * t, (own + others) * t, own * t};
  };
}

// A quiet machine: two threads take 0.5 ms a unit, one thread 1 ms, and a CPU is idle. The
// governor starts with one thread, moves to two and stays there.
TEST(ThreadGovernor, AddsThreadsOnAQuietMachine) {
  FakeClock clock;
  ThreadGovernor governor = timed_by(clock, 2);
  governor.set_load_source(machine(clock, 1.0, 0.0));
  EXPECT_EQ(governor.threads(), 1);
  const double one = share_on_one_thread(
      governor, clock, 400, [](int threads, int) { return threads == 1 ? 1e-3 : 0.5e-3; });
  EXPECT_EQ(governor.threads(), 2);
  EXPECT_LT(one, 0.25) << "an epoch or two of one thread before the idle CPU shows, then two";
}

// CPU times on a sixteen-CPU machine where this process keeps its team busy and other processes
// `others` CPUs.
std::function<CpuTimes()> sixteen_cpus(const FakeClock& clock, const ThreadGovernor& governor,
                                       double others) {
  return [&clock, &governor, others] {
    const double t = clock.seconds, own = governor.threads();
    return CpuTimes{(16.0 - own - others) * t, (own + others) * t, own * t};
  };
}

// Sixteen CPUs: on a quiet machine one try goes from one thread to sixteen; next to a process
// that keeps eight busy, one try goes to eight (seven idle CPUs are enough for seven more
// threads, not for fifteen) and no further. Units take 2 ms divided by the threads. After the
// jump, the next smaller size is tried once (and loses).
TEST(ThreadGovernor, ClimbsToTheIdleCpusInOneTry) {
  const auto cost = [](int threads, int) { return 2e-3 / threads; };
  for (const double others : {0.0, 8.0}) {
    FakeClock clock;
    ThreadGovernor governor = timed_by(clock, 16);
    governor.set_load_source(sixteen_cpus(clock, governor, others));
    share_on_one_thread(governor, clock, 2000, cost);
    EXPECT_EQ(governor.threads(), others == 0.0 ? 16 : 8) << others << " CPUs busy";
    const std::vector<std::uint64_t>& units = governor.units_per_size();
    EXPECT_EQ(units[1] + (others == 0.0 ? units[2] : 0), 0u) << "climbed one step at a time";
    EXPECT_LT(units[others == 0.0 ? 3 : 2], 200u) << "one short try below the jump";
  }
}

// Sixteen idle CPUs and a mesh too small for them: barriers make large teams slow, and the best
// team lies in between. From one thread the governor jumps to sixteen (faster than one), then
// tries eight, four and two, and keeps four; where sixteen is slower than one, it steps up one
// size at a time instead, and keeps four there too.
TEST(ThreadGovernor, FindsTheBestTeamBetweenOneAndAll) {
  const std::vector<std::vector<double>> costs{// ms a unit at 1, 2, 4, 8 and 16 threads
                                               {4.0, 0.9, 0.6, 1.0, 2.0},
                                               {1.0, 0.5, 0.4, 0.9, 1.5}};
  for (const std::vector<double>& ms : costs) {
    FakeClock clock;
    ThreadGovernor governor = timed_by(clock, 16);
    governor.set_load_source(sixteen_cpus(clock, governor, 0.0));
    const auto cost = [&ms](int threads, int) {
      return 1e-3 * ms[static_cast<std::size_t>(std::log2(threads))];
    };
    share_on_one_thread(governor, clock, 5000, cost);
    EXPECT_EQ(governor.threads(), 4) << ms[0];
    EXPECT_GT(governor.units_per_size()[2], 4500u)
        << ms[0] << ": nine units in ten on four threads";
  }
}

// No CPU is idle (another process keeps one busy): a second thread is never tried.
TEST(ThreadGovernor, TriesNoLargerTeamWithoutIdleCpus) {
  FakeClock clock;
  ThreadGovernor governor = timed_by(clock, 2);
  governor.set_load_source(machine(clock, 1.0, 1.0));
  const double one = share_on_one_thread(governor, clock, 200, [](int, int) { return 0.5e-3; });
  EXPECT_EQ(one, 1.0);
}

// The other work comes and goes: while the governor runs one thread a CPU is idle, and while it
// runs two another process competes for them. Two threads take 0.3 ms a unit but stall 15 ms
// every fifth unit (a preempted team member); one thread takes 1 ms. The governor tries two
// threads, goes back to one and stays there.
TEST(ThreadGovernor, GoesBackToOneThreadWhenTheTeamStalls) {
  FakeClock clock;
  ThreadGovernor governor = timed_by(clock, 2);
  const std::function<CpuTimes()> quiet = machine(clock, 1.0, 0.0), busy = machine(clock, 1.5, 0.5);
  governor.set_load_source([&] { return governor.threads() == 1 ? quiet() : busy(); });
  const double one = share_on_one_thread(governor, clock, 400, [](int threads, int u) {
    if (threads == 1) return 1e-3;
    return u % 5 == 4 ? 15e-3 : 0.3e-3;
  });
  EXPECT_EQ(governor.threads(), 1);
  EXPECT_GT(one, 0.8);
  EXPECT_GT(governor.units_per_size()[1], 0u) << "two threads were never tried";
}

// A team chosen on a quiet machine, then another process starts and keeps a CPU busy. Two threads
// now stall (6 ms every fifth unit of 0.6 ms: 1.68 ms a unit on average) and one thread next to
// that process takes 1.6 ms, so a try of one thread would not win clearly, yet the stalling team
// also slows the other process. The governor gives the thread back at once and, with no CPU idle,
// keeps one thread.
TEST(ThreadGovernor, GivesAThreadBackWhenOtherWorkMakesTheTeamStall) {
  FakeClock clock;
  ThreadGovernor governor = timed_by(clock, 2);
  bool other = false;
  double idle = 0.0, busy = 0.0, own = 0.0, last = 0.0;
  governor.set_load_source([&] {
    const double dt = clock.seconds - last;
    last = clock.seconds;
    const double others = other ? 1.0 : 0.0;
    const double used = std::min(2.0, governor.threads() + others);
    idle += (2.0 - used) * dt;
    busy += used * dt;
    own += (used - others) * dt;
    return CpuTimes{idle, busy, own};
  });
  share_on_one_thread(governor, clock, 400,
                      [](int threads, int) { return threads == 1 ? 1e-3 : 0.5e-3; });
  ASSERT_EQ(governor.threads(), 2);
  other = true;
  const std::uint64_t before = governor.units_per_size()[0];
  share_on_one_thread(governor, clock, 800, [](int threads, int u) {
    if (threads == 1) return 1.6e-3;
    return u % 5 == 4 ? 6e-3 : 0.6e-3;
  });
  EXPECT_EQ(governor.threads(), 1);
  EXPECT_GT(static_cast<double>(governor.units_per_size()[0] - before) / 800.0, 0.95);
}

// The same stalls with no other process busy (a hypervisor taking the CPUs now and then): they
// hit one thread too, so the governor keeps two threads and never tries one.
TEST(ThreadGovernor, KeepsTheTeamThroughStallsWithoutOtherWork) {
  FakeClock clock;
  ThreadGovernor governor = timed_by(clock, 2);
  const std::function<CpuTimes()> quiet = machine(clock, 1.0, 0.0),
                                  alone = machine(clock, 2.0, 0.0);
  governor.set_load_source([&] { return governor.threads() == 1 ? quiet() : alone(); });
  share_on_one_thread(governor, clock, 400, [](int threads, int u) {
    if (threads == 1) return u % 5 == 4 ? 30e-3 : 0.6e-3;
    return u % 5 == 4 ? 15e-3 : 0.3e-3;
  });
  EXPECT_EQ(governor.threads(), 2);
}

// The team size changes after every iteration (1, 2, 3, 4, 1, ...) and the frames equal those
// of one thread bit for bit: PBD and XPBD with strain limiting, and self-collision (its sorts and
// scans run on the team too).
TEST(ThreadGovernor, ChangingTeamSizesGiveBitIdenticalFrames) {
  Scene pbd = testing::two_corner_scene();
  Scene xpbd = testing::two_corner_scene();
  xpbd.cloth.model = ClothModelKind::xpbd;
  xpbd.cloth.mass = MassModel::area;
  xpbd.cloth.max_strain = 0.05;
  for (const Scene& scene : {pbd, xpbd, testing::stacked_sheets(12, true)}) {
    const ClothModel cloth = build_cloth(scene);
    const PhysicsParams params = physics_params(scene);
    auto cycling = std::make_shared<ThreadGovernor>(ThreadGovernor::adaptive_up_to(4));
    cycling->force_cycling();
    auto one = make_cpu_solver(cloth, params, 1);
    auto changing = make_cpu_solver(cloth, params, cycling);
    std::vector<glm::dvec3> a, b;
    for (int f = 0; f < 6; ++f) {
      one->step_frame();
      changing->step_frame();
      one->copy_positions(a);
      changing->copy_positions(b);
      ASSERT_EQ(a, b) << "frame " << f + 1;
    }
    for (std::uint64_t units : cycling->units_per_size()) EXPECT_GT(units, 0u);
  }
}

}  // namespace
}  // namespace drape
