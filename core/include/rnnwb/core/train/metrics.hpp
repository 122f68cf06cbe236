#pragma once
// metrics.jsonl: one JSON object per line, one line per report of a training run.
//
// Keys: step, frames (training frames over all streams so far), train_loss (mean nats per
// predicted frame since the previous report), valid_loss (only when measured at this step),
// frames_per_s, grad_norm (mean gradient norm before clipping since the previous report), lr,
// wall_s (seconds of training, summed over resumed sessions), wall_time (the Unix time of the
// report, seconds, as TensorBoard's events carry; files of an older rnnwb have none), and for the
// language model train_bpc / valid_bpc (the same losses in bits per character); the words task adds
// cer (the validation character error rate) and counts examples as its frames. Any other key with
// a number is kept as an extra metric (a task or tool may add `accuracy`), written back as read.
//
// The reader is made for a file that another process is still writing: it ignores keys it does
// not know, and it leaves a last line without its newline for the next read.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rnnwb::train {

struct MetricsRecord {
  std::int64_t step = 0;
  std::int64_t frames = 0;
  double trainLoss = 0.0;
  std::optional<double> validLoss;
  double framesPerS = 0.0;
  double gradNorm = 0.0;
  double lr = 0.0;
  double wallS = 0.0;
  std::optional<double> wallTime;  // Unix seconds; absent in files of an older rnnwb
  std::optional<double> trainBpc;
  std::optional<double> validBpc;
  std::optional<double> cer;            // words: validation character error rate (when validated)
  std::optional<double> wer;            // words: validation word error rate (when validated)
  std::optional<int> ranks;             // the processes of a data-parallel run; absent: one
  std::map<std::string, double> extra;  // other numeric keys, by name
  // Of train_loss, frames_per_s, grad_norm, lr and wall_s, those the line did not hold as
  // numbers (a file of another tool): their members read 0, and metricValue says they are absent.
  std::vector<std::string> missing;

  bool operator==(const MetricsRecord&) const = default;
};

/// One line of metrics.jsonl, without the newline. Doubles are written so that they read back
/// bit for bit.
std::string toJsonLine(const MetricsRecord& record);
/// Parses one line; returns nothing when it is not a JSON object with at least `step`.
std::optional<MetricsRecord> parseMetricsLine(const std::string& line);

/// Follows a metrics.jsonl file: each call returns the records of the lines completed since the
/// previous call. A missing file reads as empty (a run that has not reported yet).
///
/// A resumed run replaces the file (it drops the lines after its checkpoint, by writing a new
/// file and renaming it). The reader notices (another inode, or a shorter file) and reads the new
/// file from its start: restarted() is then true, and the follower should drop what it held.
class MetricsReader {
 public:
  explicit MetricsReader(std::filesystem::path path) : m_path(std::move(path)) {}
  std::vector<MetricsRecord> readNew();
  /// True when the last readNew() started the file over: its records replace all earlier ones.
  bool restarted() const { return m_restarted; }
  /// Complete lines that were not metrics objects (skipped).
  int skippedLines() const { return m_skipped; }

 private:
  std::filesystem::path m_path;
  std::uintmax_t m_offset = 0;
  std::uintmax_t m_inode = 0;
  bool m_restarted = false;
  int m_skipped = 0;
};

/// Every complete record of a file.
std::vector<MetricsRecord> readMetricsFile(const std::filesystem::path& path);

/// Appends records to metrics.jsonl, one flushed line each, so that a reader sees whole lines.
class MetricsWriter {
 public:
  /// Opens for appending; throws std::runtime_error naming the file when it cannot.
  explicit MetricsWriter(const std::filesystem::path& path);
  ~MetricsWriter();
  MetricsWriter(const MetricsWriter&) = delete;
  MetricsWriter& operator=(const MetricsWriter&) = delete;
  void append(const MetricsRecord& record);

 private:
  std::filesystem::path m_path;
  std::FILE* m_file = nullptr;
};

/// Keeps the records with step <= lastStep and drops the rest (lines written after the
/// checkpoint a run resumes from), rewriting the file atomically.
void truncateMetricsAfter(const std::filesystem::path& path, std::int64_t lastStep);

}  // namespace rnnwb::train
