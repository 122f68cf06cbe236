// rnnwb mask GRAPH [--node K] [--snap n] [--json] [--png FILE]: the SnAp-n masks of every
// recurrent node (spec/snap-masks.md), their row colourings and what RTRL's Jacobian would cost.
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

#include "cli_support.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/snap/node_summary.hpp"
#include "rnnwb/core/snap/pattern_image.hpp"

namespace rnnwb::cli {
namespace {

struct MaskOptions {
  std::string file;
  int node = 0;  // 1-based among recurrent nodes; 0 = all
  int snap = 0;  // an extra SnAp level; 0 = none
  bool json = false;
  std::string png;
  int bpttLength = 100;
};

std::string levelKey(int n) { return n == 0 ? "inf" : std::to_string(n); }

nlohmann::json ids(const Graph& g, const std::vector<int>& layers) {
  nlohmann::json out = nlohmann::json::array();
  for (int l : layers) out.push_back(g.layers[l].id);
  return out;
}

nlohmann::json summaryJson(const Graph& g, const snap::NodeSummary& s, int index) {
  nlohmann::json node = {{"index", index}, {"layers", ids(g, s.layers)}};
  if (s.refusal) {
    node["refused"] = *s.refusal;
    return node;
  }
  nlohmann::json counts, density, coo, csr;
  for (const snap::SnapLevel& level : s.levels) {
    counts[levelKey(level.n)] = level.nnz;
    density[levelKey(level.n)] = level.density;
    coo[levelKey(level.n)] = level.cooBytes;
    csr[levelKey(level.n)] = level.csrBytes;
  }
  const double h = s.stateSize;
  node.update({{"state_layers", ids(g, s.stateLayers)},
               {"state_size", s.stateSize},
               {"params", s.parameters},
               {"snap", counts},
               {"density", density},
               {"exact_after", s.exactAfter},
               {"colors_I", s.coloursI},
               {"colors_D", s.coloursD},
               {"compression_I", s.coloursI / h},
               {"compression_D", s.coloursD / h},
               {"memory",
                {{"coo", coo},
                 {"csr", csr},
                 {"dense_rtrl", s.denseRtrlBytes},
                 {"bptt", s.bpttBytes},
                 {"bptt_length", s.bpttLength}}}});
  return node;
}

std::string joined(const Graph& g, const std::vector<int>& layers) {
  std::string out;
  for (int l : layers) out += (out.empty() ? "" : ", ") + g.layers[l].id;
  return out;
}

void printSummary(const Graph& g, const snap::NodeSummary& s, int index) {
  std::cout << "recurrent node " << index << ": " << joined(g, s.layers) << '\n';
  if (s.refusal) {
    std::cout << "  refused: " << *s.refusal << "\n\n";
    return;
  }
  const double h = s.stateSize;
  std::cout << "  state h: " << s.stateSize << " units (" << joined(g, s.stateLayers) << ")\n"
            << "  parameters: " << s.parameters << "\n"
            << std::fixed << std::setprecision(3) << "  colours: I " << s.coloursI
            << " (compression " << s.coloursI / h << "), D " << s.coloursD << " (compression "
            << s.coloursD / h << ")\n";
  std::cout << "  " << std::left << std::setw(16) << "mask" << std::right << std::setw(14) << "nnz"
            << std::setw(10) << "density" << std::setw(14) << "J in COO" << std::setw(14)
            << "J in CSR" << '\n';
  for (const snap::SnapLevel& level : s.levels) {
    const std::string name = snap::levelName(level, s.exactAfter);
    std::cout << "  " << std::left << std::setw(16) << name << std::right << std::setw(14)
              << level.nnz << std::setw(10) << std::setprecision(4) << level.density
              << std::setw(14) << rnnwb::formatBytes(level.cooBytes) << std::setw(14)
              << rnnwb::formatBytes(level.csrBytes) << '\n';
  }
  std::cout << "  dense RTRL J: " << rnnwb::formatBytes(s.denseRtrlBytes) << "; BPTT over "
            << s.bpttLength << " frames: " << rnnwb::formatBytes(s.bpttBytes) << "\n\n";
}

void writePicture(const CompiledPlan& plan, const std::vector<int>& nodes, const MaskOptions& o) {
  std::vector<snap::RgbImage> images;
  for (int node : nodes)
    if (!snap::rtrlRefusal(plan, node))
      images.push_back(snap::drawRecurrentNode(plan, node, o.snap));
  if (images.empty())
    throw std::runtime_error("--png " + o.png + ": no recurrent node that RTRL can take to draw");
  snap::writePng(snap::stackImages(images, 24), o.png);
}

int runMask(const MaskOptions& o) {
  const CompiledPlan plan(loadValidGraph(o.file));
  const std::vector<int> recurrent = snap::recurrentNodes(plan.nodes());
  if (o.node > static_cast<int>(recurrent.size()))
    throw std::runtime_error("--node " + std::to_string(o.node) + ": the graph has " +
                             std::to_string(recurrent.size()) + " recurrent node(s)");
  std::vector<int> indices;  // 1-based among recurrent nodes
  for (int k = 1; k <= static_cast<int>(recurrent.size()); ++k)
    if (o.node == 0 || o.node == k) indices.push_back(k);
  const std::vector<int> levels = snap::reportedLevels(o.snap);

  const Graph& g = plan.graph();
  nlohmann::json nodes = nlohmann::json::array();
  if (!o.json)
    std::cout << (g.name.empty() ? o.file : g.name + " (" + o.file + ")") << ": "
              << recurrent.size() << " recurrent node(s)\n\n";
  std::vector<int> drawn;
  for (int k : indices) {
    const snap::NodeSummary s = snap::summarizeNode(plan, recurrent[k - 1], levels, o.bpttLength);
    if (o.json)
      nodes.push_back(summaryJson(g, s, k));
    else
      printSummary(g, s, k);
    drawn.push_back(recurrent[k - 1]);
  }
  if (o.json) std::cout << nlohmann::json{{"nodes", nodes}}.dump(2) << '\n';
  if (!o.png.empty()) writePicture(plan, drawn, o);
  return 0;
}

}  // namespace

void registerMask(CLI::App& app, int& exitCode) {
  auto o = std::make_shared<MaskOptions>();
  CLI::App* cmd = addCommand(
      app, "mask",
      "Show the SnAp-n masks of each recurrent node, their row colourings and the memory of "
      "RTRL's Jacobian",
      exitCode, [o] { return runMask(*o); });
  requireExistingFile(cmd->add_option("GRAPH", o->file, "Graph file (*.rnn.json)")->required());
  const CLI::Range positive(1, std::numeric_limits<int>::max());
  cmd->add_option("--node", o->node, "Only recurrent node K (1-based, in schedule order)")
      ->type_name("K")
      ->check(positive);
  cmd->add_option("--snap", o->snap,
                  "Also report SnAp-n for this n (1, 2, 3 and the exact mask always are); "
                  "the PNG draws M_n (default: the exact mask)")
      ->type_name("N")
      ->check(positive);
  cmd->add_flag("--json", o->json,
                "Print {\"nodes\": [{\"layers\", \"state_size\", \"params\", \"snap\": {\"1\", "
                "\"2\", \"3\", \"inf\"}, \"colors_I\", \"colors_D\", ...}]}; a node RTRL cannot "
                "take has \"refused\" instead of the figures");
  cmd->add_option("--png", o->png,
                  "Draw I | D | M_n of each node, entries in their row's colour class (M_n's "
                  "entries outside I in grey), nodes stacked top to bottom")
      ->type_name("FILE");
  cmd->add_option("--bptt-length", o->bpttLength,
                  "Frames of BPTT to compare memory with (default 100)")
      ->type_name("T")
      ->check(positive);
}

}  // namespace rnnwb::cli
