// How many host threads the `cpu` backend uses, decided while it runs.
//
// A coloured solve passes a barrier after every colour batch: thousands a frame. When another
// process holds a core, the thread of the team that shares it is preempted now and then, and at
// every barrier the whole team waits for it, so N threads can be several times slower than one.
// Most iterations still run at full speed; a few stall for a scheduler time slice or more, and
// the stalls are the cost. The governor therefore times solver iterations in epochs (at least 16
// iterations and 25 ms, or 0.25 s) and compares epoch means. It starts with one thread and tries
// the largest team whose added CPUs were idle (/proc/stat) for one epoch. When stalls take a large
// share of an epoch while other processes keep CPUs busy, it moves to the next smaller team at
// once, without a try: timed next to that work, which the larger team slows too, a try tends to
// lose (stalls with no other work come from a hypervisor or interrupts and hit one thread as much
// as a team, so they change nothing). A try that lost makes it wait longer before the next (trying
// costs a few percent at most), and after a larger team lost, the next try is the next size up. A
// size whose epoch was clearly faster takes over; from there the largest idle team is tried first
// again, and after a jump past untried sizes (1 to 16) the next smaller ones are tried down to the
// first that loses: on many cores a small mesh's barriers cost more than the last threads gain, and
// its best team lies in between. A batch's split across threads never changes its result, so the
// output is the same bit for bit whatever sizes the governor picks.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace drape {

// CPUs this process may run on: its affinity mask, capped by a cgroup CPU quota (v2 cpu.max or
// v1 cfs_quota_us / cfs_period_us), at least 1.
int usable_cpus();
// CPU time so far, seconds: of the CPUs in this process's affinity mask, idle (/proc/stat's idle
// and iowait) and busy (user, nice, system, irq, softirq: not steal), and this process's own
// (getrusage). idle < 0 when /proc/stat cannot be read.
struct CpuTimes {
  double idle = -1.0, busy = 0.0, own = 0.0;
};
CpuTimes cpu_times();

class ThreadGovernor {
 public:
  // fixed > 0: always that many threads (an explicit --threads). 0: adaptive, from one thread up
  // to usable_cpus().
  explicit ThreadGovernor(int fixed);
  // Adaptive up to `most` threads, whatever this machine has (tests).
  static ThreadGovernor adaptive_up_to(int most);

  // Threads for the work that runs now.
  int threads() const { return m_threads; }
  // The most threads it may use.
  int max_threads() const { return m_sizes.back(); }
  bool adaptive() const { return m_sizes.size() > 1; }

  // Brackets one timed unit of work (a solver iteration).
  void begin();
  void end();

  // Units run at each size of sizes(), for benchmarks and tests.
  const std::vector<std::uint64_t>& units_per_size() const { return m_units; }
  const std::vector<int>& sizes() const { return m_sizes; }
  // Tests: epochs of one unit, and every epoch moves to the next size in turn.
  void force_cycling() { m_cycling = true; }
  // Tests: where CPU times are read from (default cpu_times), and the clock units are timed
  // with (default steady_clock::now; set it before the load source).
  void set_load_source(std::function<CpuTimes()> source);
  void set_clock(std::function<std::chrono::steady_clock::time_point()> clock);

 private:
  struct Epoch {
    std::vector<double> units;
    double seconds = 0.0;
    double mean() const { return seconds / static_cast<double>(units.size()); }
    double stall_share() const;
  };
  ThreadGovernor(int most, bool adaptive);
  void close_epoch();
  void finish_probe(const Epoch& epoch, bool whole);
  void plan_next(const Epoch& last);
  void move_to(std::size_t size, double mean, std::size_t units);

  using Clock = std::chrono::steady_clock;
  void step_down(Clock::time_point now);
  void update_load(Clock::time_point now);

  std::vector<int> m_sizes;  // 1, 2, 4, ... up to the maximum, which is always included
  std::size_t m_current = 0, m_probe = 0;
  bool m_probing = false, m_cycling = false;
  int m_threads = 1;
  Epoch m_epoch;
  double m_baseline = 0.0;  // mean unit time at the current size, smoothed over epochs
  int m_epochs_here = 0;
  std::size_t m_baseline_units = 0;  // units in the last epoch at the current size
  // Earliest times of the next try of a smaller and of a larger team, and the current waits.
  Clock::time_point m_up_after, m_down_after;
  // The largest size the next try of a larger team may take, and the smallest that a try of the
  // next smaller size may refine down to (quiet machine, no stalls).
  std::size_t m_up_limit = 0, m_refine_floor = 0;
  double m_up_gap = 0.0, m_down_gap = 0.0;
  // The last sample of the CPU times, when it was taken, and the idle CPUs and CPUs busy with
  // other work over the window before it.
  std::function<CpuTimes()> m_load_source = cpu_times;
  CpuTimes m_load;
  Clock::time_point m_load_at;
  double m_spare = 0.0, m_others = 1e9;
  Clock::time_point m_start;
  std::vector<std::uint64_t> m_units;
  std::function<Clock::time_point()> m_clock = Clock::now;
};

}  // namespace drape
