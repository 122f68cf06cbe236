// Bounded JSON parsing, value descriptions for messages, and positions of members in the text.
#include "rnnwb/core/json_read.hpp"

#include <algorithm>
#include <map>

namespace rnnwb {
namespace {

using nlohmann::json;

// Nesting depth is counted on the raw text, outside strings, before nlohmann parses: its parser
// is iterative, but everything that later walks the value (dump, copy, compare) recurses.
void checkDepth(std::string_view text, int maxDepth) {
  int depth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        throw JsonReadError(positionOfByte(text, i), "JSON nested deeper than " +
                                                         std::to_string(maxDepth) +
                                                         " levels of arrays and objects");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// "[json.exception.out_of_range.406] number overflow parsing '1e999'" without its tag.
std::string afterTag(const std::string& what) {
  const auto end = what.find("] ");
  return end == std::string::npos ? what : what.substr(end + 2);
}

// Where the token quoted at the end of nlohmann's message ("... parsing '1e999'") first occurs.
TextPosition positionOfToken(std::string_view text, const std::string& what) {
  const auto open = what.find("parsing '");
  const auto close = what.rfind('\'');
  if (open == std::string::npos || close <= open + 9) return {};
  const auto at = text.find(what.substr(open + 9, close - open - 9));
  return at == std::string_view::npos ? TextPosition{} : positionOfByte(text, at);
}

// nlohmann's message carries its own "parse error at line 1, column 7: "; ours counts lines.
std::string parseErrorReason(const json::parse_error& e) {
  std::string reason = e.what();
  const auto at = reason.find("parse error");
  const auto colon = at == std::string::npos ? at : reason.find(": ", at);
  return "malformed JSON: " + (colon == std::string::npos ? reason : reason.substr(colon + 2));
}

// Edits between two words, a swap of neighbours counting as one ("szie" is one edit from
// "size"): optimal string alignment distance.
std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

TextPosition positionOfByte(std::string_view text, std::size_t offset) {
  TextPosition p{1, 1};
  offset = std::min(offset, text.size());
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n')
      ++p.line, p.column = 1;
    else
      ++p.column;
  }
  return p;
}

JsonReadError::JsonReadError(TextPosition position, std::string reason)
    : std::runtime_error("line " + std::to_string(position.line) + ", column " +
                         std::to_string(position.column) + ": " + reason),
      m_position(position),
      m_reason(std::move(reason)) {}

json parseJsonBounded(std::string_view text, int maxDepth) {
  checkDepth(text, maxDepth);
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // e.byte is 1-based and points one past the offending byte.
    throw JsonReadError(positionOfByte(text, e.byte == 0 ? 0 : e.byte - 1), parseErrorReason(e));
  } catch (const json::out_of_range& e) {
    // A number too large for a double ("1e999"): nlohmann names the token but not its place.
    throw JsonReadError(positionOfToken(text, e.what()), "malformed JSON: " + afterTag(e.what()));
  }
}

std::optional<json> tryParseJsonBounded(std::string_view text, int maxDepth) {
  try {
    return parseJsonBounded(text, maxDepth);
  } catch (const JsonReadError&) {
    return std::nullopt;
  }
}

std::string describeJsonValue(const json& value, std::size_t maxChars) {
  if (value.is_array()) return "an array of " + std::to_string(value.size()) + " values";
  if (value.is_object()) return "an object of " + std::to_string(value.size()) + " members";
  if (value.is_string() && value.get_ref<const std::string&>().size() > maxChars) {
    const std::string& s = value.get_ref<const std::string&>();
    return json(s.substr(0, maxChars)).dump(-1, ' ', false, json::error_handler_t::replace) +
           "... (" + std::to_string(s.size()) + " characters)";
  }
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<std::string> closestName(const std::string& word,
                                       const std::set<std::string>& known) {
  std::optional<std::string> best;
  std::size_t bestDistance = 3;
  for (const std::string& name : known) {
    const std::size_t d = editDistance(word, name);
    if (d < bestDistance && 2 * d < std::max(word.size(), name.size())) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

}  // namespace rnnwb
