// rnnwb new mdlstm --cell CELL [--sizes 2,10,50] [--blocks 2x2:4,2x2:6,1x2:20] [--classes 53]
// -o FILE: the word recogniser of "No Padding Please" as one graph (recognizer_graph.hpp), with
// any cell and sizes.
#include <iostream>
#include <sstream>

#include "cli_support.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/recognizer_graph.hpp"

namespace rnnwb::cli {

namespace {

struct NewMdlstmOptions {
  std::string cell, output, name = "mdlstm-words";
  std::string sizes = "2,10,50", blocks = "2x2:4,2x2:6,1x2:20";
  int classes = 53;
};

std::vector<int> parseSizes(const std::string& text) {
  std::vector<int> sizes;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');) {
    std::size_t used = 0;
    int size = 0;
    try {
      size = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || size < 1)
      throw std::invalid_argument("--sizes: '" + item + "' is not a size >= 1");
    sizes.push_back(size);
  }
  return sizes;
}

int runNewMdlstm(const NewMdlstmOptions& o) {
  RecognizerGraphOptions options;
  options.name = o.name;
  options.cell = loadValidGraph(o.cell);
  options.sizes = parseSizes(o.sizes);
  options.blocks = parseRecognizerBlocks(o.blocks);
  options.classes = o.classes;
  const Graph graph = makeRecognizerGraph(options);
  const CompiledPlan plan(graph);  // what it writes is valid
  saveGraphFile(graph, o.output);
  std::cout << o.output << ": " << graph.layers.size() << " layers, " << graph.connections.size()
            << " connections (" << o.sizes << " units per direction, cell '" << options.cell.name
            << "')\n";
  return 0;
}

}  // namespace

void registerNew(CLI::App& app, int& exitCode) {
  CLI::App* cmd = app.add_subcommand("new", "Make a graph from a template");
  cmd->require_subcommand(1);
  auto o = std::make_shared<NewMdlstmOptions>();
  CLI::App* mdlstm =
      addCommand(*cmd, "mdlstm",
                 "The word recogniser of 'No Padding Please' (input block, stages of a "
                 "four-direction 2-D layer and a block-strided layer, a sum over the rows, softmax "
                 "and ctc) with any cell and sizes",
                 exitCode, [o] { return runNewMdlstm(*o); });
  requireExistingFile(mdlstm
                          ->add_option("--cell", o->cell,
                                       "The cell: a 2-D graph with one input and one output layer")
                          ->required());
  mdlstm->add_option("--sizes", o->sizes, "Units per direction of each stage")
      ->capture_default_str();
  mdlstm
      ->add_option("--blocks", o->blocks,
                   "The block-strided layer before each stage, <bx>x<by>:<outputs>")
      ->capture_default_str();
  mdlstm->add_option("--classes", o->classes, "Output classes, the blank (class 0) included")
      ->check(CLI::Range(2, 1 << 20))
      ->capture_default_str();
  mdlstm->add_option("--name", o->name, "The graph's name")->capture_default_str();
  mdlstm->add_option("-o,--output", o->output, "Graph file to write (*.rnn.json)")->required();
}

}  // namespace rnnwb::cli
