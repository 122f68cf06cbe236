#include "rnnwb/core/safetensors.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "rnnwb/core/bounded_read.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/json_read.hpp"
#include "rnnwb/core/memory_size.hpp"

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; a big-endian host needs byte swapping");

namespace rnnwb {
namespace {

// A header larger than this is certainly not a weights file (the reference implementation
// refuses headers over 100 MB too).
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

[[noreturn]] void fail(const std::filesystem::path& origin, const std::string& message) {
  throw std::runtime_error(origin.string() + ": " + message);
}

std::size_t bytesPerElement(DType dtype) { return dtype == DType::F32 ? 4 : 8; }

Shape parseShape(const nlohmann::json& entry, const std::filesystem::path& origin,
                 const std::string& key) {
  if (!entry.contains("shape") || !entry["shape"].is_array())
    fail(origin, "tensor '" + key + "' has no shape array");
  Shape shape;
  for (const auto& d : entry["shape"]) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0)
      fail(origin, "tensor '" + key +
                       "' has a dimension that is not an integer >= 0: " + describeJsonValue(d));
    shape.push_back(d.get<std::int64_t>());
  }
  return shape;
}

// The bytes a shape needs, or nullopt when that does not fit in 64 bits: a header claiming
// [2^30, 2^30, 16] must not wrap around to a size that matches an empty data section.
std::optional<std::uint64_t> checkedBytes(const Shape& shape, std::uint64_t bytesPerElement) {
  std::uint64_t bytes = bytesPerElement;
  for (std::int64_t d : shape)
    if (__builtin_mul_overflow(bytes, static_cast<std::uint64_t>(d), &bytes)) return std::nullopt;
  return bytes;
}

// Tensors must tile the data section exactly, as the reference implementation demands: no two
// share bytes, and no byte belongs to none (trailing or unclaimed data means a damaged file).
void checkTiling(std::vector<std::tuple<std::uint64_t, std::uint64_t, std::string>> ranges,
                 std::uint64_t dataBytes, const std::filesystem::path& origin) {
  std::sort(ranges.begin(), ranges.end());
  std::uint64_t covered = 0;
  std::string previous;
  for (const auto& [begin, end, key] : ranges) {
    if (begin < covered)
      fail(origin, "tensors '" + previous + "' and '" + key + "' overlap (data_offsets " +
                       std::to_string(begin) + " < " + std::to_string(covered) + ")");
    if (begin > covered)
      fail(origin, "data bytes " + std::to_string(covered) + " to " + std::to_string(begin) +
                       " belong to no tensor");
    covered = end;
    previous = key;
  }
  if (covered != dataBytes)
    fail(origin, std::to_string(dataBytes - covered) + " trailing data bytes after the last " +
                     "tensor (the data section holds " + std::to_string(dataBytes) + " bytes)");
}

Tensor parseTensor(const std::string& key, const nlohmann::json& entry, std::string_view data,
                   const std::filesystem::path& origin) {
  if (!entry.is_object()) fail(origin, "header entry '" + key + "' is not an object");
  const auto dtypeEntry = entry.find("dtype");
  if (dtypeEntry != entry.end() && !dtypeEntry->is_string())
    fail(origin, "tensor '" + key +
                     "' has a dtype that is not a string: " + describeJsonValue(*dtypeEntry));
  const std::string dtypeText =
      dtypeEntry == entry.end() ? std::string() : dtypeEntry->get<std::string>();
  DType dtype;
  if (dtypeText == "F32")
    dtype = DType::F32;
  else if (dtypeText == "I64")
    dtype = DType::I64;
  else
    fail(origin, "tensor '" + key + "' has dtype '" + dtypeText +
                     "' (only F32 and I64 are "
                     "supported)");
  const Shape shape = parseShape(entry, origin, key);
  const auto& offsets = entry.value("data_offsets", nlohmann::json());
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned())
    fail(origin, "tensor '" + key + "' has no valid data_offsets [begin, end]");
  const auto begin = offsets[0].get<std::uint64_t>();
  const auto end = offsets[1].get<std::uint64_t>();
  const std::optional<std::uint64_t> needed = checkedBytes(shape, bytesPerElement(dtype));
  if (!needed)
    fail(origin, "tensor '" + key + "' has shape " + shapeToString(shape) +
                     ", more elements than 64 bits can count");
  const std::uint64_t count = *needed / bytesPerElement(dtype);
  if (begin > end || end > data.size())
    fail(origin, "tensor '" + key + "' has data_offsets [" + std::to_string(begin) + ", " +
                     std::to_string(end) + "] outside the " + std::to_string(data.size()) +
                     " data bytes");
  if (end - begin != *needed)
    fail(origin, "tensor '" + key + "' holds " + std::to_string(end - begin) + " bytes, but " +
                     dtypeText + " " + shapeToString(shape) + " needs " + std::to_string(*needed));
  // An empty tensor's vector has no storage: memcpy from or to a null pointer is undefined even
  // for 0 bytes (UBSan's report in tst_safetensors).
  if (dtype == DType::F32) {
    std::vector<float> values(count);
    if (count > 0) std::memcpy(values.data(), data.data() + begin, end - begin);
    return Tensor::fromF32(shape, std::move(values));
  }
  std::vector<std::int64_t> values(count);
  if (count > 0) std::memcpy(values.data(), data.data() + begin, end - begin);
  return Tensor::fromI64(shape, std::move(values));
}

}  // namespace

const Tensor& TensorFile::at(std::string_view key) const {
  auto it = tensors.find(std::string(key));
  if (it == tensors.end()) fail(path, "no tensor '" + std::string(key) + "'");
  readKeys.insert(it->first);
  return it->second;
}

void TensorFile::rejectUnread(const std::string& what,
                              std::initializer_list<std::string_view> otherParts) const {
  for (const auto& [key, tensor] : tensors) {
    if (readKeys.count(key)) continue;
    bool other = false;
    for (std::string_view prefix : otherParts) other |= key.starts_with(prefix);
    if (!other)
      fail(path, "tensor '" + key + "' (" + tensor.describe() + ") is not part of " + what +
                     " (a misspelt key, or a file for another graph?)");
  }
}

const Tensor& TensorFile::require(std::string_view key, DType dtype, const Shape& shape) const {
  const Tensor& tensor = at(key);
  if (tensor.dtype() != dtype || tensor.shape() != shape)
    fail(path, "tensor '" + std::string(key) + "' is " + tensor.describe() + ", expected " +
                   std::string(toString(dtype)) + " " + shapeToString(shape));
  return tensor;
}

TensorFile parseSafetensors(std::string_view bytes, const std::filesystem::path& origin) {
  if (bytes.size() < 8) fail(origin, "not a safetensors file (shorter than 8 bytes)");
  std::uint64_t headerBytes = 0;
  std::memcpy(&headerBytes, bytes.data(), 8);
  if (headerBytes > kMaxHeaderBytes || headerBytes > bytes.size() - 8)
    fail(origin, "not a safetensors file (header length " + std::to_string(headerBytes) +
                     " for a file of " + std::to_string(bytes.size()) + " bytes)");
  nlohmann::json header;
  try {
    header = parseJsonBounded(bytes.substr(8, headerBytes));
  } catch (const JsonReadError& e) {
    fail(origin, "safetensors header, line " + std::to_string(e.position().line) + ", column " +
                     std::to_string(e.position().column) + ": " + e.reason());
  }
  if (!header.is_object()) fail(origin, "malformed safetensors header: not a JSON object");
  const std::string_view data = bytes.substr(8 + headerBytes);
  TensorFile file;
  file.path = origin;
  std::vector<std::tuple<std::uint64_t, std::uint64_t, std::string>> ranges;
  for (const auto& [key, entry] : header.items()) {
    if (key == "__metadata__") {
      if (!entry.is_object()) fail(origin, "__metadata__ is not an object");
      for (const auto& [name, value] : entry.items()) {
        if (!value.is_string()) fail(origin, "__metadata__ '" + name + "' is not a string");
        file.metadata[name] = value.get<std::string>();
      }
      continue;
    }
    const Tensor& tensor =
        file.tensors.emplace(key, parseTensor(key, entry, data, origin)).first->second;
    const std::uint64_t begin = entry["data_offsets"][0].get<std::uint64_t>();
    ranges.emplace_back(begin, begin + tensor.elements() * bytesPerElement(tensor.dtype()), key);
  }
  checkTiling(std::move(ranges), data.size(), origin);
  return file;
}

TensorFile readSafetensors(const std::filesystem::path& path) {
  // Only a plain file: a device has no end to bound by (a checkpoint linked to /dev/zero), and
  // no file larger than this machine's memory can be read into it.
  if (struct stat info{}; ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
    fail(path, S_ISDIR(info.st_mode) ? "a folder, not a file" : "not a plain file");
  const std::uint64_t memory = physicalMemoryBytes();
  return parseSafetensors(
      readFileBounded(path, memory ? memory : ~std::uint64_t{0}, "the safetensors file"), path);
}

std::string serializeSafetensors(const TensorMap& tensors,
                                 const std::map<std::string, std::string>& metadata) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::uint64_t offset = 0;
  for (const auto& [key, tensor] : tensors) {
    const std::uint64_t bytes = tensor.elements() * bytesPerElement(tensor.dtype());
    header[key] = {{"dtype", toString(tensor.dtype())},
                   {"shape", tensor.shape()},
                   {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string headerText = header.dump();
  headerText.append((8 - headerText.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  const std::uint64_t headerBytes = headerText.size();
  std::memcpy(out.data(), &headerBytes, 8);
  out += headerText;
  out.reserve(out.size() + offset);
  for (const auto& [key, tensor] : tensors) {
    if (tensor.dtype() == DType::F32) {
      const auto values = tensor.f32();
      out.append(reinterpret_cast<const char*>(values.data()), values.size_bytes());
    } else {
      const auto values = tensor.i64();
      out.append(reinterpret_cast<const char*>(values.data()), values.size_bytes());
    }
  }
  return out;
}

void writeSafetensors(const std::filesystem::path& path, const TensorMap& tensors,
                      const std::map<std::string, std::string>& metadata) {
  writeFileAtomically(path, serializeSafetensors(tensors, metadata));
}

}  // namespace rnnwb
