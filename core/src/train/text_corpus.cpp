#include "rnnwb/core/train/text_corpus.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "rnnwb/core/bounded_read.hpp"

namespace rnnwb::train {
namespace {

[[noreturn]] void malformed(const std::string& source, std::size_t offset) {
  throw std::runtime_error(source + ": not valid UTF-8 at byte " + std::to_string(offset));
}

/// Decodes the sequence starting at bytes[i]; returns its length and stores the code point.
std::size_t decodeOne(std::string_view bytes, std::size_t i, const std::string& source,
                      char32_t& out) {
  const auto lead = static_cast<unsigned char>(bytes[i]);
  if (lead < 0x80) {
    out = lead;
    return 1;
  }
  int length = 0;
  char32_t minimum = 0;
  if ((lead & 0xE0) == 0xC0)
    length = 2, out = lead & 0x1F, minimum = 0x80;
  else if ((lead & 0xF0) == 0xE0)
    length = 3, out = lead & 0x0F, minimum = 0x800;
  else if ((lead & 0xF8) == 0xF0)
    length = 4, out = lead & 0x07, minimum = 0x10000;
  else
    malformed(source, i);
  if (i + length > bytes.size()) malformed(source, i);
  for (int k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(bytes[i + k]);
    if ((next & 0xC0) != 0x80) malformed(source, i);
    out = (out << 6) | (next & 0x3F);
  }
  if (out < minimum || out > 0x10FFFF || (out >= 0xD800 && out <= 0xDFFF)) malformed(source, i);
  return static_cast<std::size_t>(length);
}

}  // namespace

std::vector<char32_t> decodeUtf8(std::string_view bytes, const std::string& source) {
  std::vector<char32_t> out;
  out.reserve(bytes.size());
  std::size_t i = 0;
  // A byte-order mark says only that the file is UTF-8; it is not text.
  if (bytes.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < bytes.size()) {
    char32_t cp = 0;
    i += decodeOne(bytes, i, source, cp);
    out.push_back(cp);
  }
  return out;
}

std::string encodeUtf8(char32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

std::string describeCodePoint(char32_t cp) {
  if (cp == '\n') return "'\\n'";
  if (cp == '\t') return "'\\t'";
  if (cp > 0x20 && cp < 0x7F) return "'" + encodeUtf8(cp) + "'";
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "U+%04X", static_cast<unsigned>(cp));
  return buffer;
}

TextCorpus TextCorpus::load(const std::filesystem::path& path) {
  return fromText(readFileBounded(path, kTextFileLimit, "the text file"), path.string());
}

TextCorpus TextCorpus::fromText(std::string_view utf8, const std::string& source) {
  TextCorpus corpus;
  corpus.m_source = source;
  const std::vector<char32_t> points = decodeUtf8(utf8, source);
  if (points.size() < 2)
    throw std::runtime_error(source + ": a text to model needs at least two characters, it has " +
                             std::to_string(points.size()));
  corpus.m_vocabulary = points;
  std::sort(corpus.m_vocabulary.begin(), corpus.m_vocabulary.end());
  corpus.m_vocabulary.erase(std::unique(corpus.m_vocabulary.begin(), corpus.m_vocabulary.end()),
                            corpus.m_vocabulary.end());
  corpus.m_symbols.reserve(points.size());
  for (char32_t cp : points) {
    const auto it = std::lower_bound(corpus.m_vocabulary.begin(), corpus.m_vocabulary.end(), cp);
    corpus.m_symbols.push_back(static_cast<std::int32_t>(it - corpus.m_vocabulary.begin()));
  }
  return corpus;
}

double TextCorpus::unigramEntropy() const {
  std::vector<std::int64_t> counts(m_vocabulary.size(), 0);
  for (std::int32_t s : m_symbols) ++counts[s];
  double entropy = 0.0;
  const double total = static_cast<double>(m_symbols.size());
  for (std::int64_t c : counts)
    if (c > 0) entropy -= (c / total) * std::log(c / total);
  return entropy;
}

}  // namespace rnnwb::train
