#include "update_timeline.hpp"

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace rnnwb::train {
namespace {

std::int64_t nowMicroseconds() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::unique_ptr<UpdateTimeline> UpdateTimeline::fromEnvironment(int rank) {
  const char* prefix = std::getenv("RNNWB_UPDATE_TIMES");
  if (!prefix || !*prefix) return nullptr;
  return std::make_unique<UpdateTimeline>(std::string(prefix) + ".rank" + std::to_string(rank) +
                                          ".tsv");
}

UpdateTimeline::UpdateTimeline(const std::filesystem::path& file)
    : m_file(std::fopen(file.c_str(), "w")) {
  if (!m_file)
    throw std::runtime_error("RNNWB_UPDATE_TIMES: cannot write " + file.string() +
                             " (the folder of the prefix must exist)");
  std::fputs("update\tbegin\tfirst_final\tlast_final\tsum_start\tsum_done\n", m_file);
}

UpdateTimeline::~UpdateTimeline() {
  writeLine();
  std::fclose(m_file);
}

void UpdateTimeline::mark(Mark which) {
  const std::int64_t now = nowMicroseconds();
  if (which == kBegin) {
    writeLine();
    ++m_update;
    m_at.fill(-1);
  }
  if (m_update > 0) m_at[which] = now;
}

void UpdateTimeline::gradientsFinal(std::span<const GradientRange> ranges) {
  mark(m_at[kFirstFinal] < 0 ? kFirstFinal : kLastFinal);
  if (m_at[kLastFinal] < 0) m_at[kLastFinal] = m_at[kFirstFinal];  // a single report is both
  if (m_next) m_next->gradientsFinal(ranges);
}

void UpdateTimeline::writeLine() {
  if (m_update == 0) return;
  std::fprintf(m_file, "%lld", static_cast<long long>(m_update));
  for (const std::int64_t at : m_at) std::fprintf(m_file, "\t%lld", static_cast<long long>(at));
  std::fputc('\n', m_file);
}

}  // namespace rnnwb::train
