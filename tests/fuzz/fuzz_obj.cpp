// libFuzzer target: the OBJ reader, then preprocessing and colouring of whatever it accepts.
#include <cstddef>
#include <cstdint>
#include <string>

#include "drape/error.h"
#include "drape/mesh.h"
#include "model/topology.h"
#include "solver/colouring.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const drape::TriMesh mesh =
        drape::parse_obj(std::string(reinterpret_cast<const char*>(data), size), "fuzz.obj");
    const drape::Topology topology = drape::build_topology(mesh.positions, mesh.triangles);
    drape::colour_cloth(topology, mesh.positions.size());
  } catch (const drape::InputError&) {
  }
  return 0;
}
