#pragma once
// Where every example of one batch lies in a packed tensor (spec/packing.md), and the row blocks
// that input skewing shifts one by one.
#include <span>
#include <string>
#include <vector>

namespace rnnwb::packing {

/// The separator between neighbouring examples and between rows (spec: s = 1).
inline constexpr int kSeparator = 1;

struct ExampleSize {
  int height = 0;
  int width = 0;
  bool operator==(const ExampleSize&) const = default;
};

/// One row block of the packed tensor: pixel rows [top, top + height), columns [0, length).
/// length = sum of its examples' widths + separators between them.
struct PackedRow {
  int top = 0;
  int height = 0;
  int length = 0;
};

/// One example's place: its index in the batch, its row block, and its top-left corner (x, y)
/// in packed coordinates. An example may be lower than its row (better packers); the rest of
/// its column span in the row is padding.
struct ExamplePlace {
  int index = 0;
  int row = 0;
  int x = 0;
  int y = 0;
  int height = 0;
  int width = 0;
};

/// A packed batch: H x Wp cells, skewed H x Ws. places[i] is example i's place (places[i].index
/// == i); rows are in stacking order (top to bottom), separated by kSeparator zero rows.
struct PackedLayout {
  int height = 0;
  int width = 0;
  int skewedWidth = 0;
  std::vector<PackedRow> rows;
  std::vector<ExamplePlace> places;

  long long cells() const { return static_cast<long long>(height) * width; }
  long long skewedCells() const { return static_cast<long long>(height) * skewedWidth; }
};

/// For packers: stacks `rows` top to bottom in their order with kSeparator rows between them
/// (sets each top), moves every place's y from row-relative (on entry: counted from its row's
/// top) to packed coordinates, sets height, width and skewedWidth, and checks that every place
/// lies inside its row block and no two examples of a row overlap or touch without a separator.
/// Throws std::invalid_argument naming the offending example.
void finishLayout(PackedLayout& layout);

/// The row length W a batch is packed into: `rowWidth` when > 0 (every example must fit: an
/// example wider than it is an error naming its index), else the widest example.
int resolveRowWidth(std::span<const ExampleSize> sizes, int rowWidth, int firstIndex = 0);

}  // namespace rnnwb::packing
