// Error types. Library code throws; only main() turns them into exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace drape {

// Bad input from the user: a file, a scene key or a command-line flag. The message has the form
// "FILE[:LINE]: what is wrong" so that `drape: error: ` + message is one complete line. Exit 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failure while running on valid input: I/O, a missing device, a diverging solve. Exit 1.
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace drape
