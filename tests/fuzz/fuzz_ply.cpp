// libFuzzer target: the PLY reader (ASCII and binary), then preprocessing of what it accepts.
#include <cstddef>
#include <cstdint>
#include <string>

#include "drape/error.h"
#include "drape/mesh.h"
#include "model/topology.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const drape::TriMesh mesh =
        drape::parse_ply(std::string(reinterpret_cast<const char*>(data), size), "fuzz.ply");
    drape::build_topology(mesh.positions, mesh.triangles);
  } catch (const drape::InputError&) {
  }
  return 0;
}
