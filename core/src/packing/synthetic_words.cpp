// Synthetic handwriting-like words: FreeType renders a word with a random font, size, slant,
// stroke width, letter spacing and baseline jitter; SplitMix64 makes it the same on every machine.
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "rnnwb/core/bounded_read.hpp"
#include "rnnwb/core/packing/word_images.hpp"

namespace fs = std::filesystem;

namespace rnnwb::packing {

struct SyntheticWordGenerator::FreeType {
  FT_Library library = nullptr;
  std::vector<FT_Face> faces;
  ~FreeType() {
    for (FT_Face f : faces) FT_Done_Face(f);
    if (library) FT_Done_FreeType(library);
  }
};

namespace {

// The style of one word, drawn from the generator's random stream.
struct WordStyle {
  int font = 0;
  int pixelSize = 40;
  double slant = 0.2;    // horizontal shear, x += slant * y
  double stroke = 0.0;   // outline emboldening in pixels (negative thins)
  double spacing = 0.0;  // extra pixels between letters
  double jitter = 0.0;   // baseline wobble amplitude in pixels
  int marginX = 4, marginY = 4;
};

struct GlyphBitmap {
  int left = 0, top = 0, rows = 0, width = 0;
  std::vector<std::uint8_t> coverage;
};

std::vector<std::string> readWordList(const fs::path& file, const std::string& alphabet) {
  std::istringstream in(readFileBounded(file, kListFileLimit, "the word list"));
  const auto readable = [&alphabet](unsigned char c) {
    return std::isalpha(c) &&
           (alphabet.empty() || alphabet.find(static_cast<char>(c)) != std::string::npos);
  };
  std::vector<std::string> words;
  for (std::string w; std::getline(in, w);) {
    if (w.empty() || w.size() > 14) continue;
    if (std::all_of(w.begin(), w.end(), readable)) words.push_back(w);
  }
  if (words.empty())
    throw std::runtime_error(
        file.string() + ": no plain words in the list" +
        (alphabet.empty() ? std::string() : " written in '" + alphabet + "' alone"));
  return words;
}

std::vector<fs::path> defaultFonts() {
  const fs::path urw = "/usr/share/fonts/type1/urw-base35";
  const fs::path dejavu = "/usr/share/fonts/truetype/dejavu";
  const std::vector<fs::path> candidates{
      urw / "Z003-MediumItalic.t1",   urw / "URWBookman-LightItalic.t1",
      urw / "C059-Italic.t1",         urw / "NimbusRoman-Italic.t1",
      urw / "P052-Italic.t1",         urw / "NimbusSans-Regular.t1",
      urw / "URWGothic-Book.t1",      urw / "NimbusSansNarrow-Regular.t1",
      dejavu / "DejaVuSans.ttf",      dejavu / "DejaVuSerif.ttf",
      dejavu / "DejaVuSans-Bold.ttf", dejavu / "DejaVuSansMono.ttf"};
  std::vector<fs::path> found;
  for (const fs::path& f : candidates)
    if (fs::exists(f)) found.push_back(f);
  return found;
}

GlyphBitmap renderGlyph(FT_Face face, char c, const WordStyle& style) {
  if (FT_Load_Char(face, static_cast<unsigned char>(c), FT_LOAD_NO_BITMAP))
    throw std::runtime_error(std::string("FreeType cannot load '") + c + "'");
  FT_GlyphSlot slot = face->glyph;
  if (slot->format == FT_GLYPH_FORMAT_OUTLINE && style.stroke != 0.0)
    FT_Outline_Embolden(&slot->outline, static_cast<FT_Pos>(style.stroke * 64));
  if (FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL))
    throw std::runtime_error(std::string("FreeType cannot render '") + c + "'");
  const FT_Bitmap& b = slot->bitmap;
  GlyphBitmap g{
      slot->bitmap_left, slot->bitmap_top, static_cast<int>(b.rows), static_cast<int>(b.width), {}};
  g.coverage.resize(static_cast<std::size_t>(g.rows) * g.width);
  for (int y = 0; y < g.rows; ++y)
    std::copy_n(b.buffer + static_cast<std::ptrdiff_t>(y) * b.pitch, g.width,
                g.coverage.begin() + static_cast<std::ptrdiff_t>(y) * g.width);
  return g;
}

Image renderWord(FT_Face face, const std::string& word, const WordStyle& style) {
  FT_Set_Pixel_Sizes(face, 0, static_cast<FT_UInt>(style.pixelSize));
  FT_Matrix shear{0x10000, static_cast<FT_Fixed>(style.slant * 0x10000), 0, 0x10000};
  FT_Set_Transform(face, &shear, nullptr);
  std::vector<GlyphBitmap> glyphs;
  double pen = 0.0;
  int minX = 1 << 30, maxX = -(1 << 30), minY = 1 << 30, maxY = -(1 << 30);
  for (std::size_t k = 0; k < word.size(); ++k) {
    GlyphBitmap g = renderGlyph(face, word[k], style);
    g.left += static_cast<int>(std::lround(pen));
    g.top += static_cast<int>(std::lround(style.jitter * std::sin(1.7 * k + style.slant * 9)));
    pen += face->glyph->advance.x / 64.0 + style.spacing;
    minX = std::min(minX, g.left), maxX = std::max(maxX, g.left + g.width);
    minY = std::min(minY, -g.top), maxY = std::max(maxY, -g.top + g.rows);
    glyphs.push_back(std::move(g));
  }
  if (maxX <= minX || maxY <= minY) return Image(20, 20, 1, 255);
  Image image(maxY - minY + 2 * style.marginY, maxX - minX + 2 * style.marginX, 1, 255);
  for (const GlyphBitmap& g : glyphs)
    for (int y = 0; y < g.rows; ++y)
      for (int x = 0; x < g.width; ++x) {
        std::uint8_t* p =
            image.pixel(-g.top + y - minY + style.marginY, g.left + x - minX + style.marginX);
        const std::uint8_t ink = g.coverage[static_cast<std::size_t>(y) * g.width + x];
        *p = std::min<std::uint8_t>(*p, static_cast<std::uint8_t>(255 - ink));
      }
  return image;
}

// Pads a too small image with paper so that it is at least 20 x 20, like the smallest IAM words.
Image padToMinimum(Image image, int minimum) {
  if (image.height >= minimum && image.width >= minimum) return image;
  Image padded(std::max(image.height, minimum), std::max(image.width, minimum), 1, 255);
  for (int y = 0; y < image.height; ++y)
    std::copy_n(image.pixel(y, 0), image.width, padded.pixel(y, 0));
  return padded;
}

}  // namespace

SyntheticWordGenerator::SyntheticWordGenerator(SyntheticWordOptions options)
    : m_words(readWordList(options.wordList, options.alphabet)),
      m_fonts(options.fonts.empty() ? defaultFonts() : options.fonts),
      m_random(options.seed),
      m_minPixelSize(options.minPixelSize),
      m_maxPixelSize(options.maxPixelSize),
      m_ft(new FreeType) {
  if (m_minPixelSize < 4 || m_maxPixelSize < m_minPixelSize)
    throw std::invalid_argument("synthetic words: pixel sizes must satisfy 4 <= min <= max, got " +
                                std::to_string(m_minPixelSize) + " and " +
                                std::to_string(m_maxPixelSize));
  if (m_fonts.empty())
    throw std::runtime_error(
        "no fonts for synthetic words: install fonts-urw-base35 or "
        "fonts-dejavu-core");
  if (FT_Init_FreeType(&m_ft->library)) throw std::runtime_error("cannot start FreeType");
  for (const fs::path& f : m_fonts) {
    FT_Face face = nullptr;
    if (FT_New_Face(m_ft->library, f.c_str(), 0, &face))
      throw std::runtime_error(f.string() + ": FreeType cannot open this font");
    m_ft->faces.push_back(face);
  }
}

SyntheticWordGenerator::~SyntheticWordGenerator() { delete m_ft; }

WordImage SyntheticWordGenerator::next() {
  auto uniform = [this](double lo, double hi) { return lo + (hi - lo) * m_random.nextUnit(); };
  const std::string word = m_words[m_random.next() % m_words.size()];
  WordStyle s;
  s.font = static_cast<int>(m_random.next() % m_ft->faces.size());
  // Log-uniform sizes: most words small, a few large, as in IAM (heights ~20-200 px).
  s.pixelSize = static_cast<int>(std::lround(
      std::exp(uniform(std::log(double(m_minPixelSize)), std::log(double(m_maxPixelSize))))));
  s.slant = uniform(-0.1, 0.45);
  s.stroke = uniform(-0.02, 0.06) * s.pixelSize;
  s.spacing = uniform(-0.04, 0.1) * s.pixelSize;
  s.jitter = uniform(0.0, 0.06) * s.pixelSize;
  s.marginX = static_cast<int>(uniform(2, 10));
  s.marginY = static_cast<int>(uniform(2, 10));
  Image image = renderWord(m_ft->faces[s.font], word, s);
  // Too wide for an IAM word: render smaller until it fits in 1,000 pixels.
  while (image.width > 1000 && s.pixelSize > 8) {
    s.pixelSize = s.pixelSize * 3 / 4;
    image = renderWord(m_ft->faces[s.font], word, s);
  }
  return {word, padToMinimum(std::move(image), 20)};
}

std::vector<WordImage> generateSyntheticWords(int count, const SyntheticWordOptions& options) {
  SyntheticWordGenerator generator(options);
  std::vector<WordImage> words;
  words.reserve(std::max(count, 0));
  for (int i = 0; i < count; ++i) words.push_back(generator.next());
  return words;
}

}  // namespace rnnwb::packing
