// The cell templates of graph_fragment.hpp: the LSTM and GRU of examples/ built from additive
// and multiplicative layers, the Elman layer, and the 2-D Leaky LP cells, read from the example
// files built into the program (resources/rnnwb.qrc) and copied by core's makeCellLayer.
#include <QFile>

#include "rnnwb/core/cell_layer.hpp"
#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/ui/graph_fragment.hpp"

namespace rnnwb::ui {
namespace {

struct CellBuilder {
  std::string prefix;
  int size;
  QPointF origin;
  GraphFragment fragment;

  std::string id(const std::string& name) const { return prefix + name; }

  void layer(const std::string& name, LayerKind kind, Activation activation, bool bias,
             double column, double row) {
    Layer l;
    l.id = id(name);
    l.kind = kind;
    l.size = size;
    l.activation = activation;
    l.bias = bias;
    fragment.layers.push_back(l);
    fragment.positions[l.id] = origin + QPointF(column * 180.0, row * 110.0);
  }
  void add(const std::string& name, Activation activation, double column, double row) {
    layer(name, LayerKind::Additive, activation, true, column, row);
  }
  void multiply(const std::string& name, double column, double row) {
    layer(name, LayerKind::Multiplicative, Activation::Identity, false, column, row);
  }
  // `from` and `to` are cell-local names; an external `from` is passed with external = true.
  void connect(const std::string& from, const std::string& to, ConnectionType type, int delay = 0,
               bool external = false) {
    Connection c;
    c.from = external ? from : id(from);
    c.to = id(to);
    c.type = type;
    c.delay = delay;
    c.id = defaultConnectionId(c.from, c.to, c.delay);
    fragment.connections.push_back(c);
  }
};

void buildLstm(CellBuilder& b, const std::string& input) {
  using enum ConnectionType;
  // Gates in one column, a row apart: i, g, f, o from the top.
  b.add("i", Activation::Sigmoid, 0, -1.5);
  b.add("f", Activation::Sigmoid, 0, 0.5);
  b.add("g", Activation::Tanh, 0, -0.5);
  b.multiply("ig", 1, -1);
  b.multiply("fc", 1, 0.5);
  b.layer("c", LayerKind::Additive, Activation::Identity, false, 2, 0);
  b.add("o", Activation::Sigmoid, 0, 1.5);
  b.layer("ct", LayerKind::Additive, Activation::Tanh, false, 3, 0.5);
  b.multiply("h", 4, 1);
  for (const char* gate : {"i", "f", "g", "o"}) {
    b.connect(input, gate, Full, 0, true);
    b.connect("h", gate, Full, 1);
  }
  b.connect("c", "i", Diagonal, 1);
  b.connect("c", "f", Diagonal, 1);
  b.connect("c", "o", Diagonal);
  b.connect("i", "ig", Identity);
  b.connect("g", "ig", Identity);
  b.connect("f", "fc", Identity);
  b.connect("c", "fc", Identity, 1);
  b.connect("ig", "c", Identity);
  b.connect("fc", "c", Identity);
  b.connect("c", "ct", Identity);
  b.connect("o", "h", Identity);
  b.connect("ct", "h", Identity);
}

void buildGru(CellBuilder& b, const std::string& input) {
  using enum ConnectionType;
  b.add("z", Activation::Sigmoid, 0, -1);
  b.add("r", Activation::Sigmoid, 0, 1);
  b.multiply("rh", 1, 1);
  b.add("n", Activation::Tanh, 2, 1);
  b.multiply("zn", 3, 0.5);
  b.multiply("zh", 3, -1);
  b.layer("h", LayerKind::Additive, Activation::Identity, false, 4, 0);
  b.connect(input, "z", Full, 0, true);
  b.connect("h", "z", Full, 1);
  b.connect(input, "r", Full, 0, true);
  b.connect("h", "r", Full, 1);
  b.connect("r", "rh", Identity);
  b.connect("h", "rh", Identity, 1);
  b.connect(input, "n", Full, 0, true);
  b.connect("rh", "n", Full);
  b.connect("z", "zn", Identity);
  b.connect("n", "zn", Identity);
  b.connect("z", "zh", Identity);
  b.connect("h", "zh", Identity, 1);
  b.connect("h", "h", Identity, 1);
  b.connect("zn", "h", Identity);
  b.connect("zh", "h", Diagonal);
}

void buildElman(CellBuilder& b, const std::string& input) {
  b.add("h", Activation::Tanh, 0, 0);
  b.connect(input, "h", ConnectionType::Full, 0, true);
  b.connect("h", "h", ConnectionType::Full, 1);
}

// The cell file behind a 2-D template, parsed once.
const Graph& twoDCell(CellTemplate cell) {
  static const auto load = [](const char* resource) {
    QFile file(QString::fromLatin1(resource));
    if (!file.open(QIODevice::ReadOnly)) qFatal("the program lacks its resource %s", resource);
    const QByteArray text = file.readAll();
    GraphLoadResult result = parseGraph(std::string_view(text.constData(), text.size()));
    if (!result.ok()) qFatal("the resource %s is not a graph file", resource);
    return *result.graph;
  };
  static const Graph paper = load(":/cells/leaky-lp-2d.rnn.json");
  static const Graph report = load(":/cells/leaky-lp-2d-cells-report.rnn.json");
  return cell == CellTemplate::LeakyLp2dCellsReport ? report : paper;
}

GraphFragment fragmentOf(CellLayer layer, QPointF origin) {
  GraphFragment fragment;
  for (auto& [id, at] : layer.positions)
    fragment.positions[id] = origin + QPointF(at.first, at.second);
  fragment.layers = std::move(layer.layers);
  fragment.connections = std::move(layer.connections);
  return fragment;
}

// "lstm_", then "lstm2_", ...: the first prefix under which none of the cell's ids is taken.
std::string freePrefix(const GraphDocument& document, const std::string& base,
                       const GraphFragment& probe) {
  for (int n = 1;; ++n) {
    const std::string prefix = base + (n == 1 ? "" : std::to_string(n)) + "_";
    bool free = true;
    for (const Layer& layer : probe.layers)
      free = free && document.layerIndex(prefix + layer.id) < 0;
    if (free) return prefix;
  }
}

}  // namespace

namespace {

// What the program knows of each template, in kCellTemplates' order.
struct TemplateInfo {
  CellTemplate cell;
  const char* key;     // the palette's
  const char* name;    // as menus and undo steps say it
  const char* prefix;  // of the inserted layers' ids: "lstm_", then "lstm2_", ...
  bool twoD;
};
constexpr TemplateInfo kTemplateInfo[] = {
    {CellTemplate::Lstm, "lstm", "LSTM cell", "lstm", false},
    {CellTemplate::Gru, "gru", "GRU cell", "gru", false},
    {CellTemplate::Elman, "elman", "Elman layer", "elman", false},
    {CellTemplate::LeakyLp2d, "leaky-lp-2d", "Leaky LP 2-D cell (paper)", "lp", true},
    {CellTemplate::LeakyLp2dCellsReport, "leaky-lp-2d-cells-report",
     "Leaky LP 2-D cell (cells report)", "lp", true},
    {CellTemplate::FourDirectionLeakyLp, "mdlstm-layer", "four-direction MDLSTM layer", "mdlstm",
     true}};

const TemplateInfo& infoOf(CellTemplate cell) {
  for (const TemplateInfo& info : kTemplateInfo)
    if (info.cell == cell) return info;
  return kTemplateInfo[0];  // every enumerator has its row above
}

}  // namespace

QString templateName(CellTemplate cell) { return QString::fromUtf8(infoOf(cell).name); }

QString templateWithArticle(CellTemplate cell) {
  // Said as letters, "LSTM" takes "an" (el-es-tee-em), as does "Elman"; "GRU" (gee) takes "a".
  const bool an = cell == CellTemplate::Lstm || cell == CellTemplate::Elman;
  return (an ? QStringLiteral("an ") : QStringLiteral("a ")) + templateName(cell);
}

QString templateKey(CellTemplate cell) { return QString::fromLatin1(infoOf(cell).key); }

std::optional<CellTemplate> templateFromKey(const QString& key) {
  for (const TemplateInfo& info : kTemplateInfo)
    if (key == QLatin1String(info.key)) return info.cell;
  return std::nullopt;
}

bool isTwoDTemplate(CellTemplate cell) { return infoOf(cell).twoD; }

int templateDefaultSize(CellTemplate cell) { return isTwoDTemplate(cell) ? 10 : 32; }

GraphFragment makeCellTemplate(const GraphDocument& document, CellTemplate cell,
                               const std::string& inputId, int size, QPointF origin,
                               std::vector<std::string>* outputs) {
  if (isTwoDTemplate(cell)) {
    const int directions = cell == CellTemplate::FourDirectionLeakyLp ? 4 : 1;
    const Graph& cellGraph = twoDCell(cell);
    const GraphFragment probe =
        fragmentOf(makeCellLayer(cellGraph, {"", inputId, size, directions}), origin);
    CellLayer layer = makeCellLayer(
        cellGraph, {freePrefix(document, infoOf(cell).prefix, probe), inputId, size, directions});
    if (outputs) *outputs = layer.outputs;
    GraphFragment fragment = fragmentOf(std::move(layer), origin);
    for (Connection& c : fragment.connections) c.id = document.uniqueConnectionId(c.id);
    return fragment;
  }
  auto build = [&](CellBuilder& b) {
    if (cell == CellTemplate::Lstm)
      buildLstm(b, inputId);
    else if (cell == CellTemplate::Gru)
      buildGru(b, inputId);
    else
      buildElman(b, inputId);
  };
  CellBuilder probe{"", size, origin, {}};
  build(probe);
  CellBuilder builder{freePrefix(document, infoOf(cell).prefix, probe.fragment), size, origin, {}};
  build(builder);
  // Connection ids must not clash with parallel connections already there.
  for (Connection& c : builder.fragment.connections) c.id = document.uniqueConnectionId(c.id);
  if (outputs) *outputs = {builder.fragment.layers.back().id};
  return builder.fragment;
}

}  // namespace rnnwb::ui
