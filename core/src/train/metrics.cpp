#include "rnnwb/core/train/metrics.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "rnnwb/core/bounded_read.hpp"
#include "rnnwb/core/folder_file.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/json_read.hpp"

namespace rnnwb::train {
namespace {

using nlohmann::json;

std::optional<double> optionalNumber(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

double number(const json& j, const char* key) { return optionalNumber(j, key).value_or(0.0); }

/// The keys MetricsRecord has a member for; every other numeric key is an extra.
bool isKnownKey(const std::string& key) {
  static const char* const kKnown[] = {
      "step",   "frames",    "train_loss", "valid_loss", "frames_per_s", "grad_norm", "lr",
      "wall_s", "wall_time", "train_bpc",  "valid_bpc",  "cer",          "wer",       "ranks"};
  for (const char* known : kKnown)
    if (key == known) return true;
  return false;
}

}  // namespace

std::string toJsonLine(const MetricsRecord& r) {
  // nlohmann writes doubles with the shortest text that reads back to the same value; ordered so
  // that a person reading the file sees step first.
  // A key the record was read without stays out (it reads back the same).
  const auto has = [&r](const char* key) {
    return std::find(r.missing.begin(), r.missing.end(), key) == r.missing.end();
  };
  nlohmann::ordered_json j = {{"step", r.step}, {"frames", r.frames}};
  if (has("train_loss")) j["train_loss"] = r.trainLoss;
  if (r.trainBpc) j["train_bpc"] = *r.trainBpc;
  if (r.validLoss) j["valid_loss"] = *r.validLoss;
  if (r.validBpc) j["valid_bpc"] = *r.validBpc;
  if (r.cer) j["cer"] = *r.cer;
  if (r.wer) j["wer"] = *r.wer;
  if (has("grad_norm")) j["grad_norm"] = r.gradNorm;
  if (has("lr")) j["lr"] = r.lr;
  if (has("frames_per_s")) j["frames_per_s"] = r.framesPerS;
  if (has("wall_s")) j["wall_s"] = r.wallS;
  if (r.wallTime) j["wall_time"] = *r.wallTime;
  if (r.ranks) j["ranks"] = *r.ranks;
  for (const auto& [key, value] : r.extra)
    if (!isKnownKey(key)) j[key] = value;
  return j.dump();
}

std::optional<MetricsRecord> parseMetricsLine(const std::string& line) {
  const std::optional<json> parsed = tryParseJsonBounded(line);
  if (!parsed || !parsed->is_object()) return std::nullopt;
  const json& j = *parsed;
  const auto step = j.find("step");
  if (step == j.end() || !step->is_number_integer()) return std::nullopt;
  MetricsRecord r;
  r.step = step->get<std::int64_t>();
  if (const auto f = j.find("frames"); f != j.end() && f->is_number_integer())
    r.frames = f->get<std::int64_t>();
  r.trainLoss = number(j, "train_loss");
  r.validLoss = optionalNumber(j, "valid_loss");
  r.framesPerS = number(j, "frames_per_s");
  r.gradNorm = number(j, "grad_norm");
  r.lr = number(j, "lr");
  r.wallS = number(j, "wall_s");
  r.wallTime = optionalNumber(j, "wall_time");
  r.trainBpc = optionalNumber(j, "train_bpc");
  r.validBpc = optionalNumber(j, "valid_bpc");
  r.cer = optionalNumber(j, "cer");
  r.wer = optionalNumber(j, "wer");
  if (const auto n = j.find("ranks"); n != j.end() && n->is_number_integer())
    r.ranks = n->get<int>();
  for (const char* key : {"train_loss", "frames_per_s", "grad_norm", "lr", "wall_s"})
    if (!optionalNumber(j, key)) r.missing.emplace_back(key);
  for (const auto& [key, value] : j.items())
    if (value.is_number() && !isKnownKey(key)) r.extra[key] = value.get<double>();
  return r;
}

std::vector<MetricsRecord> MetricsReader::readNew() {
  std::vector<MetricsRecord> records;
  m_restarted = false;
  std::ifstream in(m_path, std::ios::binary);
  struct stat info {};
  if (!in || ::stat(m_path.c_str(), &info) != 0) return records;
  in.seekg(0, std::ios::end);
  const std::streamoff end = in.tellg();
  if (end < 0 || !S_ISREG(info.st_mode)) return records;  // a folder or a device: no lines
  const auto size = static_cast<std::uintmax_t>(end);
  const auto inode = static_cast<std::uintmax_t>(info.st_ino);
  if (m_offset > 0 && (inode != m_inode || size < m_offset)) {
    m_offset = 0;  // the file was replaced (a resumed run dropped lines)
    m_skipped = 0;
    m_restarted = true;
  }
  m_inode = inode;
  in.seekg(static_cast<std::streamoff>(m_offset));
  std::string tail(size - m_offset, '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  tail.resize(static_cast<std::size_t>(in.gcount()));
  std::size_t begin = 0;
  for (std::size_t end; (end = tail.find('\n', begin)) != std::string::npos; begin = end + 1) {
    const std::string line = tail.substr(begin, end - begin);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (auto record = parseMetricsLine(line))
      records.push_back(*record);
    else
      ++m_skipped;
  }
  m_offset += begin;  // an unfinished last line is read again next time
  return records;
}

std::vector<MetricsRecord> readMetricsFile(const std::filesystem::path& path) {
  requireNotAFolder(path, "the metrics file");
  return MetricsReader(path).readNew();
}

MetricsWriter::MetricsWriter(const std::filesystem::path& path) : m_path(path) {
  m_file = openFolderFileForAppending(path);
  if (!m_file)
    throw std::runtime_error(path.string() +
                             ": cannot open for appending: " + std::strerror(errno));
}

MetricsWriter::~MetricsWriter() {
  if (m_file) std::fclose(m_file);
}

void MetricsWriter::append(const MetricsRecord& record) {
  // One fwrite of the whole line, then a flush, so that a follower never sees half a line
  // except while this very write is in progress.
  const std::string line = toJsonLine(record) + "\n";
  errno = 0;
  if (std::fwrite(line.data(), 1, line.size(), m_file) != line.size() || std::fflush(m_file) != 0)
    throw std::runtime_error(m_path.string() + ": cannot append the report of step " +
                             std::to_string(record.step) + ": " +
                             (errno ? std::strerror(errno) : "write error"));
}

void truncateMetricsAfter(const std::filesystem::path& path, std::int64_t lastStep) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  std::ostringstream kept;
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a line without its newline was never finished
    const auto record = parseMetricsLine(line);
    if (record && record->step <= lastStep) kept << line << '\n';
  }
  in.close();
  writeFolderFile(path, kept.str());
}

}  // namespace rnnwb::train
