// JsonLocator: one pass over JSON text that already parsed, noting where the members asked for
// start. nlohmann keeps no positions, and a message without a line sends the user searching.
#include <algorithm>
#include <map>

#include "rnnwb/core/json_read.hpp"

namespace rnnwb {
namespace {

// Where the member at the scanner's current path starts, for every request of that path.
class PathScanner {
 public:
  PathScanner(std::string_view text, const std::vector<JsonPath>& paths) : m_text(text) {
    for (std::size_t i = 0; i < paths.size(); ++i) {
      m_wanted[paths[i]].push_back(i);
      m_maxDepth = std::max(m_maxDepth, paths[i].size());
    }
    m_offsets.assign(paths.size(), std::string_view::npos);
  }

  std::vector<std::size_t> scan() {
    std::size_t i = 0;
    while (i < m_text.size()) i = step(i);
    return m_offsets;
  }

 private:
  std::size_t step(std::size_t i) {
    const char c = m_text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':') return i + 1;
    if (m_arrayValuePending && c != ']') {
      m_path.back() = std::to_string(m_indices.back());
      record(i);
    }
    m_arrayValuePending = false;
    switch (c) {
      case '{':
      case '[':
        m_kinds.push_back(c);
        m_path.emplace_back();
        m_indices.push_back(0);
        m_keyPending = c == '{';
        m_arrayValuePending = c == '[';
        return i + 1;
      case '}':
      case ']':
        if (!m_kinds.empty()) m_kinds.pop_back(), m_path.pop_back(), m_indices.pop_back();
        m_keyPending = false;
        return i + 1;
      case ',':
        if (!m_kinds.empty() && m_kinds.back() == '[')
          ++m_indices.back(), m_arrayValuePending = true;
        m_keyPending = !m_kinds.empty() && m_kinds.back() == '{';
        return i + 1;
      case '"':
        return string(i);
      default:  // a number or a literal
        while (i < m_text.size() &&
               std::string_view(",]} \t\r\n").find(m_text[i]) == std::string_view::npos)
          ++i;
        return i;
    }
  }

  std::size_t string(std::size_t begin) {
    std::size_t end = begin + 1;
    while (end < m_text.size() && m_text[end] != '"') end += m_text[end] == '\\' ? 2 : 1;
    end = std::min(end + 1, m_text.size());
    if (m_keyPending) {
      m_keyPending = false;
      const auto key = tryParseJsonBounded(m_text.substr(begin, end - begin), 1);
      if (key && key->is_string()) {
        m_path.back() = key->get<std::string>();
        record(begin);
      }
    }
    return end;
  }

  void record(std::size_t offset) {
    if (m_path.size() > m_maxDepth) return;
    const auto it = m_wanted.find(m_path);
    if (it == m_wanted.end()) return;
    for (std::size_t request : it->second)
      if (m_offsets[request] == std::string_view::npos) m_offsets[request] = offset;
  }

  std::string_view m_text;
  std::map<JsonPath, std::vector<std::size_t>> m_wanted;
  std::size_t m_maxDepth = 0;
  std::vector<std::size_t> m_offsets;
  JsonPath m_path;                   // keys and indices of the enclosing members
  std::vector<char> m_kinds;         // '{' or '[' for each level
  std::vector<long> m_indices;       // element index for each array level
  bool m_keyPending = false;         // the next string is an object's key
  bool m_arrayValuePending = false;  // the next token starts an array element
};

}  // namespace

std::vector<TextPosition> JsonLocator::locate(const std::vector<JsonPath>& paths) const {
  std::vector<TextPosition> found(paths.size());
  if (paths.empty()) return found;
  const std::vector<std::size_t> offsets = PathScanner(m_text, paths).scan();
  // Offsets to lines and columns in one sweep, in text order.
  std::vector<std::size_t> order(paths.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return offsets[a] < offsets[b]; });
  TextPosition at{1, 1};
  std::size_t byte = 0;
  for (std::size_t request : order) {
    if (offsets[request] == std::string_view::npos) break;
    for (; byte < offsets[request]; ++byte) {
      if (m_text[byte] == '\n')
        ++at.line, at.column = 1;
      else
        ++at.column;
    }
    found[request] = at;
  }
  return found;
}

}  // namespace rnnwb
