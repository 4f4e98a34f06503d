// Resuming killed runs: bit-identical frames after SIGKILL at random moments, foreign checkpoints
// refused.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_run.h"
#include "collision/collider.h"
#include "drape/mesh.h"
#include "io/cache.h"
#include "io/render.h"
#include "model/primitives.h"
#include "solver/solver.h"

namespace drape {
namespace {

namespace fs = std::filesystem;
using namespace testing;  // cli/cli_run.h: run_drape, Result, slurp, count_files, kSmallScene

// Runs drape in `dir` and sends it SIGKILL once the cache holds `kill_at` .ply frames, after a
// random extra delay so that the kill lands anywhere in the next frame's work or writes. Returns
// the exit code, or -1 when it was killed.
int run_and_kill(const testing::TempDir& dir, const std::vector<std::string>& args,
                 std::size_t kill_at, int delay_us) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.path().c_str()) != 0) _exit(127);
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    std::vector<char*> argv{const_cast<char*>(DRAPE_EXE)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(DRAPE_EXE, argv.data());
    _exit(127);
  }
  const auto frames = [&] {
    std::size_t n = 0;
    if (fs::exists(dir.file("out"))) {
      for (const auto& e : fs::directory_iterator(dir.file("out"))) {
        n += e.path().extension() == ".ply";
      }
    }
    return n;
  };
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (frames() >= kill_at) {
      usleep(static_cast<useconds_t>(delay_us));
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return WIFSIGNALED(status) ? -1 : WEXITSTATUS(status);
    }
    usleep(500);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Kills runs with SIGKILL at random moments and resumes them until one finishes: every frame must
// equal, byte for byte, the frame of an uninterrupted run on the same backend.
void expect_resume_is_seamless(const std::string& backend) {
  testing::TempDir dir;
  dir.write("scene.json", R"({"frames": 40, "solver": {"substeps": 6, "iterations": 10},
    "cloth": {"mesh": {"grid": {"resolution": [40, 40], "size": [1, 1], "center": [0, 1, 0]}},
              "pins": [0, 39]},
    "colliders": [{"sphere": {"center": [0, 0.5, 0], "radius": 0.3}, "motion": [
      {"time": 0, "translate": [0, 0, 0]}, {"time": 1, "translate": [0.2, 0, 0]}]}],
    "output": {"dir": "out", "name": "c"}})");
  const std::string flags = " --backend " + backend + " --quiet";
  ASSERT_EQ(run_drape(dir, "simulate scene.json -o whole" + flags).code, 0);
  std::mt19937 rng(static_cast<unsigned>(backend.size()));
  std::uniform_int_distribution<std::size_t> ahead(1, 8);
  std::uniform_int_distribution<int> delay_us(0, 20000);
  const std::vector<std::string> args{"simulate",  "scene.json", "--resume",
                                      "--backend", backend,      "--quiet"};
  int kills = 0, code = -1;
  for (int attempt = 0; attempt < 100 && code != 0; ++attempt) {
    std::size_t written = 0;
    if (fs::exists(dir.file("out"))) {
      for (const auto& e : fs::directory_iterator(dir.file("out"))) {
        written += e.path().extension() == ".ply";
      }
    }
    code = run_and_kill(dir, args, written + ahead(rng), delay_us(rng));
    kills += code != 0;
  }
  ASSERT_EQ(code, 0) << "the run never finished";
  EXPECT_GE(kills, 3) << "too few interruptions to test anything";
  ::testing::Test::RecordProperty("kills_" + backend, kills);
  for (int frame = 0; frame <= 40; ++frame) {
    ASSERT_EQ(slurp(frame_path(dir.file("whole"), "c", frame, "ply")),
              slurp(frame_path(dir.file("out"), "c", frame, "ply")))
        << backend << ", frame " << frame;
  }
  for (const auto& e : fs::directory_iterator(dir.file("out"))) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  }
}

TEST(Cli, ResumeAfterSigkillIsBitIdenticalOnCpu) {
  expect_resume_is_seamless("cpu");
}
TEST(Cli, ResumeAfterSigkillIsBitIdenticalOnReference) {
  expect_resume_is_seamless("reference");
}

TEST(Cli, ResumeRefusesAForeignCheckpoint) {
  testing::TempDir dir;
  dir.write("scene.json", kSmallScene);
  ASSERT_EQ(run_drape(dir, "simulate scene.json --keep-checkpoint --quiet").code, 0);
  // Another wind, fabric, strain limit or seam each make the checkpoint foreign.
  Result r;
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"\"wind\": [0, 0, 1]", "\"wind\": [0, 0, 2]"},
           {"\"pins\": [0, 5]", "\"pins\": [0, 5], \"model\": \"xpbd\""},
           {"\"pins\": [0, 5]", "\"pins\": [0, 5], \"max_strain\": 0.1"},
           {"\"pins\": [0, 5]", "\"pins\": [0, 5], \"stitches\": [[7, 8]]"},
           {"\"pins\": [0, 5]}",
            "\"pins\": [0, 5], \"attach\": [{\"collider\": 0, \"vertices\": [9]}]}, "
            "\"colliders\": [{\"sphere\": {\"radius\": 0.1}}]"}}) {
    std::string other = kSmallScene;
    other.replace(other.find(from), from.size(), to);
    dir.write("scene.json", other);
    r = run_drape(dir, "simulate scene.json --resume --quiet");
    EXPECT_EQ(r.code, 2) << to;
    EXPECT_NE(r.err.find("sheet.checkpoint: written by a different scene"), std::string::npos)
        << r.err;
  }
  dir.write("out/sheet.checkpoint", "DRAPECK1 truncated");
  r = run_drape(dir, "simulate scene.json --resume --quiet");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("damaged checkpoint"), std::string::npos) << r.err;
}

// A kept checkpoint lets a finished run be extended: its frames equal a longer run's.
TEST(Cli, AKeptCheckpointExtendsAFinishedRun) {
  testing::TempDir dir;
  dir.write("scene.json", kSmallScene);
  ASSERT_EQ(run_drape(dir, "simulate scene.json -o straight --frames 6 --quiet").code, 0);
  ASSERT_EQ(run_drape(dir, "simulate scene.json --keep-checkpoint --quiet").code, 0);
  ASSERT_TRUE(fs::exists(dir.file("out/sheet.checkpoint")));
  const Result r = run_drape(dir, "simulate scene.json --resume --frames 6");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("resumed from frame 3"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir.file("out/sheet.checkpoint")));
  for (int f = 0; f <= 6; ++f) {
    char name[32];
    std::snprintf(name, sizeof name, "sheet.%04d.ply", f);
    EXPECT_EQ(slurp(dir.file(std::string("out/") + name)),
              slurp(dir.file(std::string("straight/") + name)))
        << name;
  }
}

}  // namespace
}  // namespace drape
