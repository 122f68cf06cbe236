#pragma once
// One function per binding file; module.cpp calls them in order.
#include <nanobind/nanobind.h>

#include "py_graph.hpp"

namespace rnnwb::python {

namespace nb = nanobind;

void bindGraph(nb::module_& m, nb::class_<PyGraph>& cls);
void bindNumbers(nb::module_& m, nb::class_<PyGraph>& cls);
void bindTrain(nb::module_& m);
void bindTools(nb::module_& m, nb::class_<PyGraph>& cls);

}  // namespace rnnwb::python
