#include "cli/progress.h"

#include <cstdio>
#include <string>

namespace drape::cli {

void Progress::update(int frame, int frames) {
  if (!m_enabled || frames <= 0) return;
  const auto now = std::chrono::steady_clock::now();
  // Redraw at most ten times a second, and always on the last frame.
  if (frame < frames && now - m_last_draw < std::chrono::milliseconds(100)) return;
  m_last_draw = now;
  const double elapsed = std::chrono::duration<double>(now - m_start).count();
  const double ms_per_frame = 1000.0 * elapsed / frame;
  const int eta = static_cast<int>(ms_per_frame * (frames - frame) / 1000.0 + 0.5);
  constexpr int width = 30;
  const int filled = width * frame / frames;
  const std::string bar = std::string(filled, '#') + std::string(width - filled, '.');
  std::fprintf(stderr, "\r[%s] frame %d/%d  %.1f ms/frame  ETA %d:%02d ", bar.c_str(), frame,
               frames, ms_per_frame, eta / 60, eta % 60);
  std::fflush(stderr);
  m_drawn = true;
}

void Progress::finish() {
  if (m_drawn) std::fputc('\n', stderr);
  m_drawn = false;
}

}  // namespace drape::cli
