#pragma once
// The figures of spec/packing.md for a list of examples split into consecutive batches.
#include <map>
#include <span>
#include <string>
#include <vector>

#include "rnnwb/core/packing/packed_layout.hpp"

namespace rnnwb::packing {

struct PackerCells {
  long long packed = 0;        // sum over batches of H x Wp
  long long packedSkewed = 0;  // sum over batches of H x Ws
};

struct PackingFigures {
  long long examples = 0;
  long long batches = 0;
  long long real = 0;                          // sum of h_i w_i
  long long lmbr = 0;                          // sum over batches of B_b max h max w
  long long lmbrSkewed = 0;                    // sum over batches of B_b max h (max w + max h - 1)
  PackerCells baseline;                        // the spec's packed / packed_skewed
  std::map<std::string, PackerCells> packers;  // every packer by name, "baseline" included
};

/// Splits `sizes` into consecutive batches of `batchSize` (the last may be smaller) and packs
/// each with every packer in `packerNames` (the baseline always). rowWidth: 0 = per batch the
/// widest example; > 0 fixes W for every batch (an example wider is an error naming its index).
PackingFigures computeFigures(std::span<const ExampleSize> sizes, int batchSize, int rowWidth,
                              const std::vector<std::string>& packerNames);

}  // namespace rnnwb::packing
