#pragma once
// A boolean matrix stored column by column, each column a packed bit set over the rows: the form
// in which SnAp patterns are built, since a column of I or M_n is the set of state units that one
// parameter reaches, and unions of such sets are what the mask recursion computes.
#include <bit>
#include <cstdint>
#include <vector>

namespace rnnwb::snap {

class BitMatrix {
 public:
  BitMatrix() = default;
  /// rows x columns, all zero.
  BitMatrix(int rows, int columns)
      : m_rows(rows),
        m_columns(columns),
        m_words((rows + 63) / 64),
        m_bits(static_cast<std::size_t>(m_words) * columns, 0) {}

  int rows() const { return m_rows; }
  int columns() const { return m_columns; }
  /// 64-bit words per column.
  int words() const { return m_words; }

  bool test(int row, int column) const { return (word(column)[row >> 6] >> (row & 63)) & 1u; }
  void set(int row, int column) { word(column)[row >> 6] |= std::uint64_t{1} << (row & 63); }

  /// The packed bits of one column: words() words, bit r of the column at word r/64, bit r%64.
  const std::uint64_t* word(int column) const {
    return m_bits.data() + static_cast<std::size_t>(column) * m_words;
  }
  std::uint64_t* word(int column) {
    return m_bits.data() + static_cast<std::size_t>(column) * m_words;
  }

  /// column `to` |= column `from` of `source` (same number of rows).
  void orColumn(int to, const BitMatrix& source, int from) {
    std::uint64_t* dst = word(to);
    const std::uint64_t* src = source.word(from);
    for (int w = 0; w < m_words; ++w) dst[w] |= src[w];
  }
  int countColumn(int column) const {
    int count = 0;
    const std::uint64_t* bits = word(column);
    for (int w = 0; w < m_words; ++w) count += std::popcount(bits[w]);
    return count;
  }
  /// The rows set in a column, ascending.
  std::vector<int> rowsOf(int column) const {
    std::vector<int> out;
    const std::uint64_t* bits = word(column);
    for (int w = 0; w < m_words; ++w)
      for (std::uint64_t b = bits[w]; b; b &= b - 1) out.push_back(w * 64 + std::countr_zero(b));
    return out;
  }

  bool operator==(const BitMatrix&) const = default;

 private:
  int m_rows = 0;
  int m_columns = 0;
  int m_words = 0;
  std::vector<std::uint64_t> m_bits;
};

}  // namespace rnnwb::snap
