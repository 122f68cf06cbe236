// The IAM database's transcription files (words.txt, lines.txt) and image tree.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "rnnwb/core/bounded_read.hpp"
#include "rnnwb/core/packing/word_images.hpp"

namespace fs = std::filesystem;

namespace rnnwb::packing {
namespace {

fs::path findImageIn(const fs::path& imageDir, const std::string& id) {
  const auto first = id.find('-');
  const auto second = first == std::string::npos ? first : id.find('-', first + 1);
  if (second != std::string::npos) {
    const fs::path tree = imageDir / id.substr(0, first) / id.substr(0, second) / (id + ".png");
    if (fs::exists(tree)) return tree;
  }
  const fs::path flat = imageDir / (id + ".png");
  return fs::exists(flat) ? flat : fs::path{};
}

// a01-000u-00-00 -> DIR/a01/a01-000u/a01-000u-00-00.png, else DIR/<id>.png, for DIR the image
// folder itself or its words/ or lines/ subfolder (the IAM download unpacks into those).
fs::path findImage(const fs::path& imageDir, const std::string& id) {
  for (const fs::path& dir : {imageDir, imageDir / "words", imageDir / "lines"})
    if (fs::path found = findImageIn(dir, id); !found.empty()) return found;
  return {};
}

}  // namespace

std::vector<LabeledImageFile> readIamTranscriptions(const fs::path& transcriptions,
                                                    const fs::path& imageDir) {
  std::istringstream in(readFileBounded(transcriptions, kListFileLimit, "the transcription list"));
  std::vector<LabeledImageFile> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::string where = transcriptions.string() + ":" + std::to_string(number) + ": ";
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string field; fields >> field;) f.push_back(field);
    // words.txt: id ok gray x y w h tag text; lines.txt: id ok gray parts x y w h text.
    if (f.size() < 9 || (f[1] != "ok" && f[1] != "err"))
      throw std::runtime_error(where + "expected 'ID ok|err ...' with 9 fields, got '" +
                               line.substr(0, 120) + "'");
    // An id names a file inside the image folder; one with a path in it ('../..') could read
    // any file on the machine.
    if (f[0].find_first_of("/\\") != std::string::npos || f[0].find("..") != std::string::npos)
      throw std::runtime_error(where + "the id '" + f[0].substr(0, 80) +
                               "' holds '/', '\\' or '..': an IAM id names a file inside " +
                               imageDir.string() + ", never a path");
    LabeledImageFile entry{f[0], f[1] == "ok", f[8], {}};
    for (std::size_t k = 9; k < f.size(); ++k) entry.text += " " + f[k];
    std::replace(entry.text.begin(), entry.text.end(), '|', ' ');
    entry.image = findImage(imageDir, entry.id);
    if (entry.image.empty())
      throw std::runtime_error(where + "no image " + entry.id + ".png under " + imageDir.string());
    out.push_back(std::move(entry));
  }
  return out;
}

fs::path findIamTranscriptions(const fs::path& dir) {
  for (const char* name : {"words.txt", "lines.txt", "ascii/words.txt", "ascii/lines.txt"})
    if (fs::is_regular_file(dir / name)) return dir / name;
  return {};
}

std::vector<fs::path> listPngFiles(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw std::runtime_error(dir.string() + ": not a directory");
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".png")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace rnnwb::packing
