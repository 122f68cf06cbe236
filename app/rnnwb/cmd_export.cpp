// rnnwb export FILE --format dot [-o OUT]: the graph for other tools.
// rnnwb export FILE --format onnx --weights W -o OUT: the trained graph as an ONNX model
// (docs/interop.md), in a build with protobuf (RNNWB_HAVE_ONNX).
#include <iostream>
#include <stdexcept>

#include "cli_support.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/dot_export.hpp"
#include "rnnwb/core/engine/engine_support.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/graph_io.hpp"
#ifdef RNNWB_HAVE_ONNX
#include "rnnwb/core/onnx_export.hpp"
#endif

namespace rnnwb::cli {

namespace {

struct ExportOptions {
  std::string file, format, weights, output;
};

std::string onnxModel(const CompiledPlan& plan, const ExportOptions& options) {
#ifdef RNNWB_HAVE_ONNX
  if (options.weights.empty())
    throw std::invalid_argument("--format onnx needs --weights W.safetensors (the model's values)");
  if (options.output.empty() || options.output == "-")
    throw std::invalid_argument("--format onnx writes a binary file: name it with -o");
  // What the export cannot compute is refused before the weights are read (exportOnnx checks
  // again): a 2-D graph, ctc. A graph that reads ahead exports for whole sequences.
  requireEngineSupport(plan, "the ONNX export", false);
  const TensorFile weights = readSafetensors(options.weights);
  const ParameterSet parameters = parametersFromTensors(plan, weights);
  // A checkpoint is a weights file too: its optimizer, stream and RTRL state are not extra.
  weights.rejectUnread("the weights of " + options.file, {"optimizer.", "streams.", "rtrl."});
  return exportOnnx(plan, parameters);
#else
  (void)plan;
  (void)options;
  throw std::runtime_error(
      "this build has no ONNX export: it was built without protobuf "
      "(libprotobuf-dev and protobuf-compiler, scripts/install-deps.sh)");
#endif
}

int runExport(const ExportOptions& options) {
  const CompiledPlan plan(loadValidGraph(options.file));
  if (options.format == "onnx") {
    writeFileAtomically(options.output, onnxModel(plan, options));
    std::cout << options.output << ": ONNX model (opset 17) of graph '" << plan.graph().name
              << "'\n";
    return 0;
  }
  if (!options.weights.empty())
    throw std::invalid_argument("--weights is for --format onnx: a DOT graph has no values");
  const std::string text = exportDot(plan);
  if (options.output.empty() || options.output == "-")
    std::cout << text;
  else
    writeFileAtomically(options.output, text);
  return 0;
}

}  // namespace

void registerExport(CLI::App& app, int& exitCode) {
  auto options = std::make_shared<ExportOptions>();
  CLI::App* cmd = addCommand(app, "export",
                             "Export a graph in another format (Graphviz DOT, or an ONNX model "
                             "with its weights)",
                             exitCode, [options] { return runExport(*options); });
  requireExistingFile(
      cmd->add_option("FILE", options->file, "Graph file (*.rnn.json)")->required());
  cmd->add_option("--format", options->format, "Output format: dot, or onnx (needs --weights)")
      ->required()
      ->check(CLI::IsMember({"dot", "onnx"}));
  requireExistingFile(cmd->add_option("--weights", options->weights,
                                      "Weights file (*.safetensors, masks included) of an onnx "
                                      "export"));
  cmd->add_option("-o,--output", options->output,
                  "Output file (default for dot: standard output; onnx needs one)");
}

}  // namespace rnnwb::cli
