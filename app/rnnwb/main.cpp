// rnnwb: the command line of RNN Workbench. Each command lives in its own cmd_<name>.cpp.
#include "cli_support.hpp"
#include "rnnwb/core/engine/product_precision.hpp"
#include "rnnwb/core/engine/products.hpp"

#ifdef RNNWB_HAVE_CUDA
#include "rnnwb/gpu/cuda_backend.hpp"
#endif

int main(int argc, char** argv) {
  CLI::App app{"rnnwb: analyse and train generalized recurrent networks (graph files *.rnn.json)",
               "rnnwb"};
  rnnwb::cli::installTerminateHandler();
  app.require_subcommand(1);
  const std::string bf16Refusal = rnnwb::bf16Unavailable();
  app.set_version_flag("--version", "rnnwb 0.1.0\nCPU products: " + rnnwb::productKernels() +
                                        "\nbf16 products (--precision bf16): " +
                                        (bf16Refusal.empty() ? "available" : bf16Refusal));
  int exitCode = 0;
#ifdef RNNWB_HAVE_CUDA
  rnnwb::gpu::registerCudaBackend();  // the device is only looked for when a run asks for it
#endif
  rnnwb::cli::registerValidate(app, exitCode);
  rnnwb::cli::registerAnalyze(app, exitCode);
  rnnwb::cli::registerExport(app, exitCode);
  rnnwb::cli::registerImport(app, exitCode);
  rnnwb::cli::registerFormat(app, exitCode);
  rnnwb::cli::registerMask(app, exitCode);
  rnnwb::cli::registerPack(app, exitCode);
  rnnwb::cli::registerInit(app, exitCode);
  rnnwb::cli::registerGrad(app, exitCode);
  rnnwb::cli::registerTrain(app, exitCode);
  rnnwb::cli::registerBudget(app, exitCode);
  rnnwb::cli::registerMetrics(app, exitCode);
  rnnwb::cli::registerNew(app, exitCode);
  rnnwb::cli::registerCompletion(app, exitCode);  // last: it lists the commands above
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error exits 2, as command-line tools do.
    return app.exit(e) == 0 ? 0 : 2;
  }
  return rnnwb::cli::finishOutput(app.get_subcommands().front()->get_name(), exitCode);
}
