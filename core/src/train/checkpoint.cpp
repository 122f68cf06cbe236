#include "rnnwb/core/train/checkpoint.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "rnnwb/core/engine/parameter_io.hpp"
#include "rnnwb/core/folder_file.hpp"
#include "rnnwb/core/safetensors.hpp"

namespace rnnwb::train {
namespace {

constexpr const char* kMarker = "rnnwb.checkpoint";

std::string hexDouble(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%a", value);
  return buffer;
}

class MetadataReader {
 public:
  explicit MetadataReader(const TensorFile& file) : m_file(file) {}
  bool has(const std::string& key) const { return m_file.metadata.count(key) > 0; }
  const std::string& text(const std::string& key) const {
    const auto it = m_file.metadata.find(key);
    if (it == m_file.metadata.end())
      throw std::runtime_error(m_file.path.string() + ": checkpoint metadata '" + key +
                               "' is missing");
    return it->second;
  }
  double real(const std::string& key) const {
    const std::string& s = text(key);
    char* end = nullptr;
    const double value = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0') bad(key, s);
    return value;
  }
  std::int64_t integer(const std::string& key) const {
    const std::string& s = text(key);
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno == ERANGE) bad(key, s);
    return value;
  }
  /// A count or a position: an integer >= 0 (a checkpoint at step -5 cannot be continued).
  std::int64_t count(const std::string& key) const {
    const std::int64_t value = integer(key);
    if (value < 0) impossible(key, text(key), "an integer >= 0");
    return value;
  }
  /// A finite double >= 0 (> 0 when `positive`).
  double amount(const std::string& key, bool positive = false) const {
    const double value = real(key);
    if (!std::isfinite(value) || value < 0 || (positive && value == 0))
      impossible(key, text(key), positive ? "a finite number > 0" : "a finite number >= 0");
    return value;
  }

  [[noreturn]] void impossible(const std::string& key, const std::string& value,
                               const std::string& expected) const {
    throw std::runtime_error(m_file.path.string() + ": checkpoint metadata '" + key + "' is " +
                             value + ", which no run can reach (expected " + expected + ")");
  }

 private:
  [[noreturn]] void bad(const std::string& key, const std::string& value) const {
    throw std::runtime_error(m_file.path.string() + ": checkpoint metadata '" + key +
                             "' is not a number: '" + value + "'");
  }
  const TensorFile& m_file;
};

std::map<std::string, std::string> positionMetadata(const TrainingPosition& p,
                                                    const OptimizerState& optimizer) {
  std::string buffers;
  for (const auto& [name, values] : optimizer.buffers)
    buffers += (buffers.empty() ? "" : ",") + name;
  return {{kMarker, "1"},
          {"step", std::to_string(p.step)},
          {"cursor", std::to_string(p.cursor)},
          {"wall_s", hexDouble(p.wallSeconds)},
          {"lr", hexDouble(p.learningRate)},
          {"previous_valid_loss", p.previousValidLoss ? hexDouble(*p.previousValidLoss) : ""},
          {"halvings", std::to_string(p.halvings)},
          {"interval_loss_sum", hexDouble(p.interval.lossSum)},
          {"interval_predicted_frames", std::to_string(p.interval.predictedFrames)},
          {"interval_grad_norm_sum", hexDouble(p.interval.gradNormSum)},
          {"interval_updates", std::to_string(p.interval.updates)},
          {"optimizer_buffers", buffers},
          {"optimizer_updates", std::to_string(optimizer.updates)},
          {"config", p.config},
          {"owed_report", std::to_string(p.owedReport)}};
}

TrainingPosition readPosition(const MetadataReader& m) {
  TrainingPosition p;
  p.step = m.count("step");
  p.cursor = m.count("cursor");
  p.wallSeconds = m.amount("wall_s");
  p.learningRate = m.amount("lr");
  if (!m.text("previous_valid_loss").empty()) p.previousValidLoss = m.real("previous_valid_loss");
  const std::int64_t halvings = m.count("halvings");
  if (halvings > 1000) m.impossible("halvings", m.text("halvings"), "at most 1000");
  p.halvings = static_cast<int>(halvings);
  p.interval.lossSum = m.real("interval_loss_sum");
  p.interval.predictedFrames = m.count("interval_predicted_frames");
  p.interval.gradNormSum = m.real("interval_grad_norm_sum");
  p.interval.updates = m.count("interval_updates");
  if (m.has("config")) p.config = m.text("config");
  if (m.has("owed_report")) {
    const std::int64_t owed = m.count("owed_report");
    if (owed > 2) m.impossible("owed_report", m.text("owed_report"), "0, 1 or 2");
    p.owedReport = static_cast<int>(owed);
  }
  if (p.interval.updates > p.step)
    m.impossible("interval_updates", m.text("interval_updates"),
                 "at most the step, " + std::to_string(p.step));
  return p;
}

std::vector<std::string> splitNames(const std::string& list) {
  std::vector<std::string> names;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');) names.push_back(name);
  return names;
}

}  // namespace

std::map<std::string, std::string> checkpointMetadata(const TrainingPosition& position,
                                                      const OptimizerState& optimizer) {
  return positionMetadata(position, optimizer);
}

TrainingPosition readCheckpointPosition(const TensorFile& file, OptimizerKind optimizer,
                                        std::vector<std::string>& bufferNames,
                                        std::int64_t& optimizerUpdates) {
  if (!file.metadata.count(kMarker))
    throw std::runtime_error(file.path.string() + ": not a training checkpoint (no '" +
                             std::string(kMarker) + "' in its metadata)");
  const MetadataReader meta(file);
  bufferNames = optimizer == OptimizerKind::Sgd ? std::vector<std::string>{"velocity"}
                                                : std::vector<std::string>{"m", "v"};
  if (splitNames(meta.text("optimizer_buffers")) != bufferNames)
    throw std::runtime_error(file.path.string() +
                             ": the checkpoint holds the state of another "
                             "optimizer than '" +
                             std::string(toString(optimizer)) + "'");
  optimizerUpdates = meta.count("optimizer_updates");
  return readPosition(meta);
}

void saveCheckpoint(const std::filesystem::path& path, const CompiledPlan& plan,
                    const Checkpoint& c) {
  TensorMap tensors = parametersToTensors(c.parameters, true);
  ParameterSet buffer = ParameterSet::zerosLike(c.parameters);
  for (const auto& [name, values] : c.optimizer.buffers) {
    std::copy(values.begin(), values.end(), buffer.values().begin());
    tensors.merge(parametersToTensors(buffer, false, "optimizer." + name + "."));
  }
  tensors.merge(c.streams.toTensors(plan, "streams."));
  for (const auto& [key, tensor] : c.backendState) tensors.emplace(key, tensor);
  // A checkpoint replaces whatever is at its name (a planted link too), never writes through it.
  writeFolderFile(path, serializeSafetensors(tensors, checkpointMetadata(c.position, c.optimizer)));
}

Checkpoint loadCheckpoint(const std::filesystem::path& path, const CompiledPlan& plan, int streams,
                          OptimizerKind optimizer) {
  const TensorFile file = readSafetensors(path);
  std::vector<std::string> expected;
  std::int64_t updates = 0;
  TrainingPosition position = readCheckpointPosition(file, optimizer, expected, updates);
  Checkpoint c{parametersFromTensors(plan, file), {}, {}, position};
  c.optimizer.updates = updates;
  ParameterSet buffer = ParameterSet::zerosLike(c.parameters);
  for (const std::string& name : expected) {
    readParameterValues(file, "optimizer." + name + ".", buffer);
    c.optimizer.buffers.emplace_back(
        name, std::vector<float>(buffer.values().begin(), buffer.values().end()));
  }
  // A run that had not yet carried any state (still inside its first chunk) saved none.
  bool anyState = false;
  for (const auto& [key, tensor] : file.tensors) anyState |= key.rfind("streams.", 0) == 0;
  if (anyState) c.streams = StreamState::fromTensors(plan, file, "streams.", streams);
  for (const auto& [key, tensor] : file.tensors)
    if (key.rfind("rtrl.", 0) == 0) c.backendState.emplace(key, tensor);
  file.rejectUnread("a checkpoint of this graph", {"rtrl."});
  return c;
}

}  // namespace rnnwb::train
