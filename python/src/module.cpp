// rnnwb._core: the nanobind extension of the rnnwb package. Thin: every rule lives in core/;
// this only converts arrays, releases the GIL around the engine and names the errors.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "call_arrays.hpp"
#include "errors.hpp"
#include "rnnwb/core/engine/product_precision.hpp"
#include "rnnwb/core/engine/products.hpp"

NB_MODULE(_core, m) {
  namespace py = rnnwb::python;
  m.doc() =
      "The C++ core of RNN Workbench (graphs, the CPU engine, training); use the rnnwb "
      "package rather than this module.";
  py::importNumpyApi();
  py::bindErrors(m);
  m.def("set_threads", &rnnwb::setComputeThreads, nanobind::arg("threads"),
        "Sets the engine's threads for the graphs that compute for the first time after it.");
  m.def("threads", &rnnwb::computeThreads, "The engine's thread count.");
  m.def(
      "set_precision",
      [](const std::string& name) {
        rnnwb::setProductPrecision(rnnwb::productPrecisionFromName(name));
      },
      nanobind::arg("precision"),
      "Sets the CPU engine's products to 'f32' or 'bf16' (bf16 inputs, f32 sums: the CLI's "
      "--precision), process-wide as set_threads is. Set it before a graph first computes: its "
      "recurrent steps' packed weights take the precision then. bf16 raises RuntimeError naming "
      "the instruction set where the processor has no AVX-512 BF16 or AMX.");
  m.def(
      "precision",
      [] { return std::string(rnnwb::productPrecisionName(rnnwb::productPrecision())); },
      "The CPU engine's product precision: 'f32' or 'bf16'.");
  nanobind::class_<py::PyGraph> cls(m, "Graph",
                                    "A graph as read from a file or text, with its CPU engine.");
  py::bindGraph(m, cls);
  py::bindNumbers(m, cls);
  py::bindTools(m, cls);
  py::bindTrain(m);
}
