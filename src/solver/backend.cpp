// The one table of backend names.
#include "drape/backend.h"

#include <array>
#include <utility>

namespace drape {
namespace {

constexpr std::array<std::pair<Backend, std::string_view>, 3> kBackends{{
    {Backend::reference, "reference"},
    {Backend::cpu, "cpu"},
    {Backend::cuda, "cuda"},
}};

}  // namespace

const std::vector<Backend>& all_backends() {
  static const std::vector<Backend> backends = [] {
    std::vector<Backend> b;
    for (const auto& entry : kBackends) b.push_back(entry.first);
    return b;
  }();
  return backends;
}

std::string_view backend_name(Backend backend) {
  for (const auto& [id, name] : kBackends) {
    if (id == backend) return name;
  }
  return "unknown";
}

std::optional<Backend> find_backend(std::string_view name) {
  for (const auto& [id, known] : kBackends) {
    if (known == name) return id;
  }
  return std::nullopt;
}

std::string backend_names() {
  std::string names;
  for (const auto& entry : kBackends) {
    names += (names.empty() ? "" : ", ") + std::string(entry.second);
  }
  return names;
}

}  // namespace drape
