#pragma once
// WB_CHECK: a throwing check that records where it failed, in the manner of tiny-cuda-nn's
// CHECK_THROW. Use it for invariants that callers could violate (shapes, indices), not for
// user-facing validation, which reports Diagnostics instead.
#include <stdexcept>
#include <string>

namespace rnnwb::detail {
[[noreturn]] void throwCheckFailure(const char* file, int line, const char* expr,
                                    const std::string& message);
}  // namespace rnnwb::detail

#define WB_CHECK(expr, message)                                                            \
  do {                                                                                     \
    if (!(expr)) ::rnnwb::detail::throwCheckFailure(__FILE__, __LINE__, #expr, (message)); \
  } while (false)
