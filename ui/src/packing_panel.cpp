#include "rnnwb/ui/packing_panel.hpp"

#include <QAbstractItemView>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "latest_only_runner.hpp"
#include "packing_grids.hpp"
#include "packing_hover.hpp"
#include "rnnwb/ui/canvas_export.hpp"
#include "rnnwb/ui/packing_form.hpp"
#include "rnnwb/ui/packing_table.hpp"
#include "rnnwb/ui/pixel_image_view.hpp"

namespace rnnwb::ui {
namespace {

using Kind = PackingSource::Kind;
using Watcher = QFutureWatcher<PackingResult>;

// What the figures depend on besides the source: the packer only chooses the picture.
bool sameFigures(const PackingSettings& a, const PackingSettings& b) {
  return a.source == b.source && a.batchSize == b.batchSize && a.rowWidth == b.rowWidth &&
         a.grid == b.grid;
}

QString rowWidthText(int rowWidth) {
  return rowWidth > 0 ? QStringLiteral("row width %1").arg(rowWidth)
                      : QStringLiteral("rows as wide as each batch's widest example");
}

QString gridText(const packing::GridDivisor& grid) {
  if (grid == packing::GridDivisor{}) return {};
  return QStringLiteral(" at 1/%1 × 1/%2 of each example's grid").arg(grid.y).arg(grid.x);
}

QString legendText(const PackingResult& r, long long batches) {
  const packing::PackedLayout& l = r.picture.layout;
  const std::size_t first = r.picture.first;
  return QStringLiteral(
             "Batch %1 of %2 packed by '%3'%11: examples %4–%5 (numbered from 0 in the "
             "picture), %6 rows, H × Wp = %7 × %8 cells, skewed H × Ws = %7 × %9; %10 a cell.")
      .arg(r.batch + 1)
      .arg(batches)
      .arg(r.settings.packer)
      .arg(first)
      .arg(first + l.places.size() - 1)
      .arg(l.rows.size())
      .arg(l.height)
      .arg(l.width)
      .arg(l.skewedWidth)
      .arg(r.picture.scale == 1 ? QStringLiteral("1 pixel")
                                : QStringLiteral("%1 × %1 pixels").arg(r.picture.scale))
      .arg(gridText(r.settings.grid));
}

// The key to the picture's colours: the legend's tool tip, so that at 720 px the picture keeps
// the height.
const QString kColourKey = QStringLiteral(
    "Blue bar: the packed examples, outlined and numbered (grey: separators and padding). Green "
    "bar: the mask. Orange bar: the skewed batch a column-parallel 2-D layer computes (grey: "
    "cells outside the skewed mask). Hover the picture to see what a cell is.");

}  // namespace

PackingPanel::PackingPanel(QWidget* parent)
    : QWidget(parent),
      m_runner(new LatestOnlyRunner(this, [this] { start(); })),
      m_form(new PackingForm) {
  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->addWidget(createFiguresSide());
  splitter->addWidget(createPictureSide());
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({660, 600});
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_form);
  layout->addWidget(splitter, 1);
  m_settings = m_form->settings();
  m_runner->setActiveWhen([this] { return m_started; });
  connect(m_form, &PackingForm::settingsEdited, this, &PackingPanel::onSettingsEdited);
  connect(&m_watcher, &Watcher::finished, this, &PackingPanel::onJobFinished);
  connect(&m_watcher, &Watcher::progressRangeChanged, m_progress, &QProgressBar::setRange);
  connect(&m_watcher, &Watcher::progressValueChanged, m_progress, &QProgressBar::setValue);
  clearShown();
}

PackingPanel::~PackingPanel() {
  // The job holds no pointer into the panel, but a thread must not outlive the application.
  m_watcher.future().cancel();
  m_watcher.waitForFinished();
}

QWidget* PackingPanel::createFiguresSide() {
  m_summary = new QLabel;
  m_summary->setWordWrap(true);
  m_table = new PackingTable;
  m_progress = new QProgressBar;
  m_progress->setMaximumHeight(14);
  m_progress->setTextVisible(false);
  m_progress->hide();
  m_message = new QLabel;
  m_message->setObjectName(QStringLiteral("message"));
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* side = new QWidget;
  auto* layout = new QVBoxLayout(side);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_summary);
  layout->addWidget(m_table, 1);
  layout->addWidget(m_progress);
  layout->addWidget(m_message);
  return side;
}

QWidget* PackingPanel::createPictureSide() {
  m_batchSelector = new QSpinBox;
  m_batchSelector->setObjectName(QStringLiteral("batchSelector"));
  m_batchSelector->setToolTip(QStringLiteral("The batch drawn (PgUp / PgDown step by ten)"));
  m_batchTotal = new QLabel;
  m_view = new PixelImageView;
  m_legend = new QLabel;
  m_legend->setWordWrap(true);
  m_legend->setToolTip(kColourKey);
  m_export = new QPushButton(QStringLiteral("Export PNG…"));
  auto* fit = new QPushButton(QStringLiteral("Fit"));
  auto* actual = new QPushButton(QStringLiteral("1:1"));
  connect(fit, &QPushButton::clicked, m_view, &PixelImageView::fitToWindow);
  connect(actual, &QPushButton::clicked, m_view, &PixelImageView::resetZoom);
  connect(m_export, &QPushButton::clicked, this, &PackingPanel::exportPictureAs);
  connect(m_batchSelector, &QSpinBox::valueChanged, this, [this](int value) {
    if (value - 1 != m_batch) showBatch(value - 1);
  });
  auto* label = new QLabel(QStringLiteral("Ba&tch:"));
  label->setBuddy(m_batchSelector);
  m_grid = new QComboBox;
  m_grid->setObjectName(QStringLiteral("grid"));
  // Narrow in the bar (the picture keeps its width at 1280×720); the list shows whole names.
  m_grid->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_grid->setMinimumContentsLength(10);
  setGraph(Graph{});
  connect(m_grid, &QComboBox::currentIndexChanged, this, [this] {
    const QPoint divide = m_grid->currentData().value<QPoint>();  // (x, y)
    m_settings.grid = {divide.x(), divide.y()};
    if (m_started) reschedule(0);
  });
  auto* gridLabel = new QLabel(QStringLiteral("&Grid:"));
  gridLabel->setBuddy(m_grid);
  auto* bar = new QHBoxLayout;
  bar->addWidget(label);
  bar->addWidget(m_batchSelector);
  bar->addWidget(m_batchTotal);
  bar->addWidget(gridLabel);
  bar->addWidget(m_grid);
  bar->addStretch();
  bar->addWidget(new QLabel(QStringLiteral("Ctrl+wheel zooms, drag pans")));
  bar->addWidget(fit);
  bar->addWidget(actual);
  bar->addWidget(m_export);
  auto* side = new QWidget;
  auto* layout = new QVBoxLayout(side);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(m_view, 1);
  layout->addWidget(m_legend);
  return side;
}

void PackingPanel::setGraph(const Graph& graph) {
  const QList<GridChoice> choices = gridChoices(graph);
  const QString current = m_grid->currentText();
  {
    const QSignalBlocker quiet(m_grid);
    m_grid->clear();
    for (const GridChoice& c : choices) {
      m_grid->addItem(c.label, QPoint(static_cast<int>(c.divide.x), static_cast<int>(c.divide.y)));
      m_grid->setItemData(m_grid->count() - 1,
                          c.layers.isEmpty() ? QStringLiteral("The examples' own grid")
                                             : QStringLiteral("Layers here: ") + c.layers,
                          Qt::ToolTipRole);
    }
    int widest = 0;
    for (const GridChoice& c : choices)
      widest = std::max(widest, m_grid->fontMetrics().horizontalAdvance(c.label));
    m_grid->view()->setMinimumWidth(widest + 32);
    const int keep = m_grid->findText(current);
    m_grid->setCurrentIndex(keep >= 0 ? keep : 0);
  }
  m_grid->setEnabled(choices.size() > 1);
  m_grid->setToolTip(choices.size() > 1
                         ? QStringLiteral("Draw and count the batch at a layer's grid of the open "
                                          "graph: each stage packs its examples at its own grid")
                         : QStringLiteral("The open graph has no coarser 2-D grid (no block "
                                          "connection)"));
  const QPoint divide = m_grid->currentData().value<QPoint>();
  const packing::GridDivisor grid{divide.x(), divide.y()};
  if (grid == m_settings.grid) return;
  m_settings.grid = grid;
  if (m_started) reschedule(0);
}

void PackingPanel::setSettings(const PackingSettings& settings) {
  m_settings = settings;
  m_settings.grid = {};
  const QSignalBlocker quiet(m_grid);
  m_grid->setCurrentIndex(0);
  for (int i = 0; i < m_grid->count(); ++i)
    if (m_grid->itemData(i).value<QPoint>() ==
        QPoint(static_cast<int>(settings.grid.x), static_cast<int>(settings.grid.y))) {
      m_grid->setCurrentIndex(i);
      m_settings.grid = settings.grid;
    }
  m_form->setSettings(settings);
  m_started = true;
  reschedule(0);
}

void PackingPanel::onSettingsEdited(bool typing) {
  const packing::GridDivisor grid = m_settings.grid;  // the Grid box's, not the form's
  m_settings = m_form->settings();
  m_settings.grid = grid;
  if (!m_started) return;                   // the first showing starts the work
  reschedule(typing ? kTypingPauseMs : 0);  // typing in a spin box: one job, not one per key
}

void PackingPanel::reschedule(int delayMs) {
  // The running job's result will be for older settings: it stops at its next check, and the
  // runner starts the newest once it is back.
  m_watcher.future().cancel();
  m_runner->schedule(delayMs);
}

int PackingPanel::batchCount() const {
  return m_figures ? static_cast<int>(m_figures->batches) : 0;
}

void PackingPanel::showBatch(int batch) {
  m_batch = std::max(batch, 0);
  reschedule(0);
}

bool PackingPanel::isBusy() const { return m_runner->isRunning() || m_runner->isWaiting(); }

const QImage& PackingPanel::image() const { return m_view->image(); }
QString PackingPanel::summary() const { return m_summary->text(); }
QString PackingPanel::legend() const { return m_legend->text(); }
QString PackingPanel::message() const { return m_message->text(); }

void PackingPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (!m_started) {  // nothing is generated until someone looks
    m_started = true;
    m_runner->schedule(0);
  }
}

void PackingPanel::start() {
  const PackingSettings& s = m_settings;
  if (s.source.kind != Kind::SyntheticWords && s.source.path.isEmpty()) {
    clearShown();
    showMessage(s.source.kind == Kind::SizesFile
                    ? QStringLiteral("Choose a sizes file (Browse…).")
                    : QStringLiteral("Choose a folder of PNGs or an IAM folder (Browse…)."),
                false);
    return;
  }
  auto examples = m_examplesSource == s.source ? m_examples : nullptr;
  auto figures = examples && sameFigures(m_figuresSettings, s) ? m_figures : nullptr;
  showMessage(examples ? QStringLiteral("Working…")
                       : QStringLiteral("Loading %1…").arg(s.source.describe()),
              false);
  m_progress->setRange(0, 0);  // busy until the loader reports its total
  m_progress->show();
  m_runner->started();
  m_watcher.setFuture(
      QtConcurrent::run(&runPackingJob, s, static_cast<std::size_t>(m_batch), examples, figures));
}

void PackingPanel::onJobFinished() {
  if (!m_runner->finished()) return;  // outdated meanwhile: dropped, the newest runs
  const QFuture<PackingResult> future = m_watcher.future();
  m_progress->hide();
  if (future.isCanceled() || future.resultCount() == 0) return;
  const PackingResult result = future.result();
  applyResult(result);
  emit resultShown();
}

void PackingPanel::applyResult(const PackingResult& r) {
  m_examples = r.examples;
  m_examplesSource = r.settings.source;
  m_figures = r.figures;
  m_figuresSettings = r.settings;
  if (!r.examples) {
    clearShown();
    showMessage(QStringLiteral("Cannot load the %1: %2").arg(r.settings.source.describe(), r.error),
                true);
    return;
  }
  if (m_figures) {
    m_table->setFigures(*m_figures, r.settings.packer);
    m_summary->setText(QStringLiteral("%1: %2 examples in %3 batches of %4, %5.")
                           .arg(r.settings.source.describe())
                           .arg(m_figures->examples)
                           .arg(m_figures->batches)
                           .arg(r.settings.batchSize)
                           .arg(rowWidthText(r.settings.rowWidth)));
  } else {
    m_table->clearFigures();
    m_summary->clear();
  }
  showBatchSelector(r);
  if (!r.error.isEmpty() || !m_figures) {
    m_picture = {};
    m_view->setImage({});
    m_legend->clear();
    showMessage(r.error, true);
    return;
  }
  showPicture(r);
  showMessage({}, false);
}

void PackingPanel::showBatchSelector(const PackingResult& r) {
  m_batchSelector->setEnabled(m_figures != nullptr);
  if (!m_figures) {
    m_batchTotal->clear();
    return;
  }
  m_batch = static_cast<int>(r.batch);
  const QSignalBlocker blocker(m_batchSelector);
  m_batchSelector->setRange(1, static_cast<int>(m_figures->batches));
  m_batchSelector->setValue(m_batch + 1);
  m_batchTotal->setText(QStringLiteral("of %1").arg(m_figures->batches));
}

void PackingPanel::showPicture(const PackingResult& r) {
  // Stepping through the batches of the same settings keeps the zoom and the place.
  const bool keepZoom = !m_view->image().isNull() && m_shownSettings == r.settings;
  m_shownSettings = r.settings;
  m_picture = r.picture;
  m_view->setImage(r.image, keepZoom);
  m_view->setLabels(packedExampleLabels(r.picture));
  packing::BatchPicture geometry = r.picture;
  geometry.image = {};  // the readout needs the layout, not a second copy of the pixels
  m_view->setDescriber([geometry, examples = r.examples](QPoint pixel) {
    return describePackedPixel(geometry, examples.get(), pixel);
  });
  m_legend->setText(legendText(r, m_figures->batches));
  m_export->setEnabled(true);
}

void PackingPanel::clearShown() {
  m_figures.reset();
  m_picture = {};
  m_table->clearFigures();
  m_summary->clear();
  m_view->setImage({});
  m_legend->clear();
  m_batchTotal->clear();
  m_batchSelector->setEnabled(false);
  m_export->setEnabled(false);
  m_progress->hide();
}

void PackingPanel::showMessage(const QString& text, bool error) {
  m_messageIsError = error;
  m_message->setText(text);
  m_message->setStyleSheet(error ? QStringLiteral("color: #b00020;") : QString());
}

bool PackingPanel::exportPicture(const QString& path, QString* error) const {
  if (m_view->image().isNull()) {
    if (error) *error = QStringLiteral("There is no picture to export.");
    return false;
  }
  return exportImagePng(m_view->image(), path, error);
}

void PackingPanel::exportPictureAs() {
  const QString suggested = QStringLiteral("packed-batch-%1.png").arg(m_batch + 1);
  QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export the packed batch"),
                                              suggested, QStringLiteral("PNG image (*.png)"));
  if (path.isEmpty()) return;
  if (!path.endsWith(QStringLiteral(".png"), Qt::CaseInsensitive)) path += QStringLiteral(".png");
  QString error;
  if (exportPicture(path, &error))
    showMessage(QStringLiteral("Wrote %1").arg(path), false);
  else
    showMessage(error, true);
}

}  // namespace rnnwb::ui
