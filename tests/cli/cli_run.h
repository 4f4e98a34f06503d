// Running the drape command in a test: its exit code and output, and small files to feed it.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_util.h"

namespace drape::testing {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs drape in `dir`; `wrapper` (e.g. "timeout -s KILL 0.2") goes before the command.
inline Result run_drape(const TempDir& dir, const std::string& args,
                        const std::string& wrapper = "") {
  const std::string cmd = "cd '" + dir.path() + "' && " + wrapper + " '" DRAPE_EXE "' " + args +
                          " >stdout.txt 2>stderr.txt";
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir.file("stdout.txt"));
  r.err = slurp(dir.file("stderr.txt"));
  fs::remove(dir.file("stdout.txt"));
  fs::remove(dir.file("stderr.txt"));
  return r;
}

inline std::size_t count_files(const std::string& folder) {
  if (!fs::exists(folder)) return 0;
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(folder)) n += e.is_regular_file();
  return n;
}

constexpr const char* kSmallScene = R"({
  "frames": 3, "solver": {"substeps": 2, "iterations": 4}, "wind": [0, 0, 1],
  "cloth": {"mesh": {"grid": {"resolution": [6, 5], "size": [1, 1], "center": [0, 1, 0]}},
            "pins": [0, 5]},
  "output": {"dir": "out", "name": "sheet", "formats": ["ply", "obj"]}
})";

}  // namespace drape::testing
