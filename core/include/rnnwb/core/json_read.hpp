#pragma once
// Reading JSON from files people and programs write: every reader of the project (graph files,
// configs, safetensors headers, metrics lines) parses through here, so that nesting is bounded
// before anything recursive (nlohmann's dump(), copies, comparisons) walks the value, and so that
// every syntax error names its line and column the same way.
#include <cstddef>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace rnnwb {

/// Deeper than any file of this project needs (a graph file nests 4 levels, a workbench "ui"
/// object a few more), far below what exhausts a thread's stack in a recursive walk.
constexpr int kMaxJsonDepth = 256;

struct TextPosition {
  int line = 0;  // 1-based; 0 when unknown
  int column = 0;
};

/// Line and column of byte `offset` in `text` (columns count bytes, as editors show for ASCII).
TextPosition positionOfByte(std::string_view text, std::size_t offset);

/// A syntax error, or nesting deeper than allowed. what() is "line L, column C: REASON"; the
/// reason itself never repeats the position.
class JsonReadError : public std::runtime_error {
 public:
  JsonReadError(TextPosition position, std::string reason);
  TextPosition position() const { return m_position; }
  const std::string& reason() const { return m_reason; }

 private:
  TextPosition m_position;
  std::string m_reason;
};

/// Parses `text`, refusing nesting deeper than `maxDepth` before nlohmann builds anything.
/// Throws JsonReadError.
nlohmann::json parseJsonBounded(std::string_view text, int maxDepth = kMaxJsonDepth);
/// As parseJsonBounded, but returns nullopt instead of throwing (metrics lines, followers).
std::optional<nlohmann::json> tryParseJsonBounded(std::string_view text,
                                                  int maxDepth = kMaxJsonDepth);

/// A value as a message may show it: scalars as JSON (strings cut to `maxChars`), arrays and
/// objects only by kind and size, so that no message echoes an unbounded value.
std::string describeJsonValue(const nlohmann::json& value, std::size_t maxChars = 40);

/// The closest of `known` to `word` when it is a likely typo (at most two edits, and fewer than
/// half the word's letters), for "did you mean 'activation'?".
std::optional<std::string> closestName(const std::string& word, const std::set<std::string>& known);

/// A member's place in a document: object keys and array indices from the root.
using JsonPath = std::vector<std::string>;

/// Finds where members sit in JSON text that parsed. One pass over the text answers every path
/// asked for, so that a file with many problems is still read once.
class JsonLocator {
 public:
  explicit JsonLocator(std::string_view text) : m_text(text) {}
  /// Where the member's key (objects) or value (arrays) starts, for each path; {0, 0} when the
  /// path is not in the text.
  std::vector<TextPosition> locate(const std::vector<JsonPath>& paths) const;

 private:
  std::string_view m_text;
};

}  // namespace rnnwb
