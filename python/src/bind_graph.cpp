// rnnwb._core.Graph: reading, checking, writing and analysing a graph (the rnnwb validate,
// format and analyze commands). Editing happens in rnnwb.Graph (graph.py) on the file's JSON,
// which goes back through parse(): the same reader and validator as a file.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include "bindings.hpp"
#include "errors.hpp"
#include "py_graph.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/graph_validator.hpp"

namespace rnnwb::python {

const CompiledPlan& PyGraph::compiled() {
  if (plan) return *plan;
  if (!problems.empty()) {
    std::vector<Diagnostic> named = problems;
    if (!path.empty())
      for (Diagnostic& d : named) d.message = problemPlace(path, d) + ": " + d.message;
    throw NamedGraphError(GraphError(std::move(named)), &graph);
  }
  plan = std::make_unique<CompiledPlan>(graph);
  return *plan;
}

CpuBackend& PyGraph::cpu() {
  if (!backend) backend = std::make_unique<CpuBackend>(compiled());
  return *backend;
}

const CallKeys& PyGraph::callKeys() {
  if (!keys) keys = std::make_unique<CallKeys>(compiled());
  return *keys;
}

namespace {

std::unique_ptr<PyGraph> fromResult(GraphLoadResult result, const std::string& path) {
  if (!result.graph) {
    for (Diagnostic& d : result.problems) {
      if (!path.empty()) d.message = problemPlace(path, d) + ": " + d.message;
      d.file = path;
    }
    throw NamedGraphError(GraphError(std::move(result.problems)), nullptr);
  }
  auto g = std::make_unique<PyGraph>();
  g->graph = std::move(*result.graph);
  g->problems = std::move(result.problems);
  const std::size_t validator = validateGraph(g->graph).size();
  g->readerProblems = g->problems.size() > validator ? g->problems.size() - validator : 0;
  for (Diagnostic& d : g->problems) d.file = path;
  g->path = path;
  return g;
}

nb::list ids(const Graph& g, const std::vector<int>& layers) {
  nb::list out;
  for (int l : layers) out.append(g.layers[l].id);
  return out;
}

nb::dict analysis(PyGraph& self) {
  nb::dict out;
  withGraphNames(&self.graph, [&] {
    const CompiledPlan& plan = self.compiled();
    const Graph& g = plan.graph();
    nb::list nodes;
    for (const SccNode& node : plan.nodes()) {
      nb::dict n;
      n["layers"] = ids(g, node.layers);
      n["recurrent"] = node.recurrent;
      n["inner_order"] = ids(g, node.innerOrder);
      nb::list scan;  // σ of a recurrent node, one component per dimension; empty otherwise
      for (long long component : node.scan) scan.append(component);
      n["scan"] = scan;
      nodes.append(n);
    }
    out["nodes"] = nodes;
    out["inputs"] = ids(g, plan.inputLayers());
    out["outputs"] = ids(g, plan.outputLayers());
    nb::dict delays;
    for (std::size_t l = 0; l < g.layers.size(); ++l)
      delays[g.layers[l].id.c_str()] = plan.maxDelayFrom(static_cast<int>(l));
    out["max_delay_from"] = delays;
  });
  return out;
}

nb::dict dataKeys(PyGraph& self) {
  nb::dict out;
  withGraphNames(&self.graph, [&] {
    const CompiledPlan& plan = self.compiled();
    nb::list inputs, targets;
    for (std::size_t i = 0; i < plan.inputLayers().size(); ++i)
      inputs.append(inputKey(plan, plan.inputLayers()[i]));
    for (std::size_t o = 0; o < plan.outputLayers().size(); ++o)
      targets.append(targetKey(plan, plan.outputLayers()[o]));
    out["inputs"] = inputs;
    out["targets"] = targets;
  });
  return out;
}

}  // namespace

void bindGraph(nb::module_& m, nb::class_<PyGraph>& cls) {
  (void)m;
  cls.def_static(
         "parse", [](const std::string& text) { return fromResult(parseGraph(text), ""); },
         nb::arg("text"),
         "Reads a graph from the text of a graph file. Raises GraphError when the text is not "
         "JSON or not a graph file; a readable but invalid graph is returned (see problems()).")
      .def_static(
          "load", [](const std::string& path) { return fromResult(loadGraphFile(path), path); },
          nb::arg("path"),
          "Reads a graph file. Raises GraphError (messages 'FILE:LINE:COLUMN: ...') when it "
          "cannot be read as a graph; a readable but invalid graph is returned.")
      .def(
          "problems", [](const PyGraph& g) { return problemsToPython(g.problems, &g.graph); },
          "Every problem of the reader and the validator, as dicts: message, layers and "
          "connections (ids), line and column (1-based, 0 when unknown), file.")
      .def(
          "reader_problems",
          [](const PyGraph& g) {
            const std::vector<Diagnostic> reader(g.problems.begin(),
                                                 g.problems.begin() + g.readerProblems);
            return problemsToPython(reader, &g.graph);
          },
          "The problems of the file's text alone (unknown keys and values, wrong types): what "
          "the reader could not keep in the graph.")
      .def(
          "to_json", [](const PyGraph& g) { return serializeGraph(g.graph); },
          "The canonical text of the graph file (fields at their defaults left out), as "
          "`rnnwb format` writes it.")
      .def_prop_ro(
          "name", [](const PyGraph& g) { return g.graph.name; }, "The graph's name.")
      .def_prop_ro(
          "path", [](const PyGraph& g) { return g.path; },
          "The file the graph was read from; empty for text.")
      .def(
          "analyze", &analysis,
          "The schedule: nodes in order, each {layers, recurrent, inner_order} (ids) and scan (the "
          "scan vector of a recurrent node, one integer per dimension), the input "
          "and output layers and each layer's largest delay out of it. Raises GraphError for an "
          "invalid graph.")
      .def("data_keys", &dataKeys,
           "The keys of a data file for this graph: {'inputs': [...], 'targets': [...]} in the "
           "order of the input and output layers.");
}

}  // namespace rnnwb::python
