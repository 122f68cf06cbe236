// rnnwb grad GRAPH --weights W --data D -o G [--backend B] [--packer P] [--precision bf16]: one
// forward and backward
// pass over the whole sequence in D (no truncation), writing the gradients of the summed loss
// under the weights' keys, plus "loss". The backend comes from the registry, as in `train`, so
// that the same files compare the CPU engine with another backend. 2-D graphs, graphs that read
// ahead, numbered examples (graph-format-v2.md) and what only version 2 has (block, reduce,
// ctc, fixed weights) go to the grid engine, on the CPU.
#include <cmath>
#include <iostream>

#include "cli_support.hpp"
#include "rnnwb/core/engine/backend_registry.hpp"
#include "rnnwb/core/engine/engine_support.hpp"
#include "rnnwb/core/engine/grid_engine.hpp"
#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/engine/product_precision.hpp"
#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::cli {

namespace {

struct GradOptions {
  std::string graph, weights, data, output;
  std::string backend = "cpu";
  std::string packer = "shelf";
  std::string precision = "f32";
};

void writeGradients(const std::string& path, const ParameterSet& gradients, double loss) {
  if (!std::isfinite(loss) || !gradients.allFinite())
    throw std::runtime_error("the loss (" + std::to_string(loss) +
                             ") or a gradient is not finite; " + path + " not written");
  writeSafetensors(path, gradientsToTensors(gradients, loss));
}

int runGridGrad(const GradOptions& options, const CompiledPlan& plan, const ParameterSet& params,
                const TensorFile& data) {
  if (options.backend != "cpu") {
    requireEngineSupport(plan, "the " + options.backend + " backend");
    throw std::invalid_argument("the " + options.backend + " backend takes [T, N, size] data " +
                                "only; " + options.data + " holds numbered examples");
  }
  const ExampleBatch batch = examplesFromTensorFile(plan, data);
  data.rejectUnread("a data file for " + options.graph);
  const GridEngine engine(plan, {options.packer});
  ParameterSet gradients = ParameterSet::zerosLike(params);
  const double loss = engine.forwardBackward(params, batch, gradients);
  writeGradients(options.output, gradients, loss);
  std::cout << options.output << ": loss " << loss << " over " << batch.examples.size()
            << " examples\n";
  return 0;
}

int runGrad(const GradOptions& options) {
  requireBackend(options.backend);  // before any file is read: a typo fails at once
  const ProductPrecision precision = productPrecisionFromName(options.precision);
  if (precision != ProductPrecision::F32 && options.backend != "cpu")
    throw std::invalid_argument("--precision " + options.precision + " is for the cpu backend");
  setProductPrecision(precision);
  const CompiledPlan plan(loadValidGraph(options.graph));
  const TensorFile weights = readSafetensors(options.weights);
  const ParameterSet params = parametersFromTensors(plan, weights);
  // A checkpoint is a weights file too: its optimizer, stream and RTRL state are not extra.
  weights.rejectUnread("the weights of " + options.graph, {"optimizer.", "streams.", "rtrl."});
  const TensorFile data = readSafetensors(options.data);
  if (needsGridEngine(plan, data)) return runGridGrad(options, plan, params, data);
  const SequenceBatch batch = batchFromTensorFile(plan, data);
  data.rejectUnread("a data file for " + options.graph);
  const std::unique_ptr<Backend> backend = makeBackend(options.backend, plan);
  ParameterSet gradients = ParameterSet::zerosLike(params);
  const double loss = backend->forwardBackward(params, batch, {}, nullptr, &gradients);
  writeGradients(options.output, gradients, loss);
  std::cout << options.output << ": loss " << loss << " over " << batch.frames << " frames x "
            << batch.streams << " streams\n";
  return 0;
}

}  // namespace

void registerGrad(CLI::App& app, int& exitCode) {
  auto options = std::make_shared<GradOptions>();
  CLI::App* cmd = addCommand(app, "grad",
                             "Gradients of the summed loss over a whole data file (one forward "
                             "and backward pass, no truncation)",
                             exitCode, [options] { return runGrad(*options); });
  requireExistingFile(
      cmd->add_option("GRAPH", options->graph, "Graph file (*.rnn.json)")->required());
  requireExistingFile(
      cmd->add_option("--weights", options->weights, "Weights file (*.safetensors), masks included")
          ->required());
  requireExistingFile(cmd->add_option("--data", options->data,
                                      "Data file (*.safetensors): input[.<id>] F32 [T, N, size] "
                                      "and target[.<id>], or numbered examples input[.<id>].<k> "
                                      "and target[.<id>].<k>")
                          ->required());
  cmd->add_option("-o,--output", options->output, "Gradient file to write (*.safetensors)")
      ->required();
  cmd->add_option("--backend", options->backend, "cpu, or cuda in a build with the CUDA backend")
      ->capture_default_str();
  cmd->add_option("--packer", options->packer,
                  "How the grid engine packs 2-D examples: shelf, baseline or padded")
      ->check(CLI::IsMember({"shelf", "baseline", "padded"}))
      ->capture_default_str();
  cmd->add_option("--precision", options->precision,
                  "f32, or bf16: the CPU engine's products on bf16 inputs with f32 sums, where "
                  "the processor has AVX-512 BF16 or AMX")
      ->check(CLI::IsMember({"f32", "bf16"}))
      ->capture_default_str();
}

}  // namespace rnnwb::cli
