// rnnwb pack (--sizes FILE | --images DIR | --synthetic-words COUNT): the cells a 2-D recurrent
// layer computes with batch padding and with example packing (spec/packing.md), every packer
// beside the baseline.
#include <iomanip>
#include <iostream>

#include "cli_support.hpp"
#include "rnnwb/core/packing/example_source.hpp"
#include "rnnwb/core/packing/packers.hpp"
#include "rnnwb/core/packing/packing_figures.hpp"
#include "rnnwb/core/packing/packing_picture.hpp"

namespace rnnwb::cli {
namespace {

using namespace rnnwb::packing;

struct PackOptions {
  std::string sizesFile, imageDir, packer = "shelf", png;
  int syntheticWords = 0, batch = 32, width = 0;
  std::uint64_t seed = 1;
  bool json = false;
};

ExampleSource loadExamples(const PackOptions& o) {
  if (!o.sizesFile.empty()) return loadSizesFile(o.sizesFile);
  if (!o.imageDir.empty()) return loadImageFolder(o.imageDir);
  SyntheticWordOptions options;
  options.seed = o.seed;
  return loadSyntheticWords(o.syntheticWords, options);
}

nlohmann::json figuresJson(const PackingFigures& f) {
  nlohmann::json packers = nlohmann::json::object();
  for (const auto& [name, cells] : f.packers)
    packers[name] = {{"packed", cells.packed}, {"packed_skewed", cells.packedSkewed}};
  return {{"examples", f.examples},
          {"batches", f.batches},
          {"real", f.real},
          {"lmbr", f.lmbr},
          {"lmbr_skewed", f.lmbrSkewed},
          {"packed", f.baseline.packed},
          {"packed_skewed", f.baseline.packedSkewed},
          {"packers", packers}};
}

void printRow(const std::string& figure, long long cells, long long real) {
  std::cout << std::left << std::setw(26) << figure << std::right << std::setw(14) << cells
            << std::setw(12) << std::fixed << std::setprecision(3)
            << static_cast<double>(real) / static_cast<double>(cells) << '\n';
}

void printTable(const PackingFigures& f, const PackOptions& o) {
  std::cout << f.examples << " examples in " << f.batches << " batches of " << o.batch
            << ", row width "
            << (o.width > 0 ? std::to_string(o.width) : "the widest of each batch") << "\n\n"
            << std::left << std::setw(26) << "figure" << std::right << std::setw(14) << "cells"
            << std::setw(12) << "efficiency" << '\n';
  printRow("real", f.real, f.real);
  printRow("lmbr", f.lmbr, f.real);
  printRow("lmbr_skewed", f.lmbrSkewed, f.real);
  for (const auto& [name, cells] : f.packers) {
    printRow("packed (" + name + ")", cells.packed, f.real);
    printRow("packed_skewed (" + name + ")", cells.packedSkewed, f.real);
  }
  std::cout << "\npredicted speed-up of a 2-D layer over lmbr (lmbr_skewed / packed_skewed):\n";
  for (const auto& [name, cells] : f.packers) {
    std::cout << "  " << std::left << std::setw(10) << name << std::right << std::setprecision(2)
              << static_cast<double>(f.lmbrSkewed) / static_cast<double>(cells.packedSkewed) << "x";
    if (name != "baseline")
      std::cout << "  (" << std::setprecision(1)
                << 100.0 * (1.0 - static_cast<double>(cells.packedSkewed) /
                                      static_cast<double>(f.baseline.packedSkewed))
                << " % fewer skewed cells than the baseline)";
    std::cout << '\n';
  }
}

// The first batch, packed by --packer, drawn with its mask and its skewed form.
void writePicture(const ExampleSource& src, const PackOptions& o) {
  const BatchPicture picture = drawSourceBatch(src, 0, o.batch, o.packer, o.width);
  writePng(o.png, picture.image);
  const PackedLayout& layout = picture.layout;
  if (!o.json)
    std::cout << "\nwrote " << o.png << ": batch 1 packed by '" << o.packer << "' ("
              << layout.height << " x " << layout.width << ", skewed " << layout.height << " x "
              << layout.skewedWidth << ")\n";
}

int runPack(const PackOptions& o) {
  packWith(o.packer, {}, 0);  // an unknown packer name fails before any work
  const ExampleSource src = loadExamples(o);
  std::vector<std::string> others;
  if (o.packer != "baseline") others.push_back(o.packer);
  const PackingFigures f = computeFigures(src.sizes, o.batch, o.width, others);
  if (o.json)
    std::cout << figuresJson(f).dump(2) << '\n';
  else
    printTable(f, o);
  if (!o.png.empty()) writePicture(src, o);
  return 0;
}

}  // namespace

void registerPack(CLI::App& app, int& exitCode) {
  auto o = std::make_shared<PackOptions>();
  CLI::App* cmd =
      addCommand(app, "pack",
                 "Cells a 2-D recurrent layer computes with batch padding and with example packing",
                 exitCode, [o] { return runPack(*o); });
  // Exactly one source of examples.
  CLI::Option_group* source = cmd->add_option_group("source", "Where the examples come from");
  requireExistingFile(
      source->add_option("--sizes", o->sizesFile, "File of 'height width' lines, one a line"));
  source
      ->add_option("--images", o->imageDir,
                   "Folder of PNG images (IAM layout with words.txt / lines.txt, "
                   "or every *.png below it, sorted by path)")
      ->check(CLI::ExistingDirectory);
  source
      ->add_option("--synthetic-words", o->syntheticWords,
                   "Render COUNT synthetic handwriting-like words")
      ->check(CLI::PositiveNumber);
  source->require_option(1);
  cmd->add_option("--batch", o->batch, "Examples per batch (consecutive)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--width", o->width,
                  "Row width W for every batch (default: the widest example of each batch)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--packer", o->packer,
                  "Packer reported beside the baseline and drawn by --png (baseline, shelf)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of --synthetic-words (0 to 2^64 - 1)")
      ->capture_default_str()
      ->check(  // CLI11 clamps "-1" to 0 silently
          [](const std::string& text) -> std::string {
            if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos &&
                (text.size() < 20 || (text.size() == 20 && text <= "18446744073709551615")))
              return {};
            return "'" + text + "' is not a seed (an integer from 0 to 18446744073709551615)";
          });
  cmd->add_flag("--json", o->json, "Print the figures as JSON");
  cmd->add_option("--png", o->png, "Draw the first batch, its mask and its skewed form");
}

}  // namespace rnnwb::cli
