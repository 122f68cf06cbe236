// The engine's activation loops (sigmoid and tanh of a sum, as the fused step runs them) built for
// AVX2 + FMA (x86-64-v3) and for AVX-512 (x86-64-v4), the clones RNNWB_VECTOR_CLONES gives the
// element-wise kernels (core/src/engine/cpu_engine.hpp), timed in one process in alternating
// rounds, with the engine's -fno-trapping-math. Also checks that both clones give the same floats.
// One JSON line on the standard output (docs/benchmarks.md, issue 28).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_help.hpp"
#include "engine_bench_support.hpp"
#include "rnnwb/core/engine/activation_math.hpp"

namespace {

const char* const kUsage =
    "Usage: bench_activation_clones [--streams N] [--hidden H] [--rounds R]\n"
    "  sigmoid of 3 gates and tanh of 2 rows of N x H floats (an LSTM frame), x86-64-v3 against\n"
    "  x86-64-v4, alternating R rounds; prints medians in microseconds and whether the floats "
    "match.\n";

using Out = float* __restrict;
using In = const float* __restrict;

#define RNNWB_ACTIVATION_BODY                                                  \
  for (int i = 0; i < sigmoids; ++i) y[i] = rnnwb::math::sigmoid(s[i] + x[i]); \
  for (int i = sigmoids; i < total; ++i) y[i] = rnnwb::math::tanhApprox(s[i] + x[i]);

__attribute__((target("arch=x86-64-v3"), noinline)) void activateV3(Out y, In s, In x, int sigmoids,
                                                                    int total) {
  RNNWB_ACTIVATION_BODY
}

__attribute__((target("arch=x86-64-v4"), noinline)) void activateV4(Out y, In s, In x, int sigmoids,
                                                                    int total) {
  RNNWB_ACTIVATION_BODY
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (answersBenchHelp(argc, argv, kUsage)) return 0;
  int streams = 32, hidden = 256, rounds = 40;
  std::string label;  // parseBenchOptions' --label, unused here
  if (!rnnwb::engine_bench::parseBenchOptions(
          argc, argv, 1, label,
          {{"--streams", &streams}, {"--hidden", &hidden}, {"--rounds", &rounds}}))
    return 2;
  if (streams < 1 || hidden < 1 || rounds < 1) {
    std::fprintf(stderr,
                 "bench_activation_clones: --streams, --hidden and --rounds must be >= 1\n");
    return 2;
  }
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    std::fprintf(stderr, "bench_activation_clones: this processor has no AVX2 + FMA\n");
    return 1;
  }
  const bool haveV4 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  const int sigmoids = 3 * streams * hidden, total = 5 * streams * hidden;
  std::vector<float> s(total), x(total), y3(total), y4(total);
  for (int i = 0; i < total; ++i) {  // sums from -3.3 to 3.5, a few near 0 (tanh's series)
    s[i] = static_cast<float>(i % 97) * 0.07f - 3.3f;
    x[i] = static_cast<float>(i % 13) * 0.01f;
  }
  using Clock = std::chrono::steady_clock;
  constexpr int kCallsPerRound = 100;
  std::vector<double> v3, v4;
  for (int round = 0; round < rounds; ++round)
    for (int clone = 0; clone < (haveV4 ? 2 : 1); ++clone) {
      const auto start = Clock::now();
      for (int k = 0; k < kCallsPerRound; ++k)
        (clone ? activateV4 : activateV3)(clone ? y4.data() : y3.data(), s.data(), x.data(),
                                          sigmoids, total);
      const double us =
          std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kCallsPerRound;
      (clone ? v4 : v3).push_back(us);
    }
  if (!haveV4) {
    std::printf("{\"streams\": %d, \"hidden\": %d, \"v3_us\": %.3f, \"v4\": \"no AVX-512\"}\n",
                streams, hidden, median(v3));
    return 0;
  }
  const bool same = std::memcmp(y3.data(), y4.data(), sizeof(float) * y3.size()) == 0;
  std::printf(
      "{\"streams\": %d, \"hidden\": %d, \"rounds\": %d, \"v3_us\": %.3f, \"v4_us\": %.3f, "
      "\"v3_over_v4\": %.3f, \"same_floats\": %s}\n",
      streams, hidden, rounds, median(v3), median(v4), median(v3) / median(v4),
      same ? "true" : "false");
  return same ? 0 : 1;
}
