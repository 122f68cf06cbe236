#pragma once
// A UTF-8 text as a sequence of vocabulary indices, for character-level language modelling.
// The vocabulary is the set of code points that occur in the file, in increasing code-point
// order, so that one file always gives the same vocabulary.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace rnnwb::train {

/// Decodes UTF-8 into code points. Throws std::runtime_error naming `source` and the byte
/// offset of the first malformed sequence (overlong forms and surrogates are malformed too).
std::vector<char32_t> decodeUtf8(std::string_view bytes, const std::string& source);
/// One code point as UTF-8.
std::string encodeUtf8(char32_t codePoint);
/// A code point as a reader would want to see it in a message: 'a', '\n', U+00A0.
std::string describeCodePoint(char32_t codePoint);

class TextCorpus {
 public:
  /// Reads and decodes a file; throws naming the file when it cannot be read, is not UTF-8, or
  /// holds fewer than two code points.
  static TextCorpus load(const std::filesystem::path& path);
  static TextCorpus fromText(std::string_view utf8, const std::string& source);

  const std::vector<char32_t>& vocabulary() const { return m_vocabulary; }
  int vocabularySize() const { return static_cast<int>(m_vocabulary.size()); }
  /// The text as indices into vocabulary().
  const std::vector<std::int32_t>& symbols() const { return m_symbols; }
  /// Entropy in nats of the text's own symbol frequencies (what a model without context reaches).
  double unigramEntropy() const;
  const std::string& source() const { return m_source; }

 private:
  std::string m_source;
  std::vector<char32_t> m_vocabulary;
  std::vector<std::int32_t> m_symbols;
};

}  // namespace rnnwb::train
