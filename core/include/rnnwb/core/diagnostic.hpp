#pragma once
// A problem found in a graph or a graph file, with what it concerns, so that the command line can
// print it and the editor can outline the offending layers and connections.
#include <stdexcept>
#include <string>
#include <vector>

namespace rnnwb {

struct Diagnostic {
  std::string message;           // names the layer or connection, e.g. "layer 'h': ..."
  std::vector<int> layers;       // indices into Graph::layers
  std::vector<int> connections;  // indices into Graph::connections
  int line = 0;                  // 1-based position in the file, 0 when unknown
  int column = 0;
  std::string file = {};  // the file it was found in, empty when unknown (a graph being edited)
};

/// Thrown where a valid graph is required; what() lists every problem, one per line.
class GraphError : public std::runtime_error {
 public:
  explicit GraphError(std::vector<Diagnostic> problems);
  const std::vector<Diagnostic>& problems() const { return m_problems; }

 private:
  std::vector<Diagnostic> m_problems;
};

}  // namespace rnnwb
