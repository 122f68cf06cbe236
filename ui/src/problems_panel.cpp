#include "rnnwb/ui/problems_panel.hpp"

#include <QLabel>
#include <QListWidget>
#include <QStyle>
#include <QVBoxLayout>

#include "rnnwb/ui/graph_document.hpp"
#include "rnnwb/ui/graph_scene.hpp"

namespace rnnwb::ui {

ProblemsPanel::ProblemsPanel(GraphDocument* document, GraphScene* scene, QWidget* parent)
    : QWidget(parent),
      m_document(document),
      m_scene(scene),
      m_summary(new QLabel(this)),
      m_list(new QListWidget(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_summary);
  m_summary->setWordWrap(true);
  layout->addWidget(m_list);
  m_list->setWordWrap(true);
  connect(m_list, &QListWidget::itemClicked, this,
          [this](QListWidgetItem* item) { activateRow(m_list->row(item)); });
  connect(document, &GraphDocument::problemsChanged, this, &ProblemsPanel::refresh);
  refresh();
}

int ProblemsPanel::problemCount() const { return m_list->count(); }

void ProblemsPanel::refresh() {
  m_list->clear();
  if (m_document->graph().layers.empty()) {
    // Nothing drawn yet is not a list of errors: the start page on the canvas says where to go.
    m_summary->setText(
        QStringLiteral("Empty graph: add layers from the palette, or start from "
                       "an example or a template."));
    return;
  }
  const auto& problems = m_document->problems();
  const QIcon icon = style()->standardIcon(QStyle::SP_MessageBoxCritical);
  for (const Diagnostic& d : problems)
    new QListWidgetItem(icon, QString::fromStdString(d.message), m_list);
  m_summary->setText(problems.empty()
                         ? QStringLiteral("No problems: the graph is valid.")
                         : QStringLiteral("%1 problem(s); click one to select what it names.")
                               .arg(problems.size()));
}

void ProblemsPanel::activateRow(int row) {
  const auto& problems = m_document->problems();
  if (row < 0 || row >= static_cast<int>(problems.size())) return;
  // What a problem names must be visible: the collapsed view would hide members.
  m_scene->setCollapsed(false, false);
  m_scene->selectItems(problems[row].layers, problems[row].connections);
}

}  // namespace rnnwb::ui
