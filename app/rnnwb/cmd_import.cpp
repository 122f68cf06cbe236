// rnnwb import MODEL.onnx -o GRAPH.rnn.json [--weights-out W.safetensors]: an ONNX model of LSTM,
// GRU and RNN operators as a graph and its weights (docs/interop.md, "Import"), in a build with
// protobuf (RNNWB_HAVE_ONNX).
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "cli_support.hpp"
#include "rnnwb/core/compiled_plan.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/graph_io.hpp"
#ifdef RNNWB_HAVE_ONNX
#include "rnnwb/core/onnx_import.hpp"
#endif

namespace rnnwb::cli {

namespace {

struct ImportOptions {
  std::string model, output, weights;
};

/// GRAPH.rnn.json -> GRAPH.safetensors, beside it.
std::string defaultWeightsPath(const std::string& graph) {
  const std::string suffix = ".rnn.json";
  const bool hasSuffix = graph.size() > suffix.size() &&
                         graph.compare(graph.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (hasSuffix ? graph.substr(0, graph.size() - suffix.size()) : graph) + ".safetensors";
}

int runImport(const ImportOptions& options) {
#ifdef RNNWB_HAVE_ONNX
  const OnnxImport imported = importOnnxFile(options.model);
  const std::string weights =
      options.weights.empty() ? defaultWeightsPath(options.output) : options.weights;
  // The weights fit the graph's parameters exactly, as `rnnwb init` would lay them out.
  const CompiledPlan plan(imported.graph);
  TensorFile file{weights, imported.weights, {}, {}};
  (void)parametersFromTensors(plan, file);
  file.rejectUnread("the weights of the imported graph");
  // Both files or neither: the weights wait under a temporary name until the graph is written,
  // so a graph that cannot be written (no such folder, a full disk) leaves no weights behind.
  const std::filesystem::path partial = weights + ".importing";
  writeSafetensors(partial, imported.weights, {{"graph", imported.graph.name}});
  try {
    saveGraphFile(imported.graph, options.output);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw;
  }
  std::filesystem::rename(partial, weights);
  std::cout << options.output << ": graph '" << imported.graph.name << "' ("
            << imported.graph.layers.size() << " layers, " << imported.graph.connections.size()
            << " connections) from " << options.model << "; weights in " << weights << "\n";
  return 0;
#else
  (void)options;
  throw std::runtime_error(
      "this build has no ONNX import: it was built without protobuf "
      "(libprotobuf-dev and protobuf-compiler, scripts/install-deps.sh)");
#endif
}

}  // namespace

void registerImport(CLI::App& app, int& exitCode) {
  auto options = std::make_shared<ImportOptions>();
  CLI::App* cmd = addCommand(app, "import",
                             "Import an ONNX model of LSTM, GRU and RNN operators as a graph "
                             "with its weights",
                             exitCode, [options] { return runImport(*options); });
  requireExistingFile(
      cmd->add_option("MODEL", options->model, "ONNX model file (*.onnx)")->required());
  cmd->add_option("-o,--output", options->output, "Graph file to write (*.rnn.json)")->required();
  cmd->add_option("--weights-out", options->weights,
                  "Weights file to write (default: the graph's path with .safetensors for "
                  ".rnn.json)");
}

}  // namespace rnnwb::cli
