// Which pass writes a buffer row first in a chunk, so that it writes (= a, beta 0) instead of
// adding into a row cleared beforehand: clearing the sums and the gradients of every layer cost
// about 7 % of a chunk (docs/benchmarks.md), a whole write of each buffer that the first writer
// makes anyway. The first writer writes 0 + x (a product: beta 0), the floats of the add into
// zeros, a zero's sign included.
//
// Forward, a sum (with bias: below) and every z buffer:
// the external connections run first over all frames (node.external order), then the frame step
// (forwardSteps' order); every writer covers all frames of the chunk.
// Backward, a layer's dy: the later nodes' external passes (reverse schedule, node.external order)
// run before its own node's frame steps. An external pass with delay 0 covers all frames; one with
// delay d misses the last d, so such a layer is cleared. Inside a recurrent node, running from the
// last frame, a writer with delay d reaches row t at frame t + d: the writer with the largest delay
// d_max comes first (the earliest of those in backwardSteps' order), and only the last d_max frames
// (which no writer of that delay reaches) are cleared. Carried rows (frames before the chunk) are
// only ever written, never read; they are cleared so that they hold no stale values.
// The fused step and the unfused passes run their writers in the same order and both follow
// these flags, so they still give the same floats bit for bit.
#include <algorithm>
#include <utility>
#include <vector>

#include "cpu_engine.hpp"

namespace rnnwb {
namespace {

/// Calls visit(connection, element-wise) for a recurrent node's frame step writers of sums
/// (forward) in forwardSteps' order; a stacked group's connections each add their own columns
/// (element-wise), a lone full connection is a product.
template <typename Visit>
void forwardFrameWriters(const cpu::NodeOp& node, Visit visit) {
  const auto group = [&](const cpu::StackedGroup& g) {
    for (int c : g.connections) visit(c, g.connections.size() > 1);
  };
  for (const cpu::StackedGroup& g : node.delayedGroups) group(g);
  for (int c : node.delayedOther) visit(c, true);
  for (std::size_t p = 0; p < node.layers.size(); ++p) {
    for (const cpu::StackedGroup& g : node.zeroGroups[p]) group(g);
    for (int c : node.zeroOther[p]) visit(c, true);
  }
}

/// Calls visit(connections, from, delay) for each writer of a dy row in a recurrent node's backward
/// frame step, in backwardSteps' order; a stacked group is one writer (one product into dy).
template <typename Visit>
void backwardFrameWriters(const cpu::Program& program, const cpu::NodeOp& node, Visit visit) {
  const auto group = [&](const cpu::StackedGroup& g) { visit(g.connections, g.from, g.delay); };
  const auto other = [&](int c) {
    const cpu::ConnectionOp& op = program.connections[c];
    visit(std::vector<int>{c}, op.from, op.delay);
  };
  for (std::size_t p = node.layers.size(); p-- > 0;) {
    for (const cpu::StackedGroup& g : node.zeroGroups[p]) group(g);
    for (int c : node.zeroOther[p]) other(c);
  }
  for (const cpu::StackedGroup& g : node.delayedGroups) group(g);
  for (int c : node.delayedOther) other(c);
}

}  // namespace

void CpuBackend::Engine::planFirstWriters() {
  const auto& layers = m_plan.graph().layers;
  const std::size_t connectionCount = m_program.connections.size();
  m_overwritesForward.assign(connectionCount, 0);
  m_overwritesBackward.assign(connectionCount, 0);
  m_addsBiasFirst.assign(connectionCount, 0);
  m_sumNeedsInit.assign(layers.size(), 1);
  m_dyClearFrames.assign(layers.size(), -1);

  // Forward: each z buffer has exactly one writer; a sum without bias, its first. A sum with bias
  // whose second writer adds element-wise in the frame step: the first writes, the second adds
  // the bias first, (s + b) + x: the floats of b + s (a product's sums add C after the
  // accumulation), then + x. Other sums with bias start as the bias rows.
  std::vector<std::vector<std::pair<int, bool>>> writers(layers.size());  // (connection, in frame)
  for (const cpu::ConnectionOp& op : m_program.connections)
    if (op.zBuffer >= 0) m_overwritesForward[op.index] = 1;
  for (const cpu::NodeOp& node : m_program.nodes) {
    const auto add = [&](int c, bool elementWiseInFrame) {
      const cpu::ConnectionOp& op = m_program.connections[c];
      if (op.zBuffer < 0) writers[op.to].emplace_back(c, elementWiseInFrame);
    };
    for (int c : node.external) add(c, false);
    if (node.recurrent) forwardFrameWriters(node, add);
  }
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const auto& list = writers[l];
    if (list.empty()) continue;
    if (m_layout->layerBias(static_cast<int>(l))) {
      if (list.size() < 2 || !list[1].second) continue;
      m_addsBiasFirst[list[1].first] = 1;
    }
    m_overwritesForward[list[0].first] = 1;
    m_sumNeedsInit[l] = 0;
  }

  // Backward. Input layers' dy is never written nor read (clearGradients skips it); an mse
  // output's dy starts as y - target on the predicted frames only (every output's, as the
  // caller's gradients, under backwardFromOutputs), so it is cleared and every writer adds.
  m_firstWritersExternal = m_outputGradients != nullptr;
  std::vector<char> written(layers.size(), 0);
  for (std::size_t l = 0; l < layers.size(); ++l)
    written[l] = layers[l].isInput() || layers[l].loss == LossKind::Mse ||
                 (m_firstWritersExternal && layers[l].isOutput());
  for (std::size_t n = m_program.nodes.size(); n-- > 0;) {
    const cpu::NodeOp& node = m_program.nodes[n];
    if (layers[node.layers.front()].isInput()) continue;  // backwardNode skips it
    if (node.recurrent) {
      // Per source layer not yet written: the writer with the largest delay, the earliest of them.
      std::vector<int> bestDelay(layers.size(), -1);
      std::vector<std::vector<int>> best(layers.size());
      backwardFrameWriters(m_program, node, [&](const std::vector<int>& cs, int from, int delay) {
        if (written[from] || delay <= bestDelay[from]) return;
        bestDelay[from] = delay;
        best[from] = cs;
      });
      for (std::size_t l = 0; l < layers.size(); ++l) {
        if (bestDelay[l] < 0) continue;
        for (int c : best[l]) m_overwritesBackward[c] = 1;
        m_dyClearFrames[l] = bestDelay[l];
        written[l] = 1;
      }
    }
    for (int c : node.external) {
      const cpu::ConnectionOp& op = m_program.connections[c];
      if (written[op.from]) continue;
      written[op.from] = 1;
      if (op.delay > 0) continue;  // misses the last frames: cleared
      m_overwritesBackward[c] = 1;
      m_dyClearFrames[op.from] = 0;
    }
  }
}

void CpuBackend::Engine::clearGradients() {
  m_pool.run([&](int worker) {
    for (std::size_t l = 0; l < m_layers.size(); ++l) {
      LayerBuffers& b = m_layers[l];
      const int frames = m_dyClearFrames[l];
      // Input layers' dy is never touched; every other layer's carried rows are cleared, since
      // delayed writers add into them (nothing reads them, but stale sums would grow chunk by
      // chunk).
      if (b.size == 0 || m_plan.graph().layers[l].isInput()) continue;
      const std::size_t frameRows = static_cast<std::size_t>(m_streams);
      const std::size_t carriedRows = b.delay * frameRows;
      const std::size_t allRows = b.dy.size() / b.size;
      // The carried rows, then the last `frames` frames (or all of them).
      const std::size_t lastFrom =
          frames < 0 ? carriedRows : allRows - std::min(allRows - carriedRows, frames * frameRows);
      const auto clear = [&](std::size_t from, std::size_t to) {
        const auto [first, count] = part(static_cast<int>(to - from), worker);
        std::fill_n(b.dy.data() + (from + first) * b.size, static_cast<std::size_t>(count) * b.size,
                    0.0f);
      };
      clear(0, carriedRows);
      clear(lastFrom, allRows);
    }
  });
}

}  // namespace rnnwb
