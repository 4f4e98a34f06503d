#include "io/usdc.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "drape/error.h"

extern char** environ;

namespace drape {
namespace {

std::string python() {
  const char* chosen = std::getenv("DRAPE_PYTHON");
  return chosen != nullptr && *chosen != '\0' ? chosen : "python3";
}

// Runs python -c CODE ARGS...; returns its exit status (127 when it cannot be started).
// `quiet` sends its output to /dev/null.
int run_python(const std::string& code, const std::vector<std::string>& args, bool quiet) {
  const std::string interpreter = python();
  std::vector<std::string> words{interpreter, "-c", code};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  }
  pid_t pid = 0;
  const int spawned =
      posix_spawnp(&pid, interpreter.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return 127;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace

void require_usd_python() {
  if (run_python("import pxr.Sdf", {}, true) != 0) {
    throw RuntimeError("--format usdc: the binary USD is written by Pixar's USD library, and " +
                       python() +
                       " cannot import it (pip install usd-core, or set DRAPE_PYTHON to a Python "
                       "that has it)");
  }
}

void convert_to_usdc(const std::string& usda, const std::string& usdc) {
  const std::string stem = usdc.substr(0, usdc.size() - 5);  // without ".usdc"
  const std::string temporary = stem + ".tmp" + std::to_string(::getpid()) + ".usdc";
  const char* code =
      "import sys\n"
      "from pxr import Sdf\n"
      "layer = Sdf.Layer.FindOrOpen(sys.argv[1])\n"
      "sys.exit(0 if layer is not None and layer.Export(sys.argv[2]) else 1)\n";
  const int status = run_python(code, {usda, temporary}, false);
  std::error_code ec;
  if (status == 0) std::filesystem::rename(temporary, usdc, ec);
  if (status != 0 || ec) {
    std::filesystem::remove(temporary, ec);
    throw RuntimeError(usdc + ": Pixar's USD library could not convert " + usda + " (" + python() +
                       " exited with " + std::to_string(status) + ")");
  }
}

}  // namespace drape
