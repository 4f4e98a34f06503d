#include "io/text_scan.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "drape/error.h"

namespace drape {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(path + ": cannot read");
  return std::move(buffer).str();
}

static bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

void skip_blanks(std::string_view& s) {
  std::size_t i = 0;
  while (i < s.size() && is_blank(s[i])) ++i;
  s.remove_prefix(i);
}

std::string_view next_token(std::string_view& s) {
  skip_blanks(s);
  std::size_t i = 0;
  while (i < s.size() && !is_blank(s[i])) ++i;
  std::string_view token = s.substr(0, i);
  s.remove_prefix(i);
  return token;
}

bool parse_double(std::string_view token, double& out) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  const char* end = token.data() + token.size();
  auto [ptr, ec] = std::from_chars(token.data(), end, out);
  return ec == std::errc() && ptr == end && !token.empty();
}

bool parse_int(std::string_view token, std::int64_t& out) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  const char* end = token.data() + token.size();
  auto [ptr, ec] = std::from_chars(token.data(), end, out);
  return ec == std::errc() && ptr == end && !token.empty();
}

}  // namespace drape
