// Fabric presets in SI units (sources in material.cpp and the README).
#pragma once

#include <optional>
#include <string>

#include "drape/scene.h"

namespace drape {

// The preset of this name, if there is one.
std::optional<Material> find_material(const std::string& name);

// The preset names joined for messages ("cotton, denim, ...").
std::string material_names();

}  // namespace drape
