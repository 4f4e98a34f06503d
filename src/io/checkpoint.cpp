#include "io/checkpoint.h"

#include <cstring>
#include <fstream>

#include "drape/error.h"
#include "io/atomic_file.h"
#include "io/text_scan.h"

namespace drape {

namespace {

constexpr char kMagic[8] = {'D', 'R', 'A', 'P', 'E', 'C', 'K', '2'};
constexpr char kEnd[4] = {'E', 'N', 'D', '!'};

template <class T>
void put(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& path) : m_bytes(bytes), m_path(path) {}

  template <class T>
  T get() {
    if (m_bytes.size() - m_pos < sizeof(T)) fail();
    T value;
    std::memcpy(&value, m_bytes.data() + m_pos, sizeof(T));
    m_pos += sizeof(T);
    return value;
  }

  void expect(const char* tag, std::size_t size) {
    if (m_bytes.size() - m_pos < size || std::memcmp(m_bytes.data() + m_pos, tag, size) != 0)
      fail();
    m_pos += size;
  }

  std::size_t remaining() const { return m_bytes.size() - m_pos; }

  [[noreturn]] void fail() const {
    throw InputError(m_path + ": damaged checkpoint (delete it to start the run over)");
  }

 private:
  const std::string& m_bytes;
  const std::string& m_path;
  std::size_t m_pos = 0;
};

void put_vectors(std::string& out, const std::vector<glm::dvec3>& v) {
  for (const glm::dvec3& p : v) {
    put(out, p.x);
    put(out, p.y);
    put(out, p.z);
  }
}

std::vector<glm::dvec3> get_vectors(Reader& in, std::uint64_t n) {
  if (in.remaining() / (3 * sizeof(double)) < n) in.fail();
  std::vector<glm::dvec3> v(n);
  for (glm::dvec3& p : v) {
    p.x = in.get<double>();
    p.y = in.get<double>();
    p.z = in.get<double>();
  }
  return v;
}

}  // namespace

std::uint64_t fingerprint_bytes(const void* data, std::size_t size, std::uint64_t seed) {
  std::uint64_t h = seed ^ 1469598103934665603ull;
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  std::string out(kMagic, sizeof kMagic);
  put(out, c.fingerprint);
  put(out, static_cast<std::int32_t>(c.state.frame));
  put(out, static_cast<std::int64_t>(c.state.substeps));
  put(out, static_cast<std::uint64_t>(c.state.positions.size()));
  put_vectors(out, c.state.positions);
  put_vectors(out, c.state.velocities);
  put(out, static_cast<std::uint64_t>(c.state.stats.size()));
  for (const FrameStats& s : c.state.stats) {
    put(out, static_cast<std::int32_t>(s.frame));
    put(out, s.strain.max);
    put(out, s.strain.mean);
    put(out, s.penetrations);
    put(out, s.self_intersections);
    put(out, s.self_contacts);
    put(out, s.ms);
  }
  out.append(kEnd, sizeof kEnd);
  write_file_atomically(path, out);
}

std::optional<Checkpoint> read_checkpoint(const std::string& path) {
  if (!std::ifstream(path)) return std::nullopt;
  const std::string bytes = read_file(path);
  Reader in(bytes, path);
  in.expect(kMagic, sizeof kMagic);
  Checkpoint c;
  c.fingerprint = in.get<std::uint64_t>();
  c.state.frame = in.get<std::int32_t>();
  c.state.substeps = in.get<std::int64_t>();
  const auto n = in.get<std::uint64_t>();
  c.state.positions = get_vectors(in, n);
  c.state.velocities = get_vectors(in, n);
  const auto frames = in.get<std::uint64_t>();
  if (in.remaining() / 52 < frames) in.fail();
  for (std::uint64_t i = 0; i < frames; ++i) {
    FrameStats s;
    s.frame = in.get<std::int32_t>();
    s.strain.max = in.get<double>();
    s.strain.mean = in.get<double>();
    s.penetrations = in.get<std::uint64_t>();
    s.self_intersections = in.get<std::uint64_t>();
    s.self_contacts = in.get<std::uint64_t>();
    s.ms = in.get<double>();
    c.state.stats.push_back(s);
  }
  in.expect(kEnd, sizeof kEnd);
  if (c.state.frame < 0 || c.state.stats.size() != static_cast<std::size_t>(c.state.frame) + 1)
    in.fail();
  return c;
}

}  // namespace drape
