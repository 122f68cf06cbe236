#include "rnnwb/ui/find_layer_field.hpp"

#include <QCompleter>
#include <QStringListModel>

#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"
#include "rnnwb/ui/graph_view.hpp"

namespace rnnwb::ui {

FindLayerField::FindLayerField(GraphDocument* document, GraphScene* scene, GraphView* view,
                               QWidget* parent)
    : QLineEdit(parent),
      m_document(document),
      m_scene(scene),
      m_view(view),
      m_ids(new QStringListModel(this)) {
  setObjectName(QStringLiteral("findLayer"));
  setPlaceholderText(QStringLiteral("Find layer (Ctrl+F)"));
  setClearButtonEnabled(true);
  setMaximumWidth(220);
  auto* completer = new QCompleter(m_ids, this);
  completer->setCaseSensitivity(Qt::CaseInsensitive);
  completer->setFilterMode(Qt::MatchContains);
  setCompleter(completer);
  connect(completer, qOverload<const QString&>(&QCompleter::activated), this,
          [this](const QString& id) { findLayer(id); });
  connect(this, &QLineEdit::returnPressed, this, [this] { findLayer(text()); });
  connect(this, &QLineEdit::textEdited, this, [this] { setStyleSheet({}); });
  connect(document, &GraphDocument::structureChanged, this, &FindLayerField::refreshIds);
  refreshIds();
}

void FindLayerField::refreshIds() {
  QStringList ids;
  for (const Layer& layer : m_document->graph().layers) ids << QString::fromStdString(layer.id);
  m_ids->setStringList(ids);
}

bool FindLayerField::findLayer(const QString& text) {
  const QString wanted = text.trimmed();
  const Graph& graph = m_document->graph();
  int found = -1;
  // Exact, then prefix, then substring: "h" finds h before lstm_h.
  for (int pass = 0; pass < 3 && found < 0 && !wanted.isEmpty(); ++pass)
    for (int i = 0; i < static_cast<int>(graph.layers.size()) && found < 0; ++i) {
      const QString id = QString::fromStdString(graph.layers[i].id);
      const bool match = pass == 0   ? id == wanted
                         : pass == 1 ? id.startsWith(wanted, Qt::CaseInsensitive)
                                     : id.contains(wanted, Qt::CaseInsensitive);
      if (match) found = i;
    }
  if (found < 0) {
    setStyleSheet(QStringLiteral("QLineEdit { border: 1px solid #d0202c; }"));
    return false;
  }
  setStyleSheet({});
  const std::string& id = graph.layers[found].id;
  if (!m_scene->isLayerShown(id)) m_scene->setCollapsed(false, false);
  m_scene->selectItems({found}, {});
  m_view->centerOn(m_scene->layerBox(id).center());
  return true;
}

}  // namespace rnnwb::ui
