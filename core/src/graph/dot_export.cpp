#include "rnnwb/core/dot_export.hpp"

#include <sstream>

namespace rnnwb {
namespace {

std::string dotString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string layerLabel(const Layer& l) {
  std::string label = l.id + "\\n" + std::string(toString(l.kind)) + " " + std::to_string(l.size);
  if (!l.isInput() && l.activation != Activation::Identity)
    label += " " + std::string(toString(l.activation));
  if (l.isOutput()) label += "\\nloss: " + std::string(toString(l.loss));
  return label;
}

void writeLayer(std::ostringstream& out, const Layer& l, const char* indent) {
  const char* shape = l.kind == LayerKind::Multiplicative ? "ellipse" : "box";
  out << indent << dotString(l.id) << " [label=\"" << layerLabel(l) << "\", shape=" << shape;
  if (l.isInput()) out << ", style=filled, fillcolor=\"#dbeafe\"";
  if (l.isOutput()) out << ", style=filled, fillcolor=\"#fde68a\"";
  out << "];\n";
}

}  // namespace

std::string exportDot(const CompiledPlan& plan) {
  const Graph& g = plan.graph();
  std::ostringstream out;
  out << "digraph " << dotString(g.name.empty() ? "rnn" : g.name) << " {\n";
  out << "  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\"];\n";
  int recurrentCount = 0;
  for (const SccNode& node : plan.nodes()) {
    if (!node.recurrent) {
      writeLayer(out, g.layers[node.layers.front()], "  ");
      continue;
    }
    out << "  subgraph cluster_r" << recurrentCount << " {\n";
    out << "    label=\"recurrent node " << ++recurrentCount << "\";\n";
    out << "    style=rounded; color=\"#7c3aed\";\n";
    for (int l : node.innerOrder) writeLayer(out, g.layers[l], "    ");
    out << "  }\n";
  }
  for (int k = 0; k < static_cast<int>(g.connections.size()); ++k) {
    const Connection& c = g.connections[k];
    out << "  " << dotString(c.from) << " -> " << dotString(c.to) << " [";
    std::string label = c.type == ConnectionType::Full ? "" : std::string(toString(c.type));
    if (c.isSparse())
      label += (label.empty() ? "" : " ") + ("d=" + std::to_string(c.density).substr(0, 5));
    if (c.isDelayed()) {  // version 2: any sign, and [dx, dy] in 2-D
      const std::string delay =
          plan.grid(plan.fromLayer(k)).dimensions == 2 && c.reduce == ReduceAxis::None
              ? "[" + std::to_string(c.delay) + ", " + std::to_string(c.delayY) + "]"
              : std::to_string(c.delay);
      label += (label.empty() ? "" : "\\n") + ("delay " + delay);
      out << "style=dashed, ";
    }
    out << "label=\"" << label << "\", tooltip=" << dotString(c.id) << "];\n";
  }
  out << "}\n";
  return out.str();
}

}  // namespace rnnwb
