#pragma once
// Reading the parts of ONNX's protobuf messages the importer needs: tensors (initializers,
// Constant values) as F32 or I64 Tensors, and node attributes with their defaults.
#include <cstdint>
#include <string>
#include <vector>

#include "onnx.pb.h"
#include "rnnwb/core/tensor.hpp"

namespace rnnwb::onnx_import {

/// FLOAT and DOUBLE as F32, INT32, INT64 and BOOL as I64; throws std::invalid_argument naming the
/// tensor for another type, external data, or data that does not fill the shape.
Tensor tensorFromProto(const onnx::TensorProto& proto);

const onnx::AttributeProto* findAttribute(const onnx::NodeProto& node, const std::string& name);
std::int64_t attributeInt(const onnx::NodeProto& node, const std::string& name,
                          std::int64_t otherwise);
float attributeFloat(const onnx::NodeProto& node, const std::string& name, float otherwise);
std::string attributeString(const onnx::NodeProto& node, const std::string& name,
                            const std::string& otherwise);
std::vector<std::int64_t> attributeInts(const onnx::NodeProto& node, const std::string& name);
std::vector<std::string> attributeStrings(const onnx::NodeProto& node, const std::string& name);

}  // namespace rnnwb::onnx_import
