#pragma once
// Counter-based randomness for the tasks: every sequence is drawn from a generator seeded by
// (run seed, purpose, stream, sequence index), so the data a step sees depends only on the frame
// counter. A checkpoint therefore needs no generator state beyond the data cursor, and resuming
// draws exactly the data an uninterrupted run would have drawn.
#include <cstdint>

#include "rnnwb/core/connection_mask.hpp"

namespace rnnwb::train {

/// Mixes a list of 64-bit words into one seed (SplitMix64 finalizer after each word).
inline std::uint64_t mixSeed(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0,
                             std::uint64_t d = 0) {
  SplitMix64 g(a);
  std::uint64_t s = g.next() ^ b;
  g = SplitMix64(s);
  s = g.next() ^ c;
  g = SplitMix64(s);
  s = g.next() ^ d;
  g = SplitMix64(s);
  return g.next();
}

/// A small generator with uniform floats and integers whose results are the same on every
/// platform (the std:: distributions are implementation-defined, so they are not used).
class SequenceRandom {
 public:
  explicit SequenceRandom(std::uint64_t seed) : m_generator(seed) {}
  /// Uniform in [0, 1) with 24 random bits: exactly representable as a float.
  float nextFloat() { return static_cast<float>(m_generator.next() >> 40) * 0x1.0p-24f; }
  /// Uniform integer in [0, n), n >= 1 (Lemire's multiply-shift; bias below 2^-32 for n < 2^32).
  int nextBelow(int n) {
    const std::uint64_t r = m_generator.next() >> 32;
    return static_cast<int>((r * static_cast<std::uint64_t>(n)) >> 32);
  }

 private:
  SplitMix64 m_generator;
};

}  // namespace rnnwb::train
