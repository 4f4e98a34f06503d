// Files written whole: a reader sees the old file, or none, or the complete new one.
#pragma once

#include <string>

namespace drape {

// Writes to a temporary file beside `path` (PATH.tmpPID), then renames it. Throws RuntimeError on
// failure and leaves nothing behind.
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace drape
