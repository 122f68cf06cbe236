#pragma once
// Reading and writing safetensors files (graph-format.md, "Weights and data files"): an 8-byte
// little-endian header length, a JSON header {key: {dtype, shape, data_offsets}, "__metadata__":
// {string: string}}, then the raw little-endian data. Only F32 and I64 tensors are supported;
// NumPy (safetensors.numpy) and PyTorch (safetensors.torch) read what this writes.
#include <filesystem>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "rnnwb/core/tensor.hpp"

namespace rnnwb {

using TensorMap = std::map<std::string, Tensor>;

/// The contents of one safetensors file, with the path kept for error messages.
struct TensorFile {
  std::filesystem::path path;
  TensorMap tensors;
  std::map<std::string, std::string> metadata;  // the optional "__metadata__" object
  mutable std::set<std::string> readKeys;       // tensors asked for through at() or require()

  bool contains(std::string_view key) const { return tensors.count(std::string(key)) > 0; }
  /// The tensor under key; throws std::runtime_error "PATH: no tensor 'KEY'" when absent.
  const Tensor& at(std::string_view key) const;
  /// As at(), and checks dtype and shape: "PATH: tensor 'KEY' is F32 [4, 3], expected F32 [3, 4]".
  const Tensor& require(std::string_view key, DType dtype, const Shape& shape) const;
  /// After the reader took what it needs: throws std::runtime_error "PATH: tensor 'KEY' is not
  /// part of WHAT" for a tensor never asked for whose key has none of `otherParts` as a prefix
  /// (an extra tensor is a typo in a key or a file for another graph, not something to ignore).
  void rejectUnread(const std::string& what,
                    std::initializer_list<std::string_view> otherParts = {}) const;
};

/// Reads a file; throws std::runtime_error naming the file (and the key, where one is at fault)
/// for an unreadable file, a malformed header, an unsupported dtype or out-of-range offsets.
TensorFile readSafetensors(const std::filesystem::path& path);
/// Parses the bytes of a file; `origin` names it in messages.
TensorFile parseSafetensors(std::string_view bytes, const std::filesystem::path& origin);

/// The bytes of a file holding these tensors (keys in map order, header padded with spaces to a
/// multiple of 8 bytes so that the data is aligned).
std::string serializeSafetensors(const TensorMap& tensors,
                                 const std::map<std::string, std::string>& metadata = {});
/// Writes atomically (writeFileAtomically): a failure never leaves a half-written file.
void writeSafetensors(const std::filesystem::path& path, const TensorMap& tensors,
                      const std::map<std::string, std::string>& metadata = {});

}  // namespace rnnwb
