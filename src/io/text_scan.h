// Small helpers for the text parsers: whole-file reads and locale-free number parsing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace drape {

// Reads a whole file; InputError "PATH: cannot open: REASON" if it cannot.
std::string read_file(const std::string& path);

// Consumes leading spaces and tabs.
void skip_blanks(std::string_view& s);
// Consumes the next run of non-blank characters.
std::string_view next_token(std::string_view& s);

// Parse a whole token; false when it is not exactly one number.
bool parse_double(std::string_view token, double& out);
bool parse_int(std::string_view token, std::int64_t& out);

}  // namespace drape
