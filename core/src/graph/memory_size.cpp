#include "rnnwb/core/memory_size.hpp"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <new>
#include <stdexcept>
#include <string_view>

namespace rnnwb {

std::string formatBytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes);
  int u = 0;
  while (value >= 1024 && u < 5) value /= 1024, ++u;
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", value, units[u]);
  return text;
}

std::uint64_t parseBytes(const std::string& text) {
  static const std::map<std::string, double> units = {
      {"", 1},         {"b", 1},      {"k", 0x1p10},   {"kib", 0x1p10}, {"m", 0x1p20},
      {"mib", 0x1p20}, {"g", 0x1p30}, {"gib", 0x1p30}, {"t", 0x1p40},   {"tib", 0x1p40},
      {"kb", 1e3},     {"mb", 1e6},   {"gb", 1e9},     {"tb", 1e12}};
  const char* begin = text.c_str();
  char* end = nullptr;
  const double number = std::strtod(begin, &end);
  // Decimal only: strtod also reads "0x10" (hexadecimal), "inf" and "nan".
  const std::string_view digits(begin, static_cast<std::size_t>(end - begin));
  const bool decimal =
      !digits.empty() &&
      (std::isdigit(static_cast<unsigned char>(digits.front())) || digits.front() == '.') &&
      digits.find_first_not_of("0123456789.eE+-") == std::string_view::npos;
  std::string unit;
  for (const char* c = end; *c; ++c)
    if (!std::isspace(static_cast<unsigned char>(*c)))
      unit += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
  const auto found = units.find(unit);
  if (!decimal || found == units.end() || !std::isfinite(number) || number < 0 ||
      number * found->second >= 0x1p64)
    throw std::invalid_argument("'" + text +
                                "' is not a size (write it as 512, 64 KiB, 1.5 GiB or 300 MB)");
  return static_cast<std::uint64_t>(std::llround(number * found->second));
}

std::uint64_t physicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize);
}

std::optional<std::uint64_t> checkedProduct(std::initializer_list<std::uint64_t> factors) {
  std::uint64_t product = 1;
  for (std::uint64_t f : factors)
    if (__builtin_mul_overflow(product, f, &product)) return std::nullopt;
  return product;
}

void requireMemory(std::optional<std::uint64_t> bytes, const std::string& what) {
  const std::uint64_t available = physicalMemoryBytes();
  if (bytes && (available == 0 || *bytes <= available)) return;
  const std::string need = bytes ? formatBytes(*bytes) + " (" + std::to_string(*bytes) + " bytes)"
                                 : std::string("more bytes than 64 bits can count");
  throw std::length_error(what + " would take " + need + ", more than the " +
                          formatBytes(available) + " of memory this machine has");
}

std::string exceptionMessage(const std::exception& e) {
  const std::string_view what = e.what();
  // libstdc++'s length_error texts for a size past max_size(): "cannot create std::vector larger
  // than max_size()", "vector::reserve", "vector::_M_default_append", "basic_string::_M_create".
  const bool libraryLength = dynamic_cast<const std::length_error*>(&e) &&
                             (what.starts_with("cannot create std::") ||
                              what.starts_with("vector::") || what.starts_with("basic_string::"));
  if (!dynamic_cast<const std::bad_alloc*>(&e) && !libraryLength) return std::string(what);
  const std::uint64_t memory = physicalMemoryBytes();
  return "out of memory: a memory allocation failed (" + std::string(what) + ")" +
         (memory ? " on this machine of " + formatBytes(memory) : std::string()) +
         "; smaller sizes need less (for training: fewer streams, a shorter h, a smaller batch "
         "or smaller layers; `rnnwb budget` shows what a run holds)";
}

}  // namespace rnnwb
