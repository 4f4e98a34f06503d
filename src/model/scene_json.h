// Scene descriptions back to the scene file's JSON, beside the reader (scene.cpp) so that the two
// keep the same keys: a resumed run's fingerprint hashes this form, so a key added to the reader
// and not here would let a checkpoint of other settings be resumed (tests/model/test_scene.cpp
// reads every collider key back).
#pragma once

#include <nlohmann/json.hpp>

#include "drape/scene.h"

namespace drape {

// A collider entry of "colliders", every key written (defaults included); paths as resolved.
nlohmann::json collider_json(const ColliderDesc& collider);

}  // namespace drape
