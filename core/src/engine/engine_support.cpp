#include "rnnwb/core/engine/engine_support.hpp"

#include <stdexcept>

#include "rnnwb/core/engine/example_batch.hpp"

namespace rnnwb {
namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string graphName(const CompiledPlan& plan) {
  return plan.graph().name.empty() ? std::string("graph") : "graph " + quoted(plan.graph().name);
}

}  // namespace

std::vector<std::string> engineLimitations(const CompiledPlan& plan) {
  const Graph& graph = plan.graph();
  std::vector<std::string> lines;
  if (graph.dimensions == 2) lines.push_back("2-D graphs (\"dimensions\": 2)");
  for (const Layer& l : graph.layers) {
    if (l.loss == LossKind::Ctc) lines.push_back("layer " + quoted(l.id) + ": the ctc loss");
    if (!l.biasTrainable) lines.push_back("layer " + quoted(l.id) + ": a fixed bias");
  }
  for (const Connection& c : graph.connections) {
    // The label is made only for a limitation found: every grad call asks (needsGridEngine),
    // and a string per connection was a tenth of a small graph's Python call.
    const auto add = [&](const char* what) {
      lines.push_back("connection " + quoted(c.id) + ": " + what);
    };
    if (c.type == ConnectionType::Block) add("the block type");
    if (c.reduce != ReduceAxis::None) add("reduce");
    if (!c.trainable) add("a fixed weight (\"trainable\": false)");
  }
  return lines;
}

void requireStreamable(const CompiledPlan& plan, std::string_view how) {
  const int c = plan.readAheadConnection();
  if (c < 0) return;
  const Connection& connection = plan.graph().connections[c];
  throw std::invalid_argument(graphName(plan) + " needs whole sequences: connection " +
                              quoted(connection.id) + " has delay " +
                              std::to_string(connection.delay) + " (it reads ahead), so " +
                              std::string(how) + " cannot compute it in chunks");
}

void requireEngineSupport(const CompiledPlan& plan, std::string_view who, bool streams) {
  const std::vector<std::string> lines = engineLimitations(plan);
  if (!lines.empty()) {
    std::string message = std::string(who) + " cannot compute " + graphName(plan) + " yet:";
    for (const std::string& line : lines) message += "\n  " + line;
    throw std::invalid_argument(message);
  }
  if (streams)
    requireStreamable(plan, std::string(who) +
                                ", which streams [T, N, size] chunks and does not compute whole "
                                "sequences yet,");
}

bool needsGridEngine(const CompiledPlan& plan, const TensorFile& data) {
  return !engineLimitations(plan).empty() || plan.needsWholeSequences() ||
         holdsNumberedExamples(plan, data);
}

}  // namespace rnnwb
