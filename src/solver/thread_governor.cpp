#include "solver/thread_governor.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

namespace drape {
namespace {

// An epoch is at least kEpochUnits units and kEpochSeconds, or kLongEpochSeconds of heavy units
// (a large garment's iterations), so that a decision never waits for many seconds.
constexpr std::size_t kEpochUnits = 16;
constexpr double kEpochSeconds = 0.025, kLongEpochSeconds = 0.25;
// A size whose epoch mean was below this share of the current size's takes over.
constexpr double kSwitchRatio = 0.85;
// Units slower than kStallFactor times the epoch's median are stalls; when they take more than
// kStallShare of an epoch, a smaller team is tried.
constexpr double kStallFactor = 3.0, kStallShare = 0.2;
// An epoch this much slower than the baseline means the load changed.
constexpr double kJumpRatio = 2.0;
// Seconds before the first try of another size. A try that lost doubles the wait, which is also
// at least kCostFactor times the time the try lost, so trying costs at most about 1/kCostFactor
// of the run; the wait is capped so that a load that went away is noticed.
constexpr double kFirstWait = 0.05, kMaxWait = 10.0;
constexpr double kCostFactor = 30.0;
constexpr double kBaselineWeight = 0.25;
// From /proc/stat over windows of at least kLoadWindow seconds: a larger team is tried only when
// the CPUs it would add were idle (at least kIdleShare of each; trying a larger team on a machine
// without idle CPUs always loses), and a smaller one only when other processes kept at least
// kOtherShare of a CPU busy (stalls without other work come from the hypervisor or from
// interrupts, and hit one thread as much as a team).
constexpr double kLoadWindow = 0.03, kIdleShare = 0.5, kOtherShare = 0.25;

// CPUs allowed by a cgroup quota, or 0 when there is none.
int cgroup_quota_cpus() {
  double quota = -1.0, period = 0.0;
  std::ifstream v2("/sys/fs/cgroup/cpu.max");
  std::string max;
  if (v2 >> max >> period) {
    if (max == "max") return 0;
    quota = std::stod(max);
  } else {
    std::ifstream q("/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
    std::ifstream p("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
    if (!(q >> quota) || !(p >> period)) return 0;
  }
  if (quota <= 0.0 || period <= 0.0) return 0;
  return std::max(1, static_cast<int>(std::ceil(quota / period)));
}

using Clock = std::chrono::steady_clock;

Clock::time_point after(Clock::time_point now, double seconds) {
  return now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

CpuTimes cpu_times() {
  CpuTimes t;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return t;
  const long hz = sysconf(_SC_CLK_TCK);
  if (hz <= 0) return t;
  std::ifstream stat("/proc/stat");
  std::string line;
  double idle = 0.0, busy = 0.0;
  bool any = false;
  while (std::getline(stat, line) && line.compare(0, 3, "cpu") == 0) {
    if (line.size() < 4 || !std::isdigit(static_cast<unsigned char>(line[3]))) continue;
    std::istringstream in(line.substr(3));
    int cpu = 0;
    unsigned long long user = 0, nice = 0, system = 0, idle_ticks = 0, iowait = 0, irq = 0,
                       softirq = 0;
    if (!(in >> cpu >> user >> nice >> system >> idle_ticks >> iowait >> irq >> softirq)) continue;
    if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &set)) {
      idle += static_cast<double>(idle_ticks + iowait);
      busy += static_cast<double>(user + nice + system + irq + softirq);
      any = true;
    }
  }
  struct rusage own {};
  if (!any || getrusage(RUSAGE_SELF, &own) != 0) return t;
  const auto seconds = [](const timeval& v) {
    return static_cast<double>(v.tv_sec) + 1e-6 * static_cast<double>(v.tv_usec);
  };
  t.idle = idle / static_cast<double>(hz);
  t.busy = busy / static_cast<double>(hz);
  t.own = seconds(own.ru_utime) + seconds(own.ru_stime);
  return t;
}

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
  const int quota = cgroup_quota_cpus();
  if (quota > 0) cpus = std::min(cpus, quota);
  return std::max(1, cpus);
}

double ThreadGovernor::Epoch::stall_share() const {
  std::vector<double> sorted = units;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const double limit = kStallFactor * sorted[sorted.size() / 2];
  double stalled = 0.0;
  for (double u : units) stalled += u > limit ? u : 0.0;
  return seconds > 0.0 ? stalled / seconds : 0.0;
}

ThreadGovernor::ThreadGovernor(int fixed)
    : ThreadGovernor(fixed > 0 ? fixed : usable_cpus(), fixed <= 0) {}

ThreadGovernor ThreadGovernor::adaptive_up_to(int most) {
  return ThreadGovernor(most, true);
}

ThreadGovernor::ThreadGovernor(int most, bool adaptive) {
  if (adaptive) {
    for (int n = 1; n < most; n *= 2) m_sizes.push_back(n);
  }
  m_sizes.push_back(most);
  m_units.assign(m_sizes.size(), 0);
  // An adaptive governor starts with one thread and adds threads when CPUs are idle: starting
  // with a full team on a busy machine costs hundreds of milliseconds before the first epoch
  // shows it (the new workers' first time slices go to the other work).
  move_to(0, 0.0, 0);
  m_threads = m_sizes[0];
  m_epochs_here = 0;
  m_up_after = m_clock();
}

void ThreadGovernor::set_clock(std::function<std::chrono::steady_clock::time_point()> clock) {
  m_clock = std::move(clock);
  m_up_after = m_load_at = m_clock();
}

void ThreadGovernor::set_load_source(std::function<CpuTimes()> source) {
  m_load_source = std::move(source);
  m_load = m_load_source();
  m_load_at = m_clock();
}

void ThreadGovernor::begin() {
  m_threads = m_sizes[m_probing ? m_probe : m_current];
  if (adaptive()) m_start = m_clock();
}

void ThreadGovernor::end() {
  ++m_units[m_probing ? m_probe : m_current];
  if (!adaptive()) return;
  const double seconds = std::chrono::duration<double>(m_clock() - m_start).count();
  m_epoch.units.push_back(seconds);
  m_epoch.seconds += seconds;
  const std::size_t units = m_epoch.units.size();
  if (m_cycling) {
    close_epoch();
  } else if (m_probing) {
    // A try runs as many units as the last epoch at the current size, and stops as soon as it
    // can no longer win: a losing try costs at most about one epoch.
    const double budget = kSwitchRatio * m_baseline * static_cast<double>(m_baseline_units);
    if (units >= m_baseline_units || m_epoch.seconds > budget) close_epoch();
  } else if (m_epoch.seconds >= kLongEpochSeconds ||
             (m_epoch.seconds >= kEpochSeconds &&
              (units >= kEpochUnits || (units >= 4 && m_epoch.stall_share() > kStallShare)))) {
    close_epoch();
  }
}

void ThreadGovernor::close_epoch() {
  const Epoch epoch = std::move(m_epoch);
  m_epoch = Epoch{};
  if (m_cycling) {
    move_to((m_current + 1) % m_sizes.size(), epoch.mean(), epoch.units.size());
  } else if (m_probing) {
    finish_probe(epoch, epoch.units.size() == m_baseline_units);
  } else {
    const double mean = epoch.mean();
    if (m_epochs_here >= 4 && mean > kJumpRatio * m_baseline) {
      m_up_after = m_down_after = m_clock();
      m_up_limit = m_sizes.size() - 1;
    }
    m_baseline = m_epochs_here == 0 ? mean : m_baseline + kBaselineWeight * (mean - m_baseline);
    ++m_epochs_here;
    m_baseline_units = epoch.units.size();
    plan_next(epoch);
  }
  m_threads = m_sizes[m_probing ? m_probe : m_current];
}

// After an epoch at the current size: whether the next one tries another size.
void ThreadGovernor::plan_next(const Epoch& last) {
  const Clock::time_point now = m_clock();
  update_load(now);
  // A team that stalls next to other work gives a thread back at once: a try of the smaller team
  // would be timed next to that work, which the larger team slows too, and tends to lose.
  if (m_current > 0 && last.stall_share() > kStallShare && m_others >= kOtherShare) {
    step_down(now);
    return;
  }
  // A smaller team to refine down after a jump.
  const bool refine = m_current > m_refine_floor && m_epochs_here >= 1;
  if (m_current > 0 && now >= m_down_after && refine) {
    m_probe = m_current - 1;
    m_probing = true;
  } else if (m_current + 1 < m_sizes.size() && now >= m_up_after && m_epochs_here >= 1) {
    // The largest size (up to the limit) whose added CPUs were idle: a quiet 16-core machine goes
    // from 1 to 16 in one try.
    std::size_t target = m_current;
    for (std::size_t k = m_current + 1; k <= m_up_limit; ++k) {
      if (m_spare >= kIdleShare * (m_sizes[k] - m_sizes[m_current])) target = k;
    }
    if (target > m_current) {
      m_probe = target;
      m_probing = true;
    } else {
      m_up_after = after(m_clock(), kLoadWindow);
    }
  }
}

// Idle CPUs and CPUs busy with other work (of this process's affinity mask) over the window
// since the last sample, once that window is long enough to tell; both unbounded when
// /proc/stat cannot be read (then timing alone decides).
void ThreadGovernor::update_load(Clock::time_point now) {
  const double elapsed = std::chrono::duration<double>(now - m_load_at).count();
  if (elapsed < kLoadWindow) return;
  const CpuTimes t = m_load_source();
  if (t.idle < 0.0 || m_load.idle < 0.0) {
    m_spare = m_others = 1e9;
  } else {
    m_spare = (t.idle - m_load.idle) / elapsed;
    m_others = std::max(0.0, (t.busy - m_load.busy - (t.own - m_load.own)) / elapsed);
  }
  m_load = t;
  m_load_at = now;
}

void ThreadGovernor::finish_probe(const Epoch& epoch, bool whole) {
  m_probing = false;
  const double mean = epoch.mean();
  if (whole && mean < kSwitchRatio * m_baseline) {
    const std::size_t from = m_current;
    move_to(m_probe, mean, epoch.units.size());
    // Up past untried sizes: refine down toward them. One step up: nothing lies between. Down:
    // refining goes on while above the floor.
    if (m_current > from) m_refine_floor = m_current > from + 1 ? from + 1 : m_current;
    return;
  }
  const bool down = m_probe < m_current;
  if (down) {
    m_refine_floor = m_current;
  } else if (m_probe > m_current + 1) {
    // A jump past untried sizes lost: the next size up is tried at once.
    m_up_limit = m_current + 1;
    m_up_after = m_clock();
    return;
  }
  double& gap = down ? m_down_gap : m_up_gap;
  const double lost = epoch.seconds - m_baseline * static_cast<double>(epoch.units.size());
  gap = std::min(kMaxWait, std::max(2.0 * gap, kCostFactor * lost));
  (down ? m_down_after : m_up_after) = after(m_clock(), gap);
}

void ThreadGovernor::step_down(Clock::time_point now) {
  const double gap = std::min(kMaxWait, 2.0 * m_up_gap);
  move_to(m_current - 1, 0.0, 0);
  // The next epoch sets the baseline. A larger team is tried again only when CPUs are idle, after
  // twice the last wait; no smaller one is tried to refine.
  m_epochs_here = 0;
  m_refine_floor = m_current;
  m_up_gap = gap;
  m_up_after = after(now, gap);
}

void ThreadGovernor::move_to(std::size_t size, double mean, std::size_t units) {
  m_current = size;
  m_baseline = mean;
  m_baseline_units = units;
  m_epochs_here = 1;
  m_up_gap = m_down_gap = kFirstWait;
  m_up_limit = m_sizes.size() - 1;
  m_up_after = after(m_clock(), kFirstWait);
  m_down_after = m_clock();
  m_load = m_load_source();
  m_load_at = m_clock();
  m_spare = 0.0;
}

}  // namespace drape
