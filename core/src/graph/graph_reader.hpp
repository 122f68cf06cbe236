#pragma once
// The graph reader's state, shared by graph_reader.cpp (version 1's fields and the flow) and
// graph_reader_v2.cpp (version 2's fields). Private to core.
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/json_read.hpp"

namespace rnnwb::detail {

std::string inQuotes(const std::string& s);
std::string unknownKey(const std::string& key, const std::set<std::string>& known,
                       const char* what = "unknown key ");
JsonPath memberPath(const char* list, int index, const std::string& key);

// Collects the reader's problems and remembers which layers and connections they concern, so
// that validation does not pile consequences on top of a field the reader could not read.
class GraphReader {
 public:
  GraphLoadResult read(std::string_view text);

 private:
  using json = nlohmann::json;
  // `where` is the member the problem is about (a key path), found in the text at the end.
  void problem(std::string message, JsonPath where = {}) {
    m_problems.push_back({std::move(message), {}, {}, 0, 0});
    m_where.push_back(std::move(where));
  }
  void layerProblem(int index, const std::string& message, const std::string& key = {});
  void connectionProblem(int index, const std::string& message, const std::string& key = {});
  void locateProblems(std::string_view text);
  bool readHeader(const json& doc);
  void readLayer(int index, const json& item);
  void readLayerValues(int index, const json& item);
  void readConnection(int index, const json& item);
  void readConnectionType(int index, const json& item);
  void readConnectionValues(int index, const json& item);
  std::string layerLabel(int index) const;
  std::string connectionLabel(int index) const;
  std::optional<int> readInt(const json& value, long long min, long long max);
  void addValidationProblems();

  // Version 2 (graph_reader_v2.cpp).
  void readDimensions(const json& doc);
  bool version2Key(const std::string& key, const std::set<std::string>& onlyInV2, int layer,
                   int connection);
  std::string readDelay(int index, const json& value);  // the problem, or empty
  void readVersion2Layer(int index, const json& item);
  void readVersion2Connection(int index, const json& item);
  std::optional<double> readNumber(const json& item, const char* key, int layer, int connection);
  void checkDelayArity();

  Graph m_graph;
  int m_version = kGraphFormatVersion;
  std::vector<Diagnostic> m_problems;
  std::vector<JsonPath> m_where;  // one per reader problem
  std::set<int> m_brokenLayers, m_brokenConnections;
  std::vector<bool> m_connectionHasId;
  std::vector<int> m_delayArity;  // components the file wrote per connection: 0, 1 or 2
};

}  // namespace rnnwb::detail
