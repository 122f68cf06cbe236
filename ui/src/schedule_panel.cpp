#include "rnnwb/ui/schedule_panel.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include <QEvent>
#include <QGraphicsView>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "rnnwb/core/scan_order.hpp"
#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"

namespace rnnwb::ui {
namespace {

QString idList(const Graph& graph, const std::vector<int>& layers, const QString& separator) {
  QStringList ids;
  for (int layer : layers) ids << QString::fromStdString(graph.layers[layer].id);
  return ids.join(separator);
}

}  // namespace

SchedulePanel::SchedulePanel(GraphDocument* document, GraphScene* scene, QWidget* parent)
    : QWidget(parent),
      m_document(document),
      m_scene(scene),
      m_summary(new QLabel(this)),
      m_tree(new QTreeWidget(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_summary);
  layout->addWidget(m_tree);
  m_summary->setWordWrap(true);
  m_tree->setColumnCount(5);
  m_tree->setHeaderLabels({QStringLiteral("step"), QStringLiteral("node"), QStringLiteral("runs"),
                           QStringLiteral("layers"), QStringLiteral("time / chunk")});
  m_tree->setColumnHidden(4, true);
  m_tree->setRootIsDecorated(true);
  m_tree->setMouseTracking(true);
  // The layers column takes what is left of the dock's width and wraps there: a long list of
  // layers is never cut off at the edge.
  m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_tree->header()->setSectionResizeMode(3, QHeaderView::Stretch);
  m_tree->header()->setStretchLastSection(true);
  // A run's time / chunk shows beside the node, before the layers: in a narrow dock (about
  // 290 px at 1280×720) the layers column gives way, not the times.
  m_tree->header()->moveSection(4, 2);
  m_tree->header()->setMinimumSectionSize(24);
  m_tree->setWordWrap(true);
  m_tree->setUniformRowHeights(false);
  m_tree->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_tree->viewport()->installEventFilter(this);
  connect(m_tree, &QTreeWidget::itemEntered, this, [this](QTreeWidgetItem* item) {
    if (item->parent())
      m_scene->highlightLayers({item->data(0, Qt::UserRole).toInt()});
    else
      hoverStep(m_tree->indexOfTopLevelItem(item));
  });
  connect(m_tree, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
    if (item->parent())
      showLayers({item->data(0, Qt::UserRole).toInt()});
    else if (const auto& analysis = m_document->analysis())
      showLayers(analysis->nodes.at(m_tree->indexOfTopLevelItem(item)).layers);
  });
  connect(document, &GraphDocument::structureChanged, this, &SchedulePanel::refresh);
  refresh();
}

void SchedulePanel::showLayers(const std::vector<int>& layers) {
  // As Netron does: a click selects the step's layers and scrolls the canvas to them. A layer
  // folded into the collapsed view is shown by unfolding.
  const Graph& graph = m_document->graph();
  QRectF area;
  bool folded = false;
  for (int layer : layers) folded = folded || !m_scene->isLayerShown(graph.layers[layer].id);
  if (folded) m_scene->setCollapsed(false, false);
  for (int layer : layers) area |= m_scene->layerBox(graph.layers[layer].id);
  m_scene->selectItems(layers, {});
  for (QGraphicsView* view : m_scene->views()) view->ensureVisible(area, 40, 40);
}

int SchedulePanel::stepCount() const { return m_tree->topLevelItemCount(); }

namespace {

// "Scans: σ = (1, 1): diagonal wavefront: x forward, y forward (recurrent 1, 5); ...", or nothing.
QString scanSummary(const std::vector<std::pair<QString, QStringList>>& scans) {
  QStringList parts;
  for (const auto& [scan, nodes] : scans)
    parts << QStringLiteral("%1 (recurrent %2)").arg(scan, nodes.join(QStringLiteral(", ")));
  return parts.isEmpty()
             ? QString()
             : QStringLiteral("\nScans: ") + parts.join(QStringLiteral("; ")) + QLatin1Char('.');
}

}  // namespace

void SchedulePanel::refresh() {
  m_tree->clear();
  const auto& analysis = m_document->analysis();
  const Graph& graph = m_document->graph();
  if (!analysis) {
    m_summary->setText(
        QStringLiteral("No schedule: the graph has a cycle with no delay or a "
                       "connection to a missing layer (see Problems)."));
    return;
  }
  int recurrent = 0;
  // The scans of the nodes that do not simply run forward in time, each with its nodes: a
  // four-direction recogniser has 4 scans, however many stages.
  std::vector<std::pair<QString, QStringList>> scans;  // in the order of their first node
  for (std::size_t n = 0; n < analysis->nodes.size(); ++n) {
    const SccNode& node = analysis->nodes[n];
    auto* item = new QTreeWidgetItem(m_tree);
    item->setText(0, QString::number(n + 1));
    if (node.recurrent) {
      item->setText(1, QStringLiteral("recurrent %1").arg(++recurrent));
      // A 1-D node that runs forward in time reads as before; any other shows its scan vector
      // here and its scan in words in the summary above (which wraps in a narrow dock).
      const bool forwardInTime = isForwardInTime(node.scan);
      item->setText(
          2, node.dimensions == 2 ? QStringLiteral("per pixel") : QStringLiteral("per frame"));
      item->setText(3, forwardInTime ? QStringLiteral("%1, in order:").arg(node.layers.size())
                                     : QStringLiteral("\u03c3 = %1; %2, in order:")
                                           .arg(QString::fromStdString(formatSigma(node.scan)))
                                           .arg(node.layers.size()));
      if (!forwardInTime) {
        const QString scan = QStringLiteral("\u03c3 = %1: %2")
                                 .arg(QString::fromStdString(formatSigma(node.scan)),
                                      QString::fromStdString(describeScan(node.scan)));
        item->setToolTip(3, QStringLiteral("scan vector ") + scan);
        auto group = std::find_if(scans.begin(), scans.end(),
                                  [&](const auto& entry) { return entry.first == scan; });
        if (group == scans.end()) group = scans.insert(scans.end(), {scan, {}});
        group->second << QString::number(recurrent);
      }
      item->setForeground(2, QColor(0x7b, 0x1f, 0xa2));
      // The inner order, one row per layer: read top to bottom within each frame.
      for (std::size_t k = 0; k < node.innerOrder.size(); ++k) {
        auto* member = new QTreeWidgetItem(item);
        member->setText(1, QStringLiteral("%1.%2").arg(n + 1).arg(k + 1));
        member->setText(3, QString::fromStdString(graph.layers[node.innerOrder[k]].id));
        member->setData(0, Qt::UserRole, node.innerOrder[k]);
      }
    } else {
      item->setText(1, QString::fromStdString(graph.layers[node.layers.front()].id));
      item->setText(
          2, node.dimensions == 2 ? QStringLiteral("all pixels") : QStringLiteral("all frames"));
      item->setText(3, idList(graph, node.layers, QStringLiteral(", ")));
      item->setToolTip(3, item->text(3));
    }
  }
  m_tree->expandAll();
  showHeat();
  const int nodes = static_cast<int>(analysis->nodes.size());
  m_summary->setText(
      (graph.dimensions == 2
           ? QStringLiteral("%1 node(s): %2 recurrent (position by position along their scans), "
                            "%3 plain (all positions of a batch at once). Hover a step to find it.")
           : QStringLiteral("%1 node(s): %2 recurrent (frame by frame), %3 plain (all frames of a "
                            "chunk at once). Hover a step to find it."))
          .arg(nodes)
          .arg(recurrent)
          .arg(nodes - recurrent) +
      scanSummary(scans));
}

void SchedulePanel::hoverStep(int row) {
  const auto& analysis = m_document->analysis();
  if (!analysis || row < 0 || row >= static_cast<int>(analysis->nodes.size())) {
    m_scene->highlightLayers({});
    return;
  }
  m_scene->highlightLayers(analysis->nodes[row].layers);
}

bool SchedulePanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_tree->viewport() && event->type() == QEvent::Leave) hoverStep(-1);
  return QWidget::eventFilter(watched, event);
}

void SchedulePanel::setNodeTimes(std::optional<train::NodeTimesFile> times) {
  m_times = std::move(times);
  refresh();
  if (!m_document->analysis()) m_scene->setLayerHeat({});
}

QString SchedulePanel::timeText(int row) const {
  const QTreeWidgetItem* item = m_tree->topLevelItem(row);
  return item ? item->text(4) : QString();
}

void SchedulePanel::showHeat() {
  const auto& analysis = m_document->analysis();
  m_tree->setColumnHidden(4, !m_times || !analysis);
  if (!m_times || !analysis) {
    m_scene->setLayerHeat({});
    return;
  }
  const NodeHeat heat = matchNodeTimes(m_document->graph(), analysis->nodes, *m_times);
  const QString run = QStringLiteral("step %1 of the run (%2)")
                          .arg(m_times->step)
                          .arg(QString::fromStdString(m_times->backend));
  for (int n = 0; n < m_tree->topLevelItemCount() && n < int(heat.secondsPerChunk.size()); ++n) {
    QTreeWidgetItem* item = m_tree->topLevelItem(n);
    if (!heat.secondsPerChunk[n]) {
      item->setText(4, QStringLiteral("–"));
      item->setToolTip(4, QStringLiteral("The run has no node with these layers (edited since)."));
      continue;
    }
    const double share = heat.slowest > 0 ? *heat.secondsPerChunk[n] / heat.slowest : 0.0;
    item->setText(4, secondsText(*heat.secondsPerChunk[n]));
    item->setBackground(4, heatColour(share, palette()));
    item->setToolTip(4, QStringLiteral("forward %1, backward %2 per chunk, at %3")
                            .arg(secondsText(*heat.forwardPerChunk[n]),
                                 secondsText(*heat.backwardPerChunk[n]), run));
  }
  m_scene->setLayerHeat(heat.layers);
}

}  // namespace rnnwb::ui
