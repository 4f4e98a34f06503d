// libFuzzer target: the scene reader and, for generated grids of modest size, building the cloth.
#include <cstddef>
#include <cstdint>
#include <string>

#include "drape/error.h"
#include "drape/scene.h"
#include "model/cloth.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const drape::Scene scene =
        drape::parse_scene(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    // Files are not read (the fuzzer's inputs name none that exist); big grids are legal but slow.
    if (scene.cloth.grid &&
        static_cast<long long>(scene.cloth.grid->nx) * scene.cloth.grid->nz <= 4096) {
      drape::build_cloth(scene);
    }
  } catch (const drape::InputError&) {
  }
  return 0;
}
