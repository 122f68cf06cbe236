#include "gradient_sum.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

namespace rnnwb::train {

GradientSum::GradientSum(dist::Communicator& world, bool overlap)
    : m_world(world), m_overlap(overlap) {}

void GradientSum::begin(std::span<float> gradients) {
  if (m_pending) throw std::logic_error("a gradient sum began before the previous one finished");
  m_gradients = gradients;
  m_pending = true;
  m_reported.clear();
  m_deferred.clear();
  m_lastReportBuckets = 0;
  m_lastReportFloats = 0;
}

void GradientSum::gradientsFinal(std::span<const GradientRange> ranges) {
  if (!m_pending) return;  // a backward pass outside an update's sum (none today)
  const std::vector<GradientRange> parts = merged({ranges.begin(), ranges.end()});
  m_reported.insert(m_reported.end(), parts.begin(), parts.end());
  if (!m_overlap) {
    m_deferred.insert(m_deferred.end(), parts.begin(), parts.end());
    return;
  }
  // The buckets the previous report started had nodes after them: those overlapped for sure.
  m_counts.startedEarly += m_lastReportBuckets;
  m_counts.floatsEarly += m_lastReportFloats;
  m_lastReportBuckets = 0;
  m_lastReportFloats = 0;
  for (const GradientRange& part : parts) {
    m_lastReportBuckets += start(part);
    m_lastReportFloats += static_cast<std::int64_t>(part.count);
  }
  // Open MPI moves a nonblocking collective only inside an MPI call: one between nodes.
  m_world.progressSums();
}

void GradientSum::finish(std::span<double> alongside) {
  if (!m_pending) throw std::logic_error("a gradient sum finished that never began");
  const auto waitBegins = std::chrono::steady_clock::now();
  for (const GradientRange& part : m_deferred) start(part);
  for (const GradientRange& part : unreported()) start(part);
  if (!alongside.empty()) m_world.startSumHost(alongside);
  m_world.finishSums();
  m_counts.waitSeconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - waitBegins).count();
  m_pending = false;
  ++m_counts.updates;
}

int GradientSum::start(GradientRange range) {
  int buckets = 0;
  const std::size_t bucket = m_world.bucketFloats();
  for (std::size_t first = 0; first < range.count; first += bucket, ++buckets)
    m_world.startSum(
        m_gradients.subspan(range.offset + first, std::min(bucket, range.count - first)));
  m_counts.buckets += buckets;
  m_counts.floats += static_cast<std::int64_t>(range.count);
  return buckets;
}

std::vector<GradientRange> GradientSum::merged(std::vector<GradientRange> reported) {
  std::sort(reported.begin(), reported.end(),
            [](const GradientRange& a, const GradientRange& b) { return a.offset < b.offset; });
  std::vector<GradientRange> out;
  for (const GradientRange& r : reported) {
    if (r.count == 0) continue;
    if (!out.empty() && out.back().offset + out.back().count == r.offset)
      out.back().count += r.count;
    else
      out.push_back(r);
  }
  return out;
}

std::vector<GradientRange> GradientSum::unreported() const {
  std::vector<GradientRange> reported = m_reported;
  std::sort(reported.begin(), reported.end(),
            [](const GradientRange& a, const GradientRange& b) { return a.offset < b.offset; });
  std::vector<GradientRange> gaps;
  std::size_t next = 0;
  for (const GradientRange& r : reported) {
    // A backend that reported an entry twice (or past the end) would have it summed twice.
    if (r.offset < next || r.offset + r.count > m_gradients.size())
      throw std::logic_error("the backend reported gradient entries " + std::to_string(r.offset) +
                             ".." + std::to_string(r.offset + r.count) +
                             " final twice or outside the buffer of " +
                             std::to_string(m_gradients.size()));
    if (r.offset > next) gaps.push_back({next, r.offset - next});
    next = r.offset + r.count;
  }
  if (next < m_gradients.size()) gaps.push_back({next, m_gradients.size() - next});
  return gaps;
}

}  // namespace rnnwb::train
