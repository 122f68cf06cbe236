#include "onednn_rnn_cells.hpp"

#include <random>
#include <stdexcept>
#include <vector>

namespace rnnwb::engine_bench {
namespace {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;
using dnnl::memory;

const std::vector<int> kForwardArguments = {
    DNNL_ARG_SRC_LAYER,    DNNL_ARG_SRC_ITER,         DNNL_ARG_SRC_ITER_C, DNNL_ARG_WEIGHTS_LAYER,
    DNNL_ARG_WEIGHTS_ITER, DNNL_ARG_WEIGHTS_PEEPHOLE, DNNL_ARG_BIAS,       DNNL_ARG_DST_LAYER,
    DNNL_ARG_DST_ITER,     DNNL_ARG_DST_ITER_C,       DNNL_ARG_WORKSPACE};
const std::vector<int> kGradientArguments = {
    DNNL_ARG_DIFF_SRC_LAYER,     DNNL_ARG_DIFF_SRC_ITER,     DNNL_ARG_DIFF_SRC_ITER_C,
    DNNL_ARG_DIFF_WEIGHTS_LAYER, DNNL_ARG_DIFF_WEIGHTS_ITER, DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE,
    DNNL_ARG_DIFF_BIAS,          DNNL_ARG_DIFF_DST_LAYER,    DNNL_ARG_DIFF_DST_ITER,
    DNNL_ARG_DIFF_DST_ITER_C};

int gatesOf(OnednnCell cell) {
  switch (cell) {
    case OnednnCell::Lstm:
    case OnednnCell::PeepholeLstm:
      return 4;
    case OnednnCell::Gru:
      return 3;
    case OnednnCell::Vanilla:
      return 1;
  }
  return 1;
}

/// The descriptors the cells share: [T, N, C] sequences, one layer, one direction; weights in
/// whatever layout the primitive prefers (`any`).
struct CellDescs {
  memory::desc src, dst, state, weightsLayer, weightsIter, bias, peephole;
};

CellDescs cellDescs(OnednnCell cell, const OnednnCellShape& s) {
  const memory::dim T = s.frames, N = s.streams, I = s.input, H = s.hidden, G = gatesOf(cell);
  const auto md = [](memory::dims dims, tag t) { return memory::desc(dims, dt::f32, t); };
  return {md({T, N, I}, tag::tnc),       md({T, N, H}, tag::tnc),       md({1, 1, N, H}, tag::ldnc),
          md({1, 1, I, G, H}, tag::any), md({1, 1, H, G, H}, tag::any), md({1, 1, G, H}, tag::ldgo),
          md({1, 1, 3, H}, tag::ldgo)};
}

memory filled(const memory::desc& desc, const dnnl::engine& engine, std::mt19937& rng) {
  memory m(desc, engine);
  auto* data = static_cast<float*>(m.get_data_handle());
  std::uniform_real_distribution<float> u(-0.1f, 0.1f);
  for (std::size_t i = 0; i < desc.get_size() / sizeof(float); ++i) data[i] = u(rng);
  return m;
}

/// Every argument the two primitives take, from their own descriptors: the backward one shares
/// the forward's values and workspace, with its weights reordered into the layout it wants.
template <class Forward, class Backward>
OnednnCellPrimitives assemble(const typename Forward::primitive_desc& fpd,
                              const typename Backward::primitive_desc& bpd,
                              const dnnl::engine& engine, dnnl::stream& stream) {
  std::mt19937 rng(1);
  OnednnArguments f, b;
  for (int argument : kForwardArguments) {
    const memory::desc desc = fpd.query_md(dnnl::query::exec_arg_md, argument);
    if (desc.get_size() > 0) f[argument] = filled(desc, engine, rng);
  }
  b = f;
  for (int argument : {DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER}) {
    b[argument] = memory(bpd.query_md(dnnl::query::exec_arg_md, argument), engine);
    dnnl::reorder(f[argument], b[argument]).execute(stream, f[argument], b[argument]);
  }
  for (int argument : kGradientArguments) {
    const memory::desc desc = bpd.query_md(dnnl::query::exec_arg_md, argument);
    if (desc.get_size() > 0) b[argument] = filled(desc, engine, rng);
  }
  stream.wait();
  return {Forward(fpd), Backward(bpd), f, b};
}

}  // namespace

OnednnCell onednnCellNamed(const std::string& name) {
  for (OnednnCell cell :
       {OnednnCell::Lstm, OnednnCell::PeepholeLstm, OnednnCell::Gru, OnednnCell::Vanilla})
    if (name == onednnCellName(cell)) return cell;
  throw std::invalid_argument("unknown cell '" + name + "' (lstm, peephole, gru or vanilla)");
}

const char* onednnCellName(OnednnCell cell) {
  switch (cell) {
    case OnednnCell::Lstm:
      return "lstm";
    case OnednnCell::PeepholeLstm:
      return "peephole";
    case OnednnCell::Gru:
      return "gru";
    case OnednnCell::Vanilla:
      return "vanilla";
  }
  return "?";
}

OnednnCellPrimitives makeOnednnCell(OnednnCell cell, const OnednnCellShape& shape,
                                    const dnnl::engine& engine, dnnl::stream& stream) {
  const CellDescs d = cellDescs(cell, shape);
  const auto train = dnnl::prop_kind::forward_training, back = dnnl::prop_kind::backward;
  const auto dir = dnnl::rnn_direction::unidirectional_left2right;
  const auto tanh = dnnl::algorithm::eltwise_tanh;
  const auto &src = d.src, &dst = d.dst, &st = d.state, &W = d.weightsLayer, &U = d.weightsIter,
             &bias = d.bias, &P = d.peephole;
  switch (cell) {
    case OnednnCell::Lstm: {
      const dnnl::lstm_forward::primitive_desc f({train, dir, src, st, st, W, U, bias, dst, st, st},
                                                 engine);
      const dnnl::lstm_backward::primitive_desc b(
          {back, dir, src, st, st, W, U, bias, dst, st, st, src, st, st, W, U, bias, dst, st, st},
          engine, f);
      return assemble<dnnl::lstm_forward, dnnl::lstm_backward>(f, b, engine, stream);
    }
    case OnednnCell::PeepholeLstm: {
      const dnnl::lstm_forward::primitive_desc f(
          {train, dir, src, st, st, W, U, P, bias, dst, st, st}, engine);
      const dnnl::lstm_backward::primitive_desc b(
          {back, dir, src, st, st, W, U, P,    bias, dst, st,
           st,   src, st,  st, W,  U, P, bias, dst,  st,  st},
          engine, f);
      return assemble<dnnl::lstm_forward, dnnl::lstm_backward>(f, b, engine, stream);
    }
    case OnednnCell::Gru: {
      const dnnl::gru_forward::primitive_desc f({train, dir, src, st, W, U, bias, dst, st}, engine);
      const dnnl::gru_backward::primitive_desc b(
          {back, dir, src, st, W, U, bias, dst, st, src, st, W, U, bias, dst, st}, engine, f);
      return assemble<dnnl::gru_forward, dnnl::gru_backward>(f, b, engine, stream);
    }
    case OnednnCell::Vanilla: {
      const dnnl::vanilla_rnn_forward::primitive_desc f(
          {train, tanh, dir, src, st, W, U, bias, dst, st}, engine);
      const dnnl::vanilla_rnn_backward::primitive_desc b(
          {back, tanh, dir, src, st, W, U, bias, dst, st, src, st, W, U, bias, dst, st}, engine, f);
      return assemble<dnnl::vanilla_rnn_forward, dnnl::vanilla_rnn_backward>(f, b, engine, stream);
    }
  }
  throw std::invalid_argument("unknown cell");
}

}  // namespace rnnwb::engine_bench
