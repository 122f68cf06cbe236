#include "rnnwb/ui/graph_document.hpp"

#include <cmath>
#include <stdexcept>

#include <QUndoStack>

#include "rnnwb/core/graph_io.hpp"
#include "rnnwb/core/graph_validator.hpp"
#include "rnnwb/ui/auto_layout.hpp"

namespace rnnwb::ui {

GraphDocument::GraphDocument(QObject* parent) : QObject(parent), m_undoStack(new QUndoStack(this)) {
  connect(m_undoStack, &QUndoStack::cleanChanged, this,
          [this] { emit modifiedChanged(isModified()); });
  refreshAnalysis();
}

GraphDocument::~GraphDocument() {
  // ~QObject deletes the undo stack after this object is gone; its clear() then emits
  // indexChanged, and a slot reading this document (EditActions) would call into a destroyed
  // object (UBSan, in the ASan suite's tst_mainwindow).
  m_undoStack->disconnect();
}

void GraphDocument::setFilePath(const QString& path) {
  if (path == m_filePath) return;
  m_filePath = path;
  emit filePathChanged(path);
}

bool GraphDocument::isModified() const { return m_unsavedOutsideStack || !m_undoStack->isClean(); }

void GraphDocument::markUnsaved() {
  m_unsavedOutsideStack = true;
  emit modifiedChanged(true);
}

void GraphDocument::reset(Graph graph, const QString& path) {
  m_undoStack->clear();
  m_graph = std::move(graph);
  if (!m_graph.ui.is_object()) m_graph.ui = nlohmann::json::object();
  bool missing = false;
  for (const Layer& layer : m_graph.layers) missing = missing || !hasPosition(layer.id);
  if (missing) {
    // Only the missing ones: a file that places some layers keeps its placement.
    const PositionMap layout = autoLayout(m_graph);
    for (const Layer& layer : m_graph.layers) {
      if (hasPosition(layer.id)) continue;
      const QPointF p = layout.at(layer.id);
      positionsJson()[layer.id] = {std::lround(p.x()), std::lround(p.y())};
    }
  }
  m_unsavedOutsideStack = false;
  m_undoStack->setClean();
  setFilePath(path);
  refreshAnalysis();
  emit replaced();
  emit structureChanged();
  emit problemsChanged();
  emit modifiedChanged(false);
}

bool GraphDocument::open(const QString& path, QString* error) {
  GraphLoadResult result = loadGraphFile(path.toStdString());
  // A rule of the spec broken by the graph is for the Problems panel; what the reader had to
  // drop or replace (an unknown key, a value of the wrong type) would be lost on save, so such
  // a file is not opened.
  std::vector<Diagnostic> unreadable;
  if (result.graph) {
    const std::vector<Diagnostic> rules = validateGraph(*result.graph);
    for (const Diagnostic& d : result.problems) {
      bool rule = false;
      for (const Diagnostic& r : rules) rule = rule || r.message == d.message;
      if (!rule) unreadable.push_back(d);
    }
  } else {
    unreadable = result.problems;
  }
  if (!unreadable.empty()) {
    QString text = QStringLiteral("Cannot open %1:").arg(path);
    for (const Diagnostic& d : unreadable) {
      text += QLatin1Char('\n');
      const QString message = QString::fromStdString(d.message);
      // Core's message may name its place itself ("malformed JSON at line 10, column 5"):
      // then once is enough.
      const QString place = QStringLiteral("line %1, column %2").arg(d.line).arg(d.column);
      if (d.line > 0 && !message.contains(QStringLiteral("line %1").arg(d.line)))
        text += place + QStringLiteral(": ");
      text += message;
    }
    if (error) *error = text;
    return false;
  }
  reset(std::move(*result.graph), path);
  return true;
}

void GraphDocument::saveAs(const QString& path) {
  saveGraphFile(m_graph, path.toStdString());
  m_unsavedOutsideStack = false;
  m_undoStack->setClean();
  setFilePath(path);
  emit modifiedChanged(false);
}

int GraphDocument::layerIndex(const std::string& id) const {
  for (int i = 0; i < static_cast<int>(m_graph.layers.size()); ++i)
    if (m_graph.layers[i].id == id) return i;
  return -1;
}

bool GraphDocument::hasPosition(const std::string& id) const {
  const auto positions = m_graph.ui.find("positions");
  if (positions == m_graph.ui.end() || !positions->is_object()) return false;
  const auto p = positions->find(id);
  return p != positions->end() && p->is_array() && p->size() == 2 && (*p)[0].is_number() &&
         (*p)[1].is_number();
}

QPointF GraphDocument::position(const std::string& id) const {
  if (!hasPosition(id)) return {};
  const auto& p = m_graph.ui["positions"][id];
  return {p[0].get<double>(), p[1].get<double>()};
}

PositionMap GraphDocument::positions() const {
  PositionMap result;
  for (const Layer& layer : m_graph.layers) result[layer.id] = position(layer.id);
  return result;
}

std::string GraphDocument::uniqueLayerId(const std::string& base) const {
  if (layerIndex(base) < 0) return base;
  for (int n = 2;; ++n) {
    const std::string candidate = base + std::to_string(n);
    if (layerIndex(candidate) < 0) return candidate;
  }
}

std::string GraphDocument::uniqueConnectionId(const std::string& base) const {
  auto taken = [this](const std::string& id) {
    for (const Connection& c : m_graph.connections)
      if (c.id == id) return true;
    return false;
  };
  if (!taken(base)) return base;
  for (int n = 2;; ++n) {
    const std::string candidate = base + "#" + std::to_string(n);
    if (!taken(candidate)) return candidate;
  }
}

GraphDocument::EditScope::EditScope(GraphDocument& document) : m_document(document) {
  m_document.beginEdit();
}

GraphDocument::EditScope::~EditScope() { m_document.endEdit(); }

void GraphDocument::beginEdit() { ++m_editDepth; }

void GraphDocument::endEdit() {
  if (--m_editDepth > 0) return;
  refreshAnalysis();
  emit structureChanged();
  emit problemsChanged();
}

void GraphDocument::refreshAnalysis() {
  m_problems = validateGraph(m_graph);
  m_analysis.reset();
  try {
    m_analysis = analyzeSccs(m_graph);
  } catch (const std::exception&) {
    // A zero-delay cycle or a dangling connection: the problems panel already says which.
  }
}

nlohmann::json& GraphDocument::positionsJson() {
  nlohmann::json& positions = m_graph.ui["positions"];
  if (!positions.is_object()) positions = nlohmann::json::object();
  return positions;
}

void GraphDocument::insertLayer(int index, const Layer& layer, std::optional<QPointF> position) {
  EditScope scope(*this);
  m_graph.layers.insert(m_graph.layers.begin() + index, layer);
  if (position)
    positionsJson()[layer.id] = {std::lround(position->x()), std::lround(position->y())};
}

void GraphDocument::removeLayer(int index) {
  EditScope scope(*this);
  const std::string id = m_graph.layers.at(index).id;
  m_graph.layers.erase(m_graph.layers.begin() + index);
  // Another layer may share a (duplicate, invalid) id: its position stays.
  if (layerIndex(id) >= 0) return;
  auto positions = m_graph.ui.find("positions");
  if (positions == m_graph.ui.end() || !positions->is_object()) return;
  positions->erase(id);
  if (positions->empty()) m_graph.ui.erase("positions");
}

void GraphDocument::replaceLayer(int index, const Layer& layer) {
  EditScope scope(*this);
  m_graph.layers.at(index) = layer;
}

void GraphDocument::renamePosition(const std::string& from, const std::string& to) {
  if (from == to) return;
  std::vector<LayerFrame> frames = this->frames();
  bool framed = false;
  for (LayerFrame& frame : frames)
    for (std::string& id : frame.layers)
      if (id == from) id = to, framed = true;
  if (framed) setFrames(frames);
  if (!hasPosition(from)) return;
  EditScope scope(*this);
  nlohmann::json& positions = positionsJson();
  positions[to] = positions[from];
  positions.erase(from);
}

void GraphDocument::insertConnection(int index, const Connection& connection) {
  EditScope scope(*this);
  m_graph.connections.insert(m_graph.connections.begin() + index, connection);
}

void GraphDocument::removeConnection(int index) {
  EditScope scope(*this);
  m_graph.connections.erase(m_graph.connections.begin() + index);
}

void GraphDocument::replaceConnection(int index, const Connection& connection) {
  EditScope scope(*this);
  m_graph.connections.at(index) = connection;
}

void GraphDocument::setConnections(std::vector<Connection> connections) {
  EditScope scope(*this);
  m_graph.connections = std::move(connections);
}

void GraphDocument::setFrames(const std::vector<LayerFrame>& frames) {
  writeFrames(m_graph.ui, frames);
  // Not an EditScope: frames change neither the structure nor the problems.
  emit framesChanged();
}

void GraphDocument::setName(const std::string& name) {
  EditScope scope(*this);
  m_graph.name = name;
}

void GraphDocument::setDimensions(int dimensions) {
  EditScope scope(*this);
  m_graph.dimensions = dimensions;
}

void GraphDocument::setPositions(const PositionMap& positions) {
  QStringList moved;
  for (const auto& [id, p] : positions) {
    if (layerIndex(id) < 0) continue;
    positionsJson()[id] = {std::lround(p.x()), std::lround(p.y())};
    moved << QString::fromStdString(id);
  }
  if (!moved.isEmpty()) emit positionsChanged(moved);
}

}  // namespace rnnwb::ui
