#include "errors.hpp"

#include <nanobind/stl/string.h>

namespace rnnwb::python {

namespace {

std::string connectionName(const Connection& c) {
  return c.id.empty() ? defaultConnectionId(c.from, c.to, c.delay) : c.id;
}

std::vector<std::string> layerIds(const Diagnostic& d, const Graph* g) {
  std::vector<std::string> ids;
  for (int l : d.layers)
    ids.push_back(g && l >= 0 && l < int(g->layers.size()) ? g->layers[l].id : std::to_string(l));
  return ids;
}

std::vector<std::string> connectionIds(const Diagnostic& d, const Graph* g) {
  std::vector<std::string> ids;
  for (int c : d.connections)
    ids.push_back(g && c >= 0 && c < int(g->connections.size()) ? connectionName(g->connections[c])
                                                                : std::to_string(c));
  return ids;
}

nb::dict problemDict(const Diagnostic& d, const std::vector<std::string>& layers,
                     const std::vector<std::string>& connections) {
  nb::dict p;
  p["message"] = d.message;
  nb::list l, c;
  for (const auto& id : layers) l.append(id);
  for (const auto& id : connections) c.append(id);
  p["layers"] = l;
  p["connections"] = c;
  p["line"] = d.line;
  p["column"] = d.column;
  p["file"] = d.file;
  return p;
}

void raiseGraphError(const char* message, const nb::list& problems) {
  const nb::object cls = nb::module_::import_("rnnwb.errors").attr("GraphError");
  const nb::object error = cls(message, problems);
  PyErr_SetObject(cls.ptr(), error.ptr());
}

}  // namespace

NamedGraphError::NamedGraphError(const GraphError& error, const Graph* graph)
    : GraphError(error.problems()) {
  for (const Diagnostic& d : problems()) {
    m_layerIds.push_back(layerIds(d, graph));
    m_connectionIds.push_back(connectionIds(d, graph));
  }
}

nb::list NamedGraphError::pythonProblems() const {
  nb::list out;
  for (std::size_t i = 0; i < problems().size(); ++i)
    out.append(problemDict(problems()[i], m_layerIds[i], m_connectionIds[i]));
  return out;
}

nb::list problemsToPython(const std::vector<Diagnostic>& problems, const Graph* graph) {
  nb::list out;
  for (const Diagnostic& d : problems)
    out.append(problemDict(d, layerIds(d, graph), connectionIds(d, graph)));
  return out;
}

void withGraphNames(const Graph* graph, const std::function<void()>& body) {
  try {
    body();
  } catch (const NamedGraphError&) {
    throw;
  } catch (const GraphError& e) {
    throw NamedGraphError(e, graph);
  }
}

void bindErrors(nb::module_&) {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const NamedGraphError& e) {
      raiseGraphError(e.what(), e.pythonProblems());
    } catch (const GraphError& e) {
      raiseGraphError(e.what(), problemsToPython(e.problems(), nullptr));
    }
  });
}

}  // namespace rnnwb::python
