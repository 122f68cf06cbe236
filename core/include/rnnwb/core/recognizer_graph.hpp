#pragma once
// The word recogniser of "No Padding Please" (Fig. 1) as one graph of format version 2, made by
// a generator so that any sizes and any cell can be tried (`rnnwb new mdlstm`): an input block
// layer, then per stage a four-direction layer of the cell and a block-strided layer, the last
// stage summed over the rows into a fully connected softmax layer with the ctc loss.
#include <array>
#include <string>
#include <vector>

#include "rnnwb/core/graph.hpp"

namespace rnnwb {

/// A block-strided layer: `outputs` tanh units over each [bx, by] block of its source.
struct RecognizerBlock {
  int bx = 2, by = 2;
  int outputs = 4;
};

struct RecognizerGraphOptions {
  std::string name = "mdlstm-words";
  /// The cell: a 2-D graph with one input and one output layer. Its other layers (all of one
  /// size) are the cell, copied once per direction and stage at the stage's size; the output
  /// layer's anterior connections name the cell's output state (their source).
  Graph cell;
  std::vector<int> sizes{2, 10, 50};  // units per direction, one per stage
  /// The block-strided layers before each stage (one per stage): the input block first.
  std::vector<RecognizerBlock> blocks{{2, 2, 4}, {2, 2, 6}, {1, 2, 20}};
  int classes = 53;  // the alphabet and the blank (class 0)
};

/// The four scan directions in the generated ids: "ff" (x forward, y forward), "bf", "fb", "bb".
/// A direction flips the sign of each delay component whose letter is "b".
inline constexpr std::array<const char*, 4> kRecognizerDirections = {"ff", "bf", "fb", "bb"};

/// The recogniser graph. Throws std::invalid_argument naming what is wrong with the options
/// (a cell that is not 2-D, has not exactly one input and one output layer, layers of several
/// sizes, sizes and blocks of different counts).
Graph makeRecognizerGraph(const RecognizerGraphOptions& options);

/// "2x2:4,2x2:6,1x2:20" (bx x by : outputs) to blocks; throws std::invalid_argument.
std::vector<RecognizerBlock> parseRecognizerBlocks(const std::string& text);

}  // namespace rnnwb
