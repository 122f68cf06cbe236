#include "word_recognizer.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "blas.hpp"
#include "rnnwb/core/engine/parameter_init.hpp"
#include "rnnwb/core/mdlstm/ctc_loss.hpp"
#include "rnnwb/core/packing/packers.hpp"
#include "rnnwb/core/train/optimizer.hpp"

namespace rnnwb::mdlstm {

using packing::ExampleSize;
using packing::PackedLayout;

struct WordRecognizer::Tape {
  std::vector<BlockConvTape> conv;
  std::vector<PackedLayout> layouts;
  std::vector<std::array<Mdlstm2dTape, 4>> scans;
};

namespace {

// Channels [first, first + part.channels) of `all` <- part (same grid).
void putChannels(FeatureMap& all, const FeatureMap& part, int first) {
  for (std::size_t cell = 0; cell < static_cast<std::size_t>(part.cells()); ++cell)
    std::copy_n(part.data.begin() + cell * part.channels, part.channels,
                all.data.begin() + cell * all.channels + first);
}

FeatureMap takeChannels(const FeatureMap& all, int first, int count) {
  FeatureMap part(all.height, all.width, count);
  for (std::size_t cell = 0; cell < static_cast<std::size_t>(all.cells()); ++cell)
    std::copy_n(all.data.begin() + cell * all.channels + first, count,
                part.data.begin() + cell * count);
  return part;
}

// Sum over the height: H x W x C -> W frames x C, row-major.
std::vector<float> collapseColumns(const FeatureMap& m) {
  std::vector<float> seq(static_cast<std::size_t>(m.width) * m.channels, 0.0f);
  for (int x = 0; x < m.width; ++x)
    for (int y = 0; y < m.height; ++y)
      for (int c = 0; c < m.channels; ++c) seq[std::size_t(x) * m.channels + c] += m.at(y, x, c);
  return seq;
}

}  // namespace

WordRecognizer::WordRecognizer(RecognizerConfig config, std::uint64_t seed)
    : m_config(std::move(config)) {
  int channels = 1;
  std::uint64_t next = seed;
  for (const RecognizerLayerConfig& l : m_config.layers) {
    Stage& s = m_stages.emplace_back();
    s.config = l;
    if (l.kind == RecognizerLayerConfig::Kind::BlockConv) {
      s.conv = BlockConvParameters(channels, l.outputs, l.blockHeight, l.blockWidth);
      s.convGrad = s.conv;
      s.conv.initialize(++next);
      channels = l.outputs;
    } else {
      for (int d = 0; d < 4; ++d) {
        s.scans[d] = Mdlstm2dParameters(channels, l.units);
        s.scanGrads[d] = s.scans[d];
        s.scans[d].initialize(++next);
      }
      channels = 4 * l.units;
    }
  }
  m_features = channels;
  const int classes = static_cast<int>(m_config.alphabet.size()) + 1;
  m_outWeights.assign(static_cast<std::size_t>(classes) * channels, 0.0f);
  m_outBias.assign(classes, 0.0f);
  SplitMix64 random(++next);
  fillUniformFanIn(m_outWeights, static_cast<double>(channels), random);
  m_outWeightsGrad = m_outWeights;
  m_outBiasGrad = m_outBias;
  for (std::vector<float>* t : parameters()) {
    m_adamM.emplace_back(t->size(), 0.0f);
    m_adamV.emplace_back(t->size(), 0.0f);
  }
}

std::vector<std::vector<float>*> WordRecognizer::parameters() {
  std::vector<std::vector<float>*> out;
  for (Stage& s : m_stages) {
    if (s.config.kind == RecognizerLayerConfig::Kind::BlockConv) {
      for (auto* t : s.conv.tensors()) out.push_back(t);
    } else {
      for (auto& p : s.scans)
        for (auto* t : p.tensors()) out.push_back(t);
    }
  }
  out.push_back(&m_outWeights);
  out.push_back(&m_outBias);
  return out;
}

std::vector<std::vector<float>*> WordRecognizer::gradients() {
  std::vector<std::vector<float>*> out;
  for (Stage& s : m_stages) {
    if (s.config.kind == RecognizerLayerConfig::Kind::BlockConv) {
      for (auto* t : s.convGrad.tensors()) out.push_back(t);
    } else {
      for (auto& p : s.scanGrads)
        for (auto* t : p.tensors()) out.push_back(t);
    }
  }
  out.push_back(&m_outWeightsGrad);
  out.push_back(&m_outBiasGrad);
  return out;
}

std::vector<std::string> WordRecognizer::parameterNames() const {
  static const char* const kConv[] = {"weight", "bias"};
  static const char* const kScan[] = {"input_weight", "left_weight", "up_weight", "bias"};
  std::vector<std::string> names;
  for (std::size_t s = 0; s < m_stages.size(); ++s) {
    const std::string stage = "layers." + std::to_string(s) + ".";
    if (m_stages[s].config.kind == RecognizerLayerConfig::Kind::BlockConv) {
      for (const char* t : kConv) names.push_back(stage + t);
    } else {
      for (int d = 0; d < 4; ++d)
        for (const char* t : kScan) names.push_back(stage + "scan" + std::to_string(d) + "." + t);
    }
  }
  names.push_back("output.weight");
  names.push_back("output.bias");
  return names;
}

std::size_t WordRecognizer::parameterCount() {
  std::size_t n = 0;
  for (auto* t : parameters()) n += t->size();
  return n;
}

std::vector<int> WordRecognizer::encode(const std::string& text, int index) const {
  std::vector<int> labels;
  for (char c : text) {
    const auto at = m_config.alphabet.find(c);
    if (at == std::string::npos)
      throw std::invalid_argument("example " + std::to_string(index) + " ('" + text +
                                  "'): character '" + std::string(1, c) +
                                  "' is not in the alphabet of model '" + m_config.name + "'");
    labels.push_back(static_cast<int>(at) + 1);
  }
  return labels;
}

std::vector<FeatureMap> WordRecognizer::forward(std::vector<FeatureMap> x, Tape& tape,
                                                long long& cells) {
  tape.conv.resize(m_stages.size());
  tape.layouts.resize(m_stages.size());
  tape.scans.resize(m_stages.size());
  for (std::size_t s = 0; s < m_stages.size(); ++s) {
    Stage& stage = m_stages[s];
    if (stage.config.kind == RecognizerLayerConfig::Kind::BlockConv) {
      x = blockConvForward(stage.conv, x, tape.conv[s]);
      continue;
    }
    std::vector<ExampleSize> sizes;
    for (const FeatureMap& m : x) sizes.push_back({m.height, m.width});
    const PackedLayout& layout = tape.layouts[s] = m_config.packer == "none"
                                                       ? packing::padBatch(sizes)
                                                       : packing::packWith(m_config.packer, sizes);
    const FeatureMap packed = packing::pack(layout, x);
    const int n = stage.config.units;
    FeatureMap all(layout.height, layout.width, 4 * n);
    for (int d = 0; d < 4; ++d)
      putChannels(all,
                  mdlstmForwardPacked(stage.scans[d], layout, packed, packing::kScanDirections[d],
                                      tape.scans[s][d]),
                  d * n);
    cells += layout.skewedCells();
    x = packing::unpack(layout, all);
  }
  return x;
}

void WordRecognizer::backward(std::vector<FeatureMap> dx, Tape& tape) {
  for (std::size_t s = m_stages.size(); s-- > 0;) {
    Stage& stage = m_stages[s];
    if (stage.config.kind == RecognizerLayerConfig::Kind::BlockConv) {
      dx = blockConvBackward(stage.conv, tape.conv[s], dx, stage.convGrad);
      continue;
    }
    const PackedLayout& layout = tape.layouts[s];
    const FeatureMap dAll = packing::pack(layout, dx);
    const int n = stage.config.units;
    FeatureMap dIn(layout.height, layout.width, stage.scans[0].inputs);
    for (int d = 0; d < 4; ++d) {
      const FeatureMap part =
          mdlstmBackwardPacked(stage.scans[d], layout, packing::kScanDirections[d],
                               tape.scans[s][d], takeChannels(dAll, d * n, n), stage.scanGrads[d]);
      for (std::size_t k = 0; k < dIn.data.size(); ++k) dIn.data[k] += part.data[k];
    }
    dx = packing::unpack(layout, dIn);
  }
}

std::vector<float> WordRecognizer::logitsOf(const std::vector<float>& sequence, int frames) const {
  const int classes = static_cast<int>(m_config.alphabet.size()) + 1;
  std::vector<float> logits(static_cast<std::size_t>(frames) * classes);
  for (int t = 0; t < frames; ++t)
    std::copy(m_outBias.begin(), m_outBias.end(), logits.begin() + std::size_t(t) * classes);
  gemm(false, true, frames, classes, m_features, 1.0f, sequence.data(), m_features,
       m_outWeights.data(), m_features, 1.0f, logits.data(), classes);
  return logits;
}

FeatureMap WordRecognizer::outputBackward(const FeatureMap& features,
                                          const std::vector<float>& sequence,
                                          const std::vector<float>& dLogits) {
  const int classes = static_cast<int>(m_config.alphabet.size()) + 1, C = m_features;
  const int T = features.width;
  std::vector<float> dSeq(static_cast<std::size_t>(T) * C, 0.0f);
  gemm(false, false, T, C, classes, 1.0f, dLogits.data(), classes, m_outWeights.data(), C, 0.0f,
       dSeq.data(), C);
  gemm(true, false, classes, C, T, 1.0f, dLogits.data(), classes, sequence.data(), C, 1.0f,
       m_outWeightsGrad.data(), C);
  for (int t = 0; t < T; ++t)
    for (int k = 0; k < classes; ++k) m_outBiasGrad[k] += dLogits[std::size_t(t) * classes + k];
  FeatureMap d(features.height, T, C);
  for (int x = 0; x < T; ++x)  // the column sum hands its gradient to every row
    for (int y = 0; y < d.height; ++y)
      std::copy_n(dSeq.begin() + std::size_t(x) * C, C, d.data.begin() + d.offset(y, x));
  return d;
}

RecognizerReport WordRecognizer::run(const std::vector<WordExample>& batch, bool withBackward) {
  RecognizerReport report;
  report.examples = static_cast<int>(batch.size());
  std::vector<std::vector<int>> labels;
  std::vector<FeatureMap> inputs;
  for (std::size_t e = 0; e < batch.size(); ++e) {
    labels.push_back(encode(batch[e].text, static_cast<int>(e)));
    inputs.push_back(packing::inkFeatures(batch[e].image));
  }
  Tape tape;
  const std::vector<FeatureMap> features = forward(std::move(inputs), tape, report.mdlstmCells);
  const int classes = static_cast<int>(m_config.alphabet.size()) + 1;
  std::vector<std::vector<float>> sequences, dLogits(batch.size());
  long long edits = 0, characters = 0;
  for (std::size_t e = 0; e < batch.size(); ++e) {
    const int T = features[e].width;
    sequences.push_back(collapseColumns(features[e]));
    const std::vector<float> logits = logitsOf(sequences[e], T);
    edits += editDistance(ctcGreedyDecode(logits, T, classes), labels[e]);
    characters += static_cast<long long>(labels[e].size());
    CtcResult ctc = ctcLoss(logits, T, classes, labels[e]);
    if (std::isinf(ctc.loss)) {
      ++report.skipped;
      continue;
    }
    report.loss += ctc.loss;
    dLogits[e] = std::move(ctc.gradient);
  }
  const int counted = report.examples - report.skipped;
  if (counted > 0) report.loss /= counted;
  report.cer = characters ? double(edits) / double(characters) : 0.0;
  report.edits = edits;
  report.characters = characters;
  if (!withBackward) return report;
  for (std::vector<float>* g : gradients()) std::fill(g->begin(), g->end(), 0.0f);
  std::vector<FeatureMap> dx;
  for (std::size_t e = 0; e < batch.size(); ++e) {
    for (float& v : dLogits[e]) v /= static_cast<float>(counted);  // gradient of the mean
    dx.push_back(dLogits[e].empty() ? FeatureMap(features[e].height, features[e].width, m_features)
                                    : outputBackward(features[e], sequences[e], dLogits[e]));
  }
  backward(std::move(dx), tape);
  double norm = 0;
  for (std::vector<float>* g : gradients())
    for (float v : *g) norm += double(v) * v;
  report.gradNorm = std::sqrt(norm);
  return report;
}

RecognizerReport WordRecognizer::computeGradients(const std::vector<WordExample>& batch) {
  return run(batch, true);
}

RecognizerReport WordRecognizer::evaluate(const std::vector<WordExample>& batch) {
  return run(batch, false);
}

RecognizerReport WordRecognizer::trainStep(const std::vector<WordExample>& batch) {
  RecognizerReport report = run(batch, true);
  if (report.examples > report.skipped) adamStep(report.gradNorm);
  return report;
}

void WordRecognizer::adamStep(double gradNorm) {
  const std::vector<std::vector<float>*> params = parameters(), grads = gradients();
  if (m_config.gradientClip > 0 && gradNorm > m_config.gradientClip) {
    const float scale = static_cast<float>(m_config.gradientClip / gradNorm);
    for (std::vector<float>* g : grads)
      for (float& v : *g) v *= scale;
  }
  // The trainer's Adam (train/optimizer.hpp), tensor by tensor, with its default betas and epsilon.
  const train::OptimizerSettings adam{};
  const train::AdamStepSizes sizes = train::adamStepSizes(adam, m_config.learningRate, ++m_steps);
  for (std::size_t t = 0; t < params.size(); ++t)
    train::adamUpdate(params[t]->data(), grads[t]->data(), m_adamM[t].data(), m_adamV[t].data(),
                      params[t]->size(), sizes);
}

std::string WordRecognizer::recognize(const packing::Image& image) {
  Tape tape;
  long long cells = 0;
  const FeatureMap f = forward({packing::inkFeatures(image)}, tape, cells)[0];
  const int classes = static_cast<int>(m_config.alphabet.size()) + 1;
  const std::vector<float> logits = logitsOf(collapseColumns(f), f.width);
  std::string text;
  for (int k : ctcGreedyDecode(logits, f.width, classes)) text += m_config.alphabet[k - 1];
  return text;
}

}  // namespace rnnwb::mdlstm
