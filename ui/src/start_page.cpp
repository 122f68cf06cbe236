#include "start_page.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "rnnwb/ui/file_actions.hpp"

namespace rnnwb::ui {
namespace {

QLabel* heading(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  QFont font = label->font();
  font.setBold(true);
  label->setFont(font);
  return label;
}

QListWidget* fileList(QWidget* parent, const QString& name) {
  auto* list = new QListWidget(parent);
  list->setObjectName(name);
  list->setFrameShape(QFrame::NoFrame);
  list->setMinimumWidth(220);
  return list;
}

}  // namespace

StartPage::StartPage(QWidget* parent)
    : QFrame(parent),
      m_examples(fileList(this, QStringLiteral("examples"))),
      m_recent(fileList(this, QStringLiteral("recentFiles"))) {
  setObjectName(QStringLiteral("startPage"));
  setFrameShape(QFrame::StyledPanel);
  setAutoFillBackground(true);
  auto* layout = new QGridLayout(this);
  layout->setContentsMargins(18, 14, 18, 14);
  auto* title = new QLabel(QStringLiteral("<h2>RNN Workbench</h2>Draw a graph from the palette, "
                                          "or start from one of these."),
                           this);
  layout->addWidget(title, 0, 0, 1, 3);
  layout->addWidget(heading(QStringLiteral("Open an example"), this), 1, 0);
  layout->addWidget(heading(QStringLiteral("Recent files"), this), 1, 1);
  layout->addWidget(heading(QStringLiteral("New from a template"), this), 1, 2);
  layout->addWidget(m_examples, 2, 0);
  layout->addWidget(m_recent, 2, 1);
  auto* templates = new QVBoxLayout;
  for (CellTemplate cell : kCellTemplates) {
    auto* button = new QPushButton(templateName(cell), this);
    button->setToolTip(QStringLiteral("An input layer x, %1 fed by it and an output layer y")
                           .arg(templateWithArticle(cell)));
    connect(button, &QPushButton::clicked, this, [this, cell] { emit templateChosen(cell); });
    templates->addWidget(button);
  }
  templates->addStretch();
  layout->addLayout(templates, 2, 2);
  for (QListWidget* list : {m_examples, m_recent})
    connect(list, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
      emit fileChosen(item->data(Qt::UserRole).toString());
    });
  for (QListWidget* list : {m_examples, m_recent})
    connect(list, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
      emit fileChosen(item->data(Qt::UserRole).toString());
    });
  refresh();
}

QString StartPage::examplesDirectory() {
  const QString fromEnvironment = qEnvironmentVariable("RNNWB_EXAMPLES");
  if (!fromEnvironment.isEmpty()) return fromEnvironment;
  const QString appDir = QCoreApplication::applicationDirPath();
  const QString installed =
      QDir::cleanPath(QDir(appDir).filePath(QStringLiteral(RNNWB_BIN_TO_DATA "/examples")));
  if (QFileInfo(installed).isDir()) return installed;
  // A program of the build tree (where the tests run them) reads the source tree's examples; an
  // installed one never does, even when that tree is still on the disk.
  const QString buildDir = QDir::cleanPath(QStringLiteral(RNNWB_BUILD_DIR));
  if (appDir == buildDir || appDir.startsWith(buildDir + QLatin1Char('/')))
    return QStringLiteral(RNNWB_SOURCE_EXAMPLES_DIR);
  return installed;
}

void StartPage::refresh() {
  m_examples->clear();
  const QDir examples(examplesDirectory());
  for (const QFileInfo& file :
       examples.entryInfoList({QStringLiteral("*.rnn.json")}, QDir::Files, QDir::Name)) {
    auto* item =
        new QListWidgetItem(file.completeBaseName().remove(QStringLiteral(".rnn")), m_examples);
    item->setData(Qt::UserRole, file.absoluteFilePath());
    item->setToolTip(file.absoluteFilePath());
  }
  m_recent->clear();
  for (const QString& path : FileActions::recentFiles()) {
    auto* item = new QListWidgetItem(QFileInfo(path).fileName(), m_recent);
    item->setData(Qt::UserRole, path);
    item->setToolTip(path);
  }
  if (m_recent->count() == 0) {
    auto* none = new QListWidgetItem(QStringLiteral("(none yet)"), m_recent);
    none->setFlags(Qt::NoItemFlags);
  }
}

int StartPage::exampleCount() const { return m_examples->count(); }

}  // namespace rnnwb::ui
