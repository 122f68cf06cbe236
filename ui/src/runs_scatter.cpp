#include "rnnwb/ui/runs_scatter.hpp"

#include <algorithm>
#include <cmath>

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>

namespace rnnwb::ui {
namespace {

using TableColumn = RunsTable::Column;

// What can go across: the settings, and the step a run reached. What can go up: the metrics.
constexpr TableColumn kSettings[] = {RunsTable::kLr,     RunsTable::kStreams, RunsTable::kH,
                                     RunsTable::kHPrime, RunsTable::kAlgo,    RunsTable::kOptimizer,
                                     RunsTable::kTask,   RunsTable::kStep};
constexpr TableColumn kMetrics[] = {RunsTable::kValid, RunsTable::kTrain, RunsTable::kStep};

bool isText(TableColumn column) {
  return column == RunsTable::kTask || column == RunsTable::kAlgo ||
         column == RunsTable::kOptimizer;
}

// How near the mouse must come to a dot to name it (pixels).
constexpr double kHoverPixels = 8.0;

}  // namespace

RunsScatter::RunsScatter(RunsTable* table, QWidget* parent)
    : QWidget(parent),
      m_table(table),
      m_x(new QComboBox),
      m_y(new QComboBox),
      m_log(new QCheckBox(QStringLiteral("log x"))),
      m_plot(new QCustomPlot),
      m_note(new QLabel) {
  for (TableColumn c : kSettings) m_x->addItem(table->columnName(c), int(c));
  for (TableColumn c : kMetrics) m_y->addItem(table->columnName(c), int(c));
  m_x->setToolTip(QStringLiteral("The setting across"));
  m_y->setToolTip(QStringLiteral("The metric up"));
  m_log->setToolTip(QStringLiteral("A logarithmic x axis (values <= 0 are left out)"));
  m_log->setChecked(true);  // the learning rate comes first, and sweeps space it by factors
  m_note->setWordWrap(true);
  m_note->setForegroundRole(QPalette::PlaceholderText);
  m_note->hide();
  m_plot->setMouseTracking(true);
  m_plot->setMinimumHeight(120);
  auto* choices = new QHBoxLayout;
  choices->addWidget(new QLabel(QStringLiteral("x")));
  choices->addWidget(m_x, 1);
  choices->addWidget(m_log);
  choices->addWidget(new QLabel(QStringLiteral("y")));
  choices->addWidget(m_y, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 2, 0, 0);
  layout->addLayout(choices);
  layout->addWidget(m_plot, 1);
  layout->addWidget(m_note);
  styleAxes();
  connect(m_x, &QComboBox::currentIndexChanged, this, [this] {
    // The learning rate reads on a log axis, the others on a linear one; the box says so.
    m_log->setChecked(xColumn() == RunsTable::kLr);
    m_log->setEnabled(!isText(xColumn()));
    rebuild();
  });
  connect(m_y, &QComboBox::currentIndexChanged, this, &RunsScatter::rebuild);
  connect(m_log, &QCheckBox::toggled, this, &RunsScatter::rebuild);
  connect(table, &RunsTable::changed, this, &RunsScatter::rebuild);
  connect(m_plot, &QCustomPlot::mouseMove, this, &RunsScatter::hoverAt);
  connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
    if (const QString key = runAt(event->pos()); !key.isEmpty()) emit runClicked(key);
  });
  rebuild();
}

void RunsScatter::setAxes(TableColumn x, TableColumn y) {
  m_x->setCurrentIndex(m_x->findData(int(x)));
  m_y->setCurrentIndex(m_y->findData(int(y)));
}

TableColumn RunsScatter::xColumn() const { return TableColumn(m_x->currentData().toInt()); }
TableColumn RunsScatter::yColumn() const { return TableColumn(m_y->currentData().toInt()); }
bool RunsScatter::logX() const { return m_log->isChecked() && !isText(xColumn()); }
QString RunsScatter::note() const { return m_note->isHidden() ? QString() : m_note->text(); }

void RunsScatter::rebuild() {
  collectDots();
  draw();
}

void RunsScatter::collectDots() {
  m_dots.clear();
  m_categories.clear();
  const TableColumn x = xColumn(), y = yColumn();
  QStringList missing;
  for (int row = 0; row < m_table->rowCount(); ++row) {
    const QString key = m_table->keyAt(row);
    const QString name = m_table->table()->item(row, RunsTable::kRun)->text();
    const std::optional<double> up = m_table->number(row, y);
    std::optional<double> across;
    if (isText(x)) {
      const QString category = m_table->text(key, x);
      if (!category.isEmpty()) {
        if (!m_categories.contains(category)) m_categories << category;
        across = double(m_categories.indexOf(category));
      }
    } else {
      across = m_table->number(row, x);
      if (across && logX() && *across <= 0) across.reset();
    }
    if (up && across)
      m_dots.push_back({key, *across, *up});
    else
      missing << name;
  }
  m_note->setText(missing.isEmpty() ? QString()
                                    : QStringLiteral("Not shown, without %1 or %2: %3")
                                          .arg(m_table->columnName(x), m_table->columnName(y),
                                               missing.join(QStringLiteral(", "))));
  m_note->setVisible(!missing.isEmpty());
}

void RunsScatter::draw() {
  m_plot->clearGraphs();
  const TableColumn x = xColumn();
  for (const Dot& dot : m_dots) {
    QCPGraph* graph = m_plot->addGraph();
    const int row = m_table->rowOf(dot.key);
    QColor color = m_table->colorAt(row);
    if (!color.isValid()) color = palette().color(QPalette::Text);
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 9));
    graph->setData({dot.x}, {dot.y});
  }
  QCPAxis* across = m_plot->xAxis;
  if (isText(x)) {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < m_categories.size(); ++i) ticker->addTick(i, m_categories[i]);
    across->setScaleType(QCPAxis::stLinear);
    across->setTicker(ticker);
    across->setRange(-0.5, std::max<double>(0.5, m_categories.size() - 0.5));
  } else {
    across->setScaleType(logX() ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logX())
      across->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
      across->setTicker(QSharedPointer<QCPAxisTicker>::create());
    m_plot->rescaleAxes();
    // A margin, so that a dot at the end is whole (a factor on a log axis).
    const QCPRange r = across->range();
    if (logX())
      across->setRange(r.lower / 1.5, r.upper * 1.5);
    else
      across->setRange(r.lower - std::max(r.size(), 1.0) * 0.08,
                       r.upper + std::max(r.size(), 1.0) * 0.08);
  }
  if (!m_dots.empty()) {
    double low = m_dots.front().y, high = low;
    for (const Dot& dot : m_dots) low = std::min(low, dot.y), high = std::max(high, dot.y);
    const double pad = std::max(high - low, std::abs(high) * 0.02 + 1e-9) * 0.1;
    m_plot->yAxis->setRange(low - pad, high + pad);
  }
  across->setLabel(m_table->columnName(x));
  m_plot->yAxis->setLabel(m_table->columnName(yColumn()));
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void RunsScatter::styleAxes() {
  // From the palette, as the metric cards: a dark theme gives a dark plot.
  const QPalette p = palette();
  m_plot->setBackground(p.brush(QPalette::Base));
  const QColor text = p.color(QPalette::Text);
  QColor grid = p.color(QPalette::Mid);
  grid.setAlpha(110);
  for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
    axis->setBasePen(QPen(text, 1));
    axis->setTickPen(QPen(text, 1));
    axis->setSubTickPen(QPen(text, 1));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
  }
}

QString RunsScatter::runAt(const QPoint& pos) const {
  QString nearest;
  double best = kHoverPixels;
  for (const Dot& dot : m_dots) {
    const QPointF at(m_plot->xAxis->coordToPixel(dot.x), m_plot->yAxis->coordToPixel(dot.y));
    const double distance = std::hypot(at.x() - pos.x(), at.y() - pos.y());
    if (distance <= best) best = distance, nearest = dot.key;
  }
  return nearest;
}

void RunsScatter::hoverAt(QMouseEvent* event) {
  const QString key = runAt(event->pos());
  if (key.isEmpty()) return QToolTip::hideText();
  const int row = m_table->rowOf(key);
  const auto value = [&](TableColumn c) {
    const std::optional<double> number = m_table->number(row, c);
    return QStringLiteral("%1 %2").arg(
        m_table->columnName(c),
        number ? QLocale().toString(*number, 'g', 5) : m_table->text(key, c));
  };
  QToolTip::showText(event->globalPosition().toPoint(),
                     QStringLiteral("%1\n%2\n%3\nclick to select it")
                         .arg(m_table->table()->item(row, RunsTable::kRun)->text(),
                              value(xColumn()), value(yColumn())),
                     m_plot);
}

}  // namespace rnnwb::ui
