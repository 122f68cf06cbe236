// The passes over the op program (op_passes.hpp).
//
// First writers, forward: a sum and every factor buffer. Each factor has exactly one writer. A
// sum without bias: its first writer writes. A sum with bias whose second writer adds
// element-wise in the frame step: the first writes and the second adds the bias first,
// (s + b) + x: the floats of b + s (a product's sums add C after the accumulation), then + x.
// Other sums with bias keep their Fill with the bias.
// Backward, a layer's dy: the later nodes' external passes (reverse schedule, in order) run
// before its own node's frame steps. An external pass with delay 0 covers all frames; one with
// delay d misses the last d, so such a layer is cleared. Inside a recurrent node, running from the
// last frame, a writer with delay d reaches row t at frame t + d: the writer with the largest delay
// d_max comes first (the earliest of those in step order), and only the last d_max frames (which no
// writer of that delay reaches) are cleared. Carried rows (frames before the chunk) are only
// written, never read; they are cleared so that they hold no stale values.
#include "rnnwb/core/engine/op_passes.hpp"

#include <map>
#include <set>
#include <utility>

namespace rnnwb::op {
namespace {

/// The op writes its destination instead of adding into it.
void makeFirstWriter(Op& op) {
  switch (op.kind) {
    case Kind::Add:
      op.kind = Kind::Assign;
      break;
    case Kind::AddScaled:
      op.kind = Kind::AssignScaled;
      break;
    case Kind::AddComplement:
      op.kind = Kind::AssignComplement;
      break;
    case Kind::Subtract:
      op.kind = Kind::AssignNegated;
      break;
    case Kind::MulAdd:
      op.kind = Kind::MulAssign;
      break;
    case Kind::Product:
      op.beta = 0.0f;
      break;
    default:
      break;
  }
}

bool isTerm(const Op& op) {
  return op.kind == Kind::Add || op.kind == Kind::AddScaled || op.kind == Kind::AddComplement ||
         op.kind == Kind::Product;
}

/// A connection's term into its target's sum (not into a factor, nor the stack).
bool writesSum(const Op& op) {
  return op.connection >= 0 && isTerm(op) &&
         (op.dst.buffer == Buffer::Sum || op.dst.buffer == Buffer::Value) &&
         op.dst.index == op.layer && op.dst.shift == 0;
}

struct Writer {
  Op* op = nullptr;
  bool elementWiseInFrame = false;
};

/// The edits of the forward pass, applied once all are known (pointers stay valid until then).
struct ForwardEdits {
  std::set<const Op*> drop;
  std::map<const Op*, Op> insertBefore;
  void apply(std::vector<Op>& ops) const {
    std::vector<Op> out;
    out.reserve(ops.size() + insertBefore.size());
    for (const Op& op : ops) {
      if (drop.count(&op)) continue;
      const auto it = insertBefore.find(&op);
      if (it != insertBefore.end()) out.push_back(it->second);
      out.push_back(op);
    }
    ops = std::move(out);
  }
};

void forwardFirstWriters(Program& program, const ParameterLayout& layout, int layerCount) {
  std::vector<std::vector<Writer>> writers(layerCount);
  std::vector<const Op*> sumFill(layerCount, nullptr);
  ForwardEdits edits;
  for (NodeProgram& node : program.nodes) {
    for (Op& op : node.forwardAll) {
      if (op.kind == Kind::Fill && op.dst.buffer == Buffer::Factor) edits.drop.insert(&op);
      if (op.kind == Kind::Fill && op.connection < 0) sumFill[op.layer] = &op;
      if (op.dst.buffer == Buffer::Factor && isTerm(op)) makeFirstWriter(op);
      if (writesSum(op)) writers[op.layer].push_back({&op, false});
    }
    for (Op& op : node.forwardStep) {
      if (op.dst.buffer == Buffer::Factor && isTerm(op)) makeFirstWriter(op);
      if (writesSum(op)) writers[op.layer].push_back({&op, op.kind != Kind::Product});
    }
  }
  for (int layer = 0; layer < layerCount; ++layer) {
    const std::vector<Writer>& list = writers[layer];
    if (list.empty() || !sumFill[layer]) continue;
    if (layout.layerBias(layer)) {
      if (list.size() < 2 || !list[1].elementWiseInFrame) continue;
      Op bias;
      bias.kind = Kind::Add;
      bias.units = list[1].op->units;
      bias.dst = list[1].op->dst;
      bias.a = {Buffer::Bias, layer, 0};
      bias.layer = layer;
      edits.insertBefore[list[1].op] = bias;
    }
    makeFirstWriter(*list[0].op);
    edits.drop.insert(sumFill[layer]);
  }
  for (NodeProgram& node : program.nodes) {
    edits.apply(node.forwardAll);
    edits.apply(node.forwardStep);
  }
}

void backwardFirstWriters(Program& program, const CompiledPlan& plan, bool externalGradients) {
  const auto& layers = plan.graph().layers;
  const int layerCount = static_cast<int>(layers.size());
  program.gradientClearFrames.assign(layerCount, -1);
  // Input layers' dy is never written nor read; an mse output's dy starts as y - target on the
  // predicted frames only (every output's as the caller's gradients, under externalGradients):
  // it is cleared, and every writer adds.
  std::vector<char> written(layerCount, 0);
  for (int l = 0; l < layerCount; ++l)
    written[l] = layers[l].isInput() || layers[l].loss == LossKind::Mse ||
                 (externalGradients && layers[l].isOutput());
  for (std::size_t n = program.nodes.size(); n-- > 0;) {
    NodeProgram& node = program.nodes[n];
    if (!node.computes) continue;
    if (node.recurrent) {
      // Per source layer not yet written: the writer with the largest delay, the earliest of them.
      std::vector<int> bestDelay(layerCount, -1);
      std::vector<Op*> best(layerCount, nullptr);
      for (Op& op : node.backwardStep) {
        if (op.dst.buffer != Buffer::ValueGrad) continue;
        const int from = op.dst.index;
        if (written[from] || op.dst.shift <= bestDelay[from]) continue;
        bestDelay[from] = op.dst.shift;
        best[from] = &op;
      }
      for (int l = 0; l < layerCount; ++l) {
        if (!best[l]) continue;
        makeFirstWriter(*best[l]);
        program.gradientClearFrames[l] = bestDelay[l];
        written[l] = 1;
      }
    }
    for (Op& op : node.backwardExternal) {
      const int from = op.dst.index;
      if (written[from]) continue;
      written[from] = 1;
      if (op.dst.shift > 0) continue;  // misses the last frames: cleared
      makeFirstWriter(op);
      program.gradientClearFrames[from] = 0;
    }
  }
}

bool foldsIntoActivation(Activation activation) {
  return activation == Activation::Sigmoid || activation == Activation::Tanh ||
         activation == Activation::Relu;
}

/// Folds the add before ops[at] (an Activate) into it, when that add is the last write of the
/// sum since the last product and nothing in between reads the sum.
void foldInto(std::vector<Op>& ops, std::size_t at) {
  Op& activate = ops[at];
  for (std::size_t i = at; i-- > 0;) {
    const Op& op = ops[i];
    if (op.kind == Kind::Product) return;  // another block
    if (op.a == activate.a || op.b == activate.a) return;
    if (op.dst != activate.a) continue;
    const bool scaled = op.kind == Kind::AddScaled || op.kind == Kind::AssignScaled;
    const bool add = op.kind == Kind::Add || op.kind == Kind::AddScaled;
    const bool assign = op.kind == Kind::Assign || op.kind == Kind::AssignScaled;
    if (!add && !assign) return;
    activate.kind = Kind::AddActivate;
    if (assign) activate.a = {Buffer::Zero, -1, 0};  // y = f(0 + x): the sum is not stored
    activate.b = op.a;
    activate.weights = scaled ? op.weights : -1;
    ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(i));
    return;
  }
}

}  // namespace

void readIdentityFactorsInPlace(Program& program, const CompiledPlan& plan) {
  const auto& connections = plan.graph().connections;
  for (Factor& factor : program.factors)
    factor.readsSource = connections[factor.connection].type == ConnectionType::Identity;
  const auto inPlace = [&](const Ref& ref) {
    return ref.buffer == Buffer::Factor && program.factors[ref.index].readsSource;
  };
  const auto replace = [&](Ref& ref) {
    if (inPlace(ref)) ref = program.factors[ref.index].source;
  };
  const auto rewrite = [&](std::vector<Op>& ops, bool forward) {
    std::vector<Op> out;
    out.reserve(ops.size());
    for (Op op : ops) {
      // Forward, the factor's fill and its one term go: nothing is copied.
      if (forward && inPlace(op.dst)) continue;
      replace(op.a);
      replace(op.b);
      out.push_back(op);
    }
    ops = std::move(out);
  };
  for (NodeProgram& node : program.nodes) {
    rewrite(node.forwardAll, true);
    rewrite(node.forwardStep, true);
    rewrite(node.backwardAll, false);
    rewrite(node.backwardStep, false);
  }
}

void planFirstWriters(Program& program, const CompiledPlan& plan, const ParameterLayout& layout,
                      bool externalOutputGradients) {
  forwardFirstWriters(program, layout, static_cast<int>(plan.graph().layers.size()));
  backwardFirstWriters(program, plan, externalOutputGradients);
}

void foldLastAdds(Program& program, const CompiledPlan& plan) {
  const auto& layers = plan.graph().layers;
  for (NodeProgram& node : program.nodes) {
    std::vector<Op>& ops = node.forwardStep;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      if (op.kind != Kind::Activate || !foldsIntoActivation(op.activation)) continue;
      const Layer& spec = layers[op.layer];
      if (spec.kind != LayerKind::Additive || spec.loss != LossKind::None) continue;
      const std::size_t before = ops.size();
      foldInto(ops, i);
      if (ops.size() < before) --i;  // an op before it went
    }
  }
}

void skipIdentityFactorGradients(Program& program, const CompiledPlan& plan) {
  const auto& connections = plan.graph().connections;
  for (NodeProgram& node : program.nodes) {
    std::vector<Op>& ops = node.backwardStep;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      Op& op = ops[i];
      if ((op.kind != Kind::Add && op.kind != Kind::Assign) || op.a.buffer != Buffer::FactorGrad)
        continue;
      const int c = op.connection;
      if (c < 0 || connections[c].type != ConnectionType::Identity) continue;
      if (plan.nodeOfLayer(plan.fromLayer(c)) != plan.nodeOfLayer(op.layer)) continue;
      if (plan.anterior(op.layer).size() != 2) continue;
      // dz = ds * (the other factor), written by the target's backward earlier in the step.
      for (std::size_t k = 0; k < i; ++k) {
        const Op& dz = ops[k];
        if (dz.kind != Kind::Mul || dz.dst != op.a) continue;
        op.kind = op.kind == Kind::Assign ? Kind::MulAssign : Kind::MulAdd;
        op.a = dz.a;
        op.b = dz.b;
        ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(k));
        --i;
        break;
      }
    }
  }
}

}  // namespace rnnwb::op
