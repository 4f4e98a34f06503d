// The solver backends (README, "Backends"). Inside drape a backend is this enum; names appear only
// at the edges: the scene file, the command line, stats.json and the Python module.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace drape {

enum class Backend {
  reference,  // serial, double precision: the spec's algorithm in its order
  cpu,        // graph-coloured Gauss-Seidel, float32, on host threads
  cuda,       // the same colours and kernels on an NVIDIA GPU
};

// Every backend, in the order above.
const std::vector<Backend>& all_backends();

// "reference", "cpu", "cuda".
std::string_view backend_name(Backend backend);

// The backend of that name, or nothing.
std::optional<Backend> find_backend(std::string_view name);

// The names joined for messages: "reference, cpu, cuda".
std::string backend_names();

}  // namespace drape
