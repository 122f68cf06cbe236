#pragma once
// oneDNN's own recurrent cells (libdnnl 2.6.3: LSTM, LSTM with peepholes, GRU, vanilla RNN with
// tanh), forward for training and backward over one chunk, with random arguments: what
// bench_onednn_rnn times against the engine's recurrent node of the same cell (issue 13 asks
// whether they win on the benchmark's shapes).
#include <string>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

namespace rnnwb::engine_bench {

enum class OnednnCell { Lstm, PeepholeLstm, Gru, Vanilla };

/// "lstm", "peephole", "gru", "vanilla"; throws std::invalid_argument naming the choices.
OnednnCell onednnCellNamed(const std::string& name);
const char* onednnCellName(OnednnCell cell);

struct OnednnCellShape {
  int frames = 64, streams = 32, input = 128, hidden = 256;
};

using OnednnArguments = std::unordered_map<int, dnnl::memory>;

/// The cell's forward (training) and backward primitives with their arguments: the weights in the
/// layouts the primitives choose (reordered once for the backward, as a trainer would keep them),
/// random values in [-0.1, 0.1].
struct OnednnCellPrimitives {
  dnnl::primitive forward, backward;
  OnednnArguments forwardArguments, backwardArguments;
};

OnednnCellPrimitives makeOnednnCell(OnednnCell cell, const OnednnCellShape& shape,
                                    const dnnl::engine& engine, dnnl::stream& stream);

}  // namespace rnnwb::engine_bench
