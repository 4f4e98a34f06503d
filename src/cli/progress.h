// A one-line progress bar on stderr: frame k/N, ms/frame, ETA.
#pragma once

#include <chrono>

namespace drape::cli {

class Progress {
 public:
  explicit Progress(bool enabled) : m_enabled(enabled) {}
  void update(int frame, int frames);
  void finish();

 private:
  bool m_enabled;
  bool m_drawn = false;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point m_last_draw{};
};

}  // namespace drape::cli
