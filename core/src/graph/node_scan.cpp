#include "node_scan.hpp"

#include "rnnwb/core/scan_order.hpp"

namespace rnnwb::detail {

NodeScan scanOfNode(const Graph& graph, const std::vector<int>& inside, int dimensions) {
  std::vector<DelayVector> delays;
  std::vector<int> connectionOf;
  for (int c : inside) {
    const Connection& connection = graph.connections[c];
    if (!connection.isDelayed()) continue;
    delays.push_back({connection.delay, connection.delayY});
    connectionOf.push_back(c);
  }
  NodeScan scan;
  if (delays.empty()) return scan;  // a zero-delay cycle, which the validator names
  ScanSearch search = findScanOrder(delays, dimensions == 2 ? 2 : 1);
  scan.sigma = std::move(search.sigma);
  for (int k : search.blocking) scan.blocking.push_back(connectionOf[k]);
  return scan;
}

std::string delayText(const Connection& c, int dimensions) {
  if (dimensions != 2 && c.delayY == 0) return std::to_string(c.delay);
  return "[" + std::to_string(c.delay) + ", " + std::to_string(c.delayY) + "]";
}

}  // namespace rnnwb::detail
