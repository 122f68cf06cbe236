// The inspection tools of the CLI: SnAp figures per recurrent node (rnnwb mask), packing figures
// and layouts (rnnwb pack), and which training algorithm fits a memory budget (rnnwb budget).
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "errors.hpp"
#include "rnnwb/core/memory_size.hpp"
#include "rnnwb/core/packing/packers.hpp"
#include "rnnwb/core/packing/packing_figures.hpp"
#include "rnnwb/core/snap/algorithm_budget.hpp"
#include "rnnwb/core/snap/node_summary.hpp"
#include "rnnwb/core/snap/row_colouring.hpp"
#include "rnnwb/core/snap/rtrl_node_layout.hpp"
#include "rnnwb/core/snap/snap_patterns.hpp"

namespace rnnwb::python {

namespace {

nb::list snapSummaries(PyGraph& g, int extraLevel, int bpttLength) {
  nb::list out;
  withGraphNames(&g.graph, [&] {
    const CompiledPlan& plan = g.compiled();
    for (int node : snap::recurrentNodes(plan.nodes())) {
      snap::NodeSummary s;
      {
        const nb::gil_scoped_release noGil;
        s = snap::summarizeNode(plan, node, snap::reportedLevels(extraLevel), bpttLength);
      }
      nb::dict d;
      nb::list layers, levels;
      for (int l : s.layers) layers.append(plan.graph().layers[l].id);
      d["node"] = s.node;
      d["layers"] = layers;
      d["refusal"] = s.refusal ? nb::cast(*s.refusal) : nb::none();
      d["state_size"] = s.stateSize;
      d["parameters"] = s.parameters;
      for (const snap::SnapLevel& level : s.levels) {
        nb::dict l;
        l["name"] = snap::levelName(level, s.exactAfter);
        l["n"] = level.n;
        l["nnz"] = level.nnz;
        l["density"] = level.density;
        l["coo_bytes"] = level.cooBytes;
        l["csr_bytes"] = level.csrBytes;
        levels.append(l);
      }
      d["levels"] = levels;
      d["exact_after"] = s.exactAfter;
      d["colours_i"] = s.coloursI;
      d["colours_d"] = s.coloursD;
      d["dense_rtrl_bytes"] = s.denseRtrlBytes;
      d["bptt_length"] = s.bpttLength;
      d["bptt_bytes"] = s.bpttBytes;
      out.append(d);
    }
  });
  return out;
}

/// A pattern as a uint8 0/1 array [rows, columns].
nb::object patternArray(const snap::BitMatrix& pattern) {
  Tensor t = Tensor::zerosI64({pattern.rows(), pattern.columns()});
  auto values = t.i64();
  for (int r = 0; r < pattern.rows(); ++r)
    for (int c = 0; c < pattern.columns(); ++c)
      values[static_cast<std::size_t>(r) * pattern.columns() + c] = pattern.test(r, c);
  return toNumpy(t).attr("astype")("uint8");
}

nb::object intArray(const std::vector<int>& values) {
  std::vector<std::int64_t> wide(values.begin(), values.end());
  return toNumpy(Tensor::fromI64({static_cast<std::int64_t>(wide.size())}, wide));
}

/// The patterns of recurrent node k (1-based, as `rnnwb mask --node k`): I, D, M_n, M_exact with
/// one column per parameter unit, each parameter's column, and the row colourings of I and D.
nb::dict snapPatterns(PyGraph& g, int k, int n) {
  nb::dict d;
  withGraphNames(&g.graph, [&] {
    const CompiledPlan& plan = g.compiled();
    const std::vector<int> nodes = snap::recurrentNodes(plan.nodes());
    if (k < 1 || k > static_cast<int>(nodes.size()))
      throw std::invalid_argument("no recurrent node " + std::to_string(k) + " (the graph has " +
                                  std::to_string(nodes.size()) + ")");
    if (auto refusal = snap::rtrlRefusal(plan, nodes[k - 1])) throw std::invalid_argument(*refusal);
    const snap::RtrlNodeLayout layout(plan, nodes[k - 1]);
    const snap::SnapPatterns patterns(layout);
    d["immediate"] = patternArray(patterns.immediate());
    d["dynamics"] = patternArray(patterns.dynamics());
    d["mask"] = patternArray(patterns.mask(n));
    d["exact"] = patternArray(patterns.exactMask());
    d["exact_after"] = patterns.exactAfter();
    std::vector<int> columns(patterns.parameterColumns().begin(),
                             patterns.parameterColumns().end());
    d["parameter_columns"] = intArray(columns);
    d["colours_of_immediate_rows"] = intArray(snap::colourRows(patterns.immediate()).colourOfRow);
    d["colours_of_dynamics_rows"] = intArray(snap::colourRows(patterns.dynamics()).colourOfRow);
  });
  return d;
}

std::vector<packing::ExampleSize> exampleSizes(const std::vector<std::pair<int, int>>& sizes) {
  std::vector<packing::ExampleSize> out;
  for (const auto& [h, w] : sizes) out.push_back({h, w});
  return out;
}

nb::dict layoutDict(const packing::PackedLayout& layout) {
  nb::dict d;
  d["height"] = layout.height;
  d["width"] = layout.width;
  d["skewed_width"] = layout.skewedWidth;
  nb::list rows, places;
  for (const auto& r : layout.rows) rows.append(nb::make_tuple(r.top, r.height, r.length));
  for (const auto& p : layout.places)
    places.append(nb::make_tuple(p.index, p.row, p.x, p.y, p.height, p.width));
  d["rows"] = rows;      // (top, height, length)
  d["places"] = places;  // (index, row, x, y, height, width)
  return d;
}

nb::dict cellsDict(const packing::PackerCells& c) {
  nb::dict d;
  d["packed"] = c.packed;
  d["packed_skewed"] = c.packedSkewed;
  return d;
}

nb::dict pack(const std::vector<std::pair<int, int>>& sizes, const std::string& packer,
              int batchSize, int rowWidth) {
  const auto examples = exampleSizes(sizes);
  const packing::PackingFigures f = packing::computeFigures(
      examples, batchSize > 0 ? batchSize : static_cast<int>(examples.size()), rowWidth, {packer});
  nb::dict d;
  d["examples"] = f.examples;
  d["batches"] = f.batches;
  d["real"] = f.real;
  d["lmbr"] = f.lmbr;
  d["lmbr_skewed"] = f.lmbrSkewed;
  nb::dict packers;
  for (const auto& [name, cells] : f.packers) packers[name.c_str()] = cellsDict(cells);
  d["packers"] = packers;
  const std::size_t first =
      std::min<std::size_t>(examples.size(), batchSize > 0 ? batchSize : examples.size());
  d["first_batch"] = layoutDict(packing::packWith(
      packer, std::span<const packing::ExampleSize>(examples.data(), first), rowWidth));
  return d;
}

nb::dict budget(PyGraph& g, int streams, int h, int hPrime, const std::string& budgetText,
                const std::string& optimizer, bool measure, int threads) {
  nb::dict d;
  withGraphNames(&g.graph, [&] {
    const CompiledPlan& plan = g.compiled();
    snap::BudgetQuery q;
    q.streams = streams;
    q.window = h;
    q.newFrames = hPrime;
    q.budgetBytes = budgetText.empty() ? physicalMemoryBytes() : parseBytes(budgetText);
    q.optimizerSlots = optimizer == "adam" ? 2 : 1;
    snap::BudgetTable table;
    {
      const nb::gil_scoped_release noGil;
      const double rate = measure ? snap::measureEngineRate(plan, q.streams, threads) : 0;
      table = snap::estimateAlgorithms(plan, q, rate);
      if (measure) snap::measureAlgorithms(plan, q, table, threads);
    }
    nb::list rows;
    for (const auto& r : table.rows) {
      nb::dict row;
      row["algorithm"] = r.algorithm;
      row["label"] = r.label;
      row["own_bytes"] = r.ownBytes;
      row["total_bytes"] = r.totalBytes;
      row["flops_per_frame"] = r.flopsPerFrame;
      row["seconds_per_frame"] = r.secondsPerFrame;
      row["measured"] = r.measured;
      row["fits"] = r.fits;
      row["refusal"] = r.refusal ? nb::cast(*r.refusal) : nb::none();
      rows.append(row);
    }
    d["budget_bytes"] = q.budgetBytes;
    d["shared_bytes"] = table.sharedBytes;
    d["parameters"] = table.parameters;
    d["flops_per_s"] = table.flopsPerSecond;
    d["rows"] = rows;
  });
  return d;
}

}  // namespace

void bindTools(nb::module_& m, nb::class_<PyGraph>& cls) {
  cls.def("snap_summaries", &snapSummaries, nb::arg("extra_level") = 0, nb::arg("bptt_length") = 64,
          "Per recurrent node, the SnAp-1/2/3 (and extra_level) masks' figures and colourings "
          "as `rnnwb mask` prints them.")
      .def("snap_patterns", &snapPatterns, nb::arg("node"), nb::arg("n") = 1,
           "Recurrent node `node`'s (1-based) SnAp patterns as uint8 arrays, one column per "
           "parameter unit: I, D, M_n and the exact mask, each parameter's column, and the row "
           "colourings of I and D.")
      .def("budget", &budget, nb::arg("streams") = 32, nb::arg("h") = 64, nb::arg("h_prime") = 64,
           nb::arg("budget") = "", nb::arg("optimizer") = "adam", nb::arg("measure") = true,
           nb::arg("threads") = 1,
           "Which of BPTT(h; h'), SnAp-1/2/3 and exact RTRL fits the memory budget (text such "
           "as '2GiB'; empty: this machine's memory), as `rnnwb budget --json`.");
  m.def("pack", &pack, nb::arg("sizes"), nb::arg("packer") = "shelf", nb::arg("batch_size") = 0,
        nb::arg("row_width") = 0,
        "The figures of spec/packing.md for (height, width) examples in consecutive batches "
        "(0: one batch), and the first batch's layout by `packer`, as `rnnwb pack`.");
}

}  // namespace rnnwb::python
