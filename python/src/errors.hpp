#pragma once
// The project's exceptions as Python's: a GraphError becomes rnnwb.errors.GraphError with its
// problems (message, layer and connection ids, line, column, file); std::invalid_argument
// ValueError, std::out_of_range IndexError, other std::exceptions RuntimeError (nanobind's own
// translation), each with the message the command line prints after "error: ".
#include <nanobind/nanobind.h>

#include <functional>

#include "rnnwb/core/diagnostic.hpp"
#include "rnnwb/core/graph.hpp"

namespace rnnwb::python {

namespace nb = nanobind;

/// A GraphError whose layer and connection indices were named with a graph's ids.
class NamedGraphError : public GraphError {
 public:
  NamedGraphError(const GraphError& error, const Graph* graph);
  nb::list pythonProblems() const;

 private:
  std::vector<std::vector<std::string>> m_layerIds, m_connectionIds;  // per problem
};

/// The problems as a list of dicts {message, layers, connections, line, column, file}; ids from
/// `graph` where given (else the indices as text).
nb::list problemsToPython(const std::vector<Diagnostic>& problems, const Graph* graph);

/// Runs body; a GraphError escaping it is rethrown named with `graph`'s ids.
void withGraphNames(const Graph* graph, const std::function<void()>& body);

/// Registers the translator of NamedGraphError and GraphError.
void bindErrors(nb::module_& m);

}  // namespace rnnwb::python
