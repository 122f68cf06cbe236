// CpuBackendOptions::interleavedSums: the sums and sum gradients of the layers one stacked group
// feeds (an LSTM's i, f, g, o from h(t-1)) as column blocks of one [T, N, width] buffer, and the
// program rewritten to use it. Every rewrite keeps the floats: each output element of a merged
// product is the same dot product as before (the same inner dimension and terms), and the gates'
// ds read in place are the rows that the removed copies made.
//
// - The forward step: a stacked group's product adds into the interleaved sums in place, instead
//   of into a workspace whose columns each gate then adds (or adds as it activates).
// - The backward step: a stacked group's product from the workspace, whose columns were copies
//   of the gates' ds, reads the interleaved ds in place (one copy per gate and frame less).
// - All frames: the products from one source into every layer of a buffer (x -> i, f, g, o),
//   whose weights lie one after the other, become one product [T N, in] x [in, width].
// - The gradients: the weight gradients of one source into every layer of a buffer become one
//   product dW[width, in] = ds^T x, as do the stacked group's own.
#include <algorithm>
#include <utility>

#include "cpu_engine.hpp"
#include "rnnwb/core/engine/engine_program.hpp"

namespace rnnwb {
namespace {

/// Where each layer's sums are: its interleaved buffer (-1: its own) and column; per buffer, its
/// layers in column order and its width.
struct SumPlaces {
  std::vector<int> buffer, column;
  std::vector<std::vector<int>> layers;
  std::vector<int> width;
  /// The buffer of a reference to `kind` rows of a layer (Sum or SumGrad, unshifted), or -1.
  int bufferOf(const op::Ref& ref, op::Buffer kind) const {
    const bool sums = ref.buffer == kind && ref.shift == 0 && ref.shiftY == 0 &&
                      ref.route == op::Route::Direct && ref.index >= 0;
    return sums ? buffer[ref.index] : -1;
  }
  /// The reference to the sums (kind) of layer k of `sums`.
  op::Ref member(int sums, std::size_t k, op::Buffer kind) const {
    return {kind, layers[sums][k], 0};
  }
};

/// Whether an op between two points reads or writes `sum`.
bool touches(const op::Op& op, const op::Ref& sum) {
  return op.dst == sum || op.a == sum || op.b == sum;
}

/// The forward step: a stacked product into the workspace, whose columns each layer of a buffer
/// then adds into its sum (or adds as it activates, y = f(s + x)), adds into the interleaved sums
/// in place (beta 1: fl(s + x) either way). Only where every sum was written before (an Assign
/// of the columns would keep a zero's sign, which a product does not).
void writeSumsInPlace(std::vector<op::Op>& ops, const SumPlaces& places) {
  for (std::size_t p = 0; p < ops.size(); ++p) {
    op::Op& product = ops[p];
    if (product.kind != op::Kind::Product || product.dst.buffer != op::Buffer::Stack ||
        product.beta != 0.0f)
      continue;
    const int column = product.dst.index;
    // Per layer of the buffer, the op that takes its columns from the workspace.
    std::vector<std::size_t> consumers;
    int sums = -1;
    for (std::size_t i = p + 1; i < ops.size(); ++i) {
      const op::Op& op = ops[i];
      const bool add = op.kind == op::Kind::Add && op.a.buffer == op::Buffer::Stack;
      const bool addActivate =
          op.kind == op::Kind::AddActivate && !op.weights && op.b.buffer == op::Buffer::Stack;
      if (!add && !addActivate) continue;
      const op::Ref& sum = add ? op.dst : op.a;
      const int at = (add ? op.a : op.b).index;
      if (at < column || at >= column + product.units) continue;
      if (sums < 0) sums = places.bufferOf(sum, op::Buffer::Sum);
      if (sums < 0 || places.bufferOf(sum, op::Buffer::Sum) != sums ||
          at != column + places.column[sum.index])
        break;
      consumers.push_back(i);
    }
    if (sums < 0 || places.width[sums] != product.units ||
        consumers.size() != places.layers[sums].size())
      continue;
    // Nothing else may read or write a sum between the product and the op that takes its columns.
    bool inPlace = true;
    for (std::size_t consumer : consumers) {
      const op::Op& op = ops[consumer];
      const op::Ref sum = op.kind == op::Kind::Add ? op.dst : op.a;
      for (std::size_t i = p + 1; i < consumer && inPlace; ++i) inPlace = !touches(ops[i], sum);
    }
    if (!inPlace) continue;
    product.dst = places.member(sums, 0, op::Buffer::Sum);
    product.beta = 1.0f;
    for (auto it = consumers.rbegin(); it != consumers.rend(); ++it) {
      op::Op& op = ops[*it];
      if (op.kind == op::Kind::Add) {
        ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(*it));
        continue;
      }
      op.kind = op::Kind::Activate;  // y = f(s), s now holding s + x
      op.b = {};
    }
  }
}

/// The backward step's stacked products read the gates' ds in place of the copies just before.
void readSumGradsInPlace(std::vector<op::Op>& ops, const SumPlaces& places) {
  for (std::size_t p = 0; p < ops.size(); ++p) {
    op::Op& product = ops[p];
    if (product.kind != op::Kind::Product || product.a.buffer != op::Buffer::Stack) continue;
    const int column = product.a.index;
    std::size_t first = p;
    while (first > 0 && ops[first - 1].kind == op::Kind::Copy &&
           ops[first - 1].dst.buffer == op::Buffer::Stack)
      --first;
    if (first == p) continue;
    const int sums = places.bufferOf(ops[first].a, op::Buffer::SumGrad);
    if (sums < 0 || places.width[sums] != product.inner || p - first != places.layers[sums].size())
      continue;
    bool inPlace = true;  // copy k: layer k's ds into the workspace at its column in the buffer
    for (std::size_t k = 0; k < p - first && inPlace; ++k) {
      const op::Op& copy = ops[first + k];
      const int layer = places.layers[sums][k];
      inPlace = copy.a == places.member(sums, k, op::Buffer::SumGrad) &&
                copy.dst.index == column + places.column[layer];
    }
    if (!inPlace) continue;
    product.a = places.member(sums, 0, op::Buffer::SumGrad);
    ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(first),
              ops.begin() + static_cast<std::ptrdiff_t>(p));
    p = first;
  }
}

/// Whether `next` is `first`'s product (or weight gradient) for layer k of `sums`: the same
/// source and inner size, its weights right after the previous layer's.
bool continuesProduct(const op::Op& first, const op::Op& next, const op::Ref& target,
                      std::int64_t columnOffset) {
  const bool weightGradient = first.kind == op::Kind::WeightGradient;
  const op::Ref& nextTarget = weightGradient ? next.a : next.dst;
  const op::Ref& source = weightGradient ? first.b : first.a;
  const op::Ref& nextSource = weightGradient ? next.b : next.a;
  return next.kind == first.kind && nextTarget == target && nextSource == source &&
         source.route == op::Route::Direct && next.inner == first.inner &&
         next.beta == first.beta && next.transposeWeights == first.transposeWeights &&
         next.ldw == first.ldw && next.weights == first.weights + columnOffset * first.inner;
}

/// All frames: consecutive products from one source into each layer of a buffer, in column
/// order, weights W [units, in] one after the other: one product into the whole buffer.
void mergeSumProducts(std::vector<op::Op>& ops, const SumPlaces& places) {
  for (std::size_t p = 0; p < ops.size(); ++p) {
    op::Op& first = ops[p];
    const int sums = places.bufferOf(first.dst, op::Buffer::Sum);
    if (first.kind != op::Kind::Product || sums < 0 || !first.transposeWeights ||
        first.ldw != first.inner || first.dst != places.member(sums, 0, op::Buffer::Sum))
      continue;
    const std::size_t members = places.layers[sums].size();
    bool merges = p + members <= ops.size();
    for (std::size_t k = 1; k < members && merges; ++k)
      merges = continuesProduct(first, ops[p + k], places.member(sums, k, op::Buffer::Sum),
                                places.column[places.layers[sums][k]]);
    if (!merges) continue;
    first.units = places.width[sums];
    ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(p + 1),
              ops.begin() + static_cast<std::ptrdiff_t>(p + members));
  }
}

/// The gradients: the weight gradients of one source into each layer of a buffer, weights one
/// after the other, as one. Each writes its own weights, so their order does not matter.
void mergeWeightGradients(std::vector<op::Op>& ops, const SumPlaces& places) {
  for (std::size_t p = 0; p < ops.size(); ++p) {
    op::Op& first = ops[p];
    const int sums = places.bufferOf(first.a, op::Buffer::SumGrad);
    if (first.kind != op::Kind::WeightGradient || sums < 0 ||
        first.a != places.member(sums, 0, op::Buffer::SumGrad))
      continue;
    std::vector<std::size_t> others;
    const std::size_t members = places.layers[sums].size();
    for (std::size_t k = 1; k < members; ++k) {
      const op::Ref target = places.member(sums, k, op::Buffer::SumGrad);
      const std::int64_t column = places.column[places.layers[sums][k]];
      const auto next = std::find_if(
          ops.begin() + static_cast<std::ptrdiff_t>(p + 1), ops.end(),
          [&](const op::Op& op) { return continuesProduct(first, op, target, column); });
      if (next == ops.end()) break;
      others.push_back(static_cast<std::size_t>(next - ops.begin()));
    }
    if (others.size() + 1 != members) continue;
    first.units = places.width[sums];
    std::sort(others.rbegin(), others.rend());
    for (std::size_t at : others) ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(at));
  }
}

}  // namespace

void CpuBackend::Engine::planInterleavedSums() {
  const cpu::Program lowered = cpu::lowerPlan(m_plan, *m_layout);
  const auto& layers = m_plan.graph().layers;
  const auto interleaves = [&](const cpu::StackedGroup& group) {
    if (group.connections.size() < 2) return false;
    std::vector<int> targets;
    for (int index : group.connections) {
      const cpu::ConnectionOp& c = lowered.connections[index];
      const LayerBuffers& target = m_layers[c.to];
      const bool ownSums = layers[c.to].kind == LayerKind::Additive && !target.sumIsOutput &&
                           layers[c.to].loss == LossKind::None && target.interleaved < 0;
      if (c.zBuffer >= 0 || !ownSums || c.rows != target.size) return false;
      if (std::find(targets.begin(), targets.end(), c.to) != targets.end()) return false;
      targets.push_back(c.to);
    }
    return true;
  };
  for (const cpu::NodeOp& node : lowered.nodes) {
    if (!node.recurrent) continue;
    std::vector<const cpu::StackedGroup*> groups;
    for (const cpu::StackedGroup& group : node.delayedGroups) groups.push_back(&group);
    for (const auto& position : node.zeroGroups)
      for (const cpu::StackedGroup& group : position) groups.push_back(&group);
    for (const cpu::StackedGroup* group : groups) {
      if (!interleaves(*group)) continue;
      InterleavedSums sums;
      for (int index : group->connections) {
        const int layer = lowered.connections[index].to;
        m_layers[layer].interleaved = static_cast<int>(m_interleaved.size());
        m_layers[layer].column = sums.width;
        sums.layers.push_back(layer);
        sums.width += m_layers[layer].size;
      }
      // Rows 4 KiB apart (an LSTM's four gates of 256) fall into the same cache sets: the weight
      // gradients' products, which read a column block of every row, took 19 ms of a 53 ms
      // chunk instead of 16 in one measurement (not kept), and 11 against 11 with the padding.
      sums.stride = sums.width % 256 == 0 ? sums.width + 16 : sums.width;
      m_interleaved.push_back(std::move(sums));
    }
  }
}

void CpuBackend::Engine::interleaveProgram() {
  if (m_interleaved.empty()) return;
  SumPlaces places;
  for (const LayerBuffers& layer : m_layers) {
    places.buffer.push_back(layer.interleaved);
    places.column.push_back(layer.column);
  }
  for (const InterleavedSums& sums : m_interleaved) {
    places.layers.push_back(sums.layers);
    places.width.push_back(sums.width);
  }
  for (op::NodeProgram& node : m_program.nodes) {
    writeSumsInPlace(node.forwardStep, places);
    readSumGradsInPlace(node.backwardStep, places);
    mergeSumProducts(node.forwardAll, places);
    mergeWeightGradients(node.gradients, places);
  }
}

float* CpuBackend::Engine::interleavedRow(int layer, std::ptrdiff_t row, bool gradient) {
  const LayerBuffers& b = m_layers[layer];
  InterleavedSums& sums = m_interleaved[b.interleaved];
  std::vector<float>& buffer = gradient ? sums.ds : sums.s;
  if (buffer.empty()) return nullptr;  // no backward yet: no ds
  return buffer.data() + row * sums.stride + b.column;
}

}  // namespace rnnwb
