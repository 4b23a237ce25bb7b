#include <cmath>
#include <cstdio>
#include <string>

#include "commands.h"

namespace tamsi::cli {
namespace {

/// A validator of a number read from `input` with `accept`, whose error (on one line, with the value as given) is
/// "must be <requirement>, got <input>".
template <class Accept>
CLI::Validator NumberValidator(const std::string& description, const std::string& requirement, Accept accept) {
  return CLI::Validator(
      [requirement, accept](std::string& input) -> std::string {
        double value = 0.0;
        std::size_t used = 0;
        try {
          value = std::stod(input, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != input.size() || used == 0) return "must be a number, got " + input;
        if (!std::isfinite(value) || !accept(value)) return "must be " + requirement + ", got " + input;
        return "";
      },
      description);
}

}  // namespace

CLI::Validator Positive() {
  return NumberValidator("POSITIVE", "finite and > 0", [](double x) { return x > 0; });
}

CLI::Validator NonNegative() {
  return NumberValidator("NONNEGATIVE", "finite and >= 0", [](double x) { return x >= 0; });
}

CLI::Validator AtMost(double bound) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", bound);
  return NumberValidator(std::string("<= ") + text, std::string("at most ") + text,
                         [bound](double x) { return x <= bound; });
}

}  // namespace tamsi::cli
