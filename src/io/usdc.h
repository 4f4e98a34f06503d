// Binary USD (crate, .usdc) from the assembled text cache, converted by Pixar's own library: the
// usd-core package's Python module, run as a child process (DRAPE_PYTHON, default python3).
#pragma once

#include <string>

namespace drape {

// RuntimeError, before anything is simulated, when the interpreter cannot import pxr.
void require_usd_python();

// Writes `usdc` (whole: a temporary NAME.tmpPID.usdc, then renamed) from the layer `usda`.
void convert_to_usdc(const std::string& usda, const std::string& usdc);

}  // namespace drape
