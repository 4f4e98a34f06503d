#include <cerrno>
#include <cstdio>
#include <cstring>

#include <unistd.h>

#include "drape/error.h"
#include "io/atomic_file.h"

namespace drape {

void write_file_atomically(const std::string& path, const std::string& bytes) {
  // The temporary lives beside the target so that rename() never crosses file systems.
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) throw RuntimeError(path + ": cannot write: " + std::strerror(errno));
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  int saved_errno = errno;
  const bool flushed = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  if (written && !flushed) saved_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !flushed || !closed) {
    std::remove(tmp.c_str());
    throw RuntimeError(path + ": cannot write: " + std::strerror(saved_errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    saved_errno = errno;
    std::remove(tmp.c_str());
    throw RuntimeError(path + ": cannot rename into place: " + std::strerror(saved_errno));
  }
}

}  // namespace drape
