#pragma once
// The properties panel: every field of the spec for the selected layer (id, kind, size,
// activation, bias, loss) or connection (id, from, to, type, delay, density, seed), or the graph's
// name when nothing single is selected. Each edit pushes an undo command; an id that is malformed
// or taken is refused with a message, every other value is accepted and validated live. The editors
// carry object names (layerId, layerKind, layerSize, layerActivation, layerBias, layerLoss,
// connectionId, connectionFrom, connectionTo, connectionType, connectionDelay, connectionDensity,
// connectionSeed, graphName; layerMessage and connectionMessage, the refusal under the id field) so
// that tests and style sheets can find them.
#include <string>

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QStackedWidget;

namespace rnnwb::ui {

class GraphDocument;
class GraphScene;

class PropertiesPanel : public QWidget {
  Q_OBJECT
 public:
  PropertiesPanel(GraphDocument* document, GraphScene* scene, QWidget* parent = nullptr);
  ~PropertiesPanel() override;

 private:
  QWidget* createLayerForm();
  QWidget* createConnectionForm();
  QWidget* createGraphForm();
  void refresh();
  void commitLayer();
  void commitConnection();
  void commitGraph();
  bool acceptId(QLineEdit* edit, const std::string& current, bool layer);
  void forgetTyping();

  GraphDocument* m_document;
  GraphScene* m_scene;
  QStackedWidget* m_stack;
  bool m_refreshing = false;
  int m_layer = -1;       // index shown in the layer form
  int m_connection = -1;  // index shown in the connection form

  QLineEdit* m_layerId;
  QLabel* m_layerMessage;
  QComboBox* m_kind;
  QSpinBox* m_size;
  QComboBox* m_activation;
  QCheckBox* m_bias;
  QComboBox* m_loss;

  QLineEdit* m_connectionId;
  QLabel* m_connectionMessage;
  QComboBox* m_from;
  QComboBox* m_to;
  QComboBox* m_type;
  QSpinBox* m_delay;
  QDoubleSpinBox* m_density;
  QLineEdit* m_seed;

  QLineEdit* m_name;
  QLabel* m_graphSummary;
};

}  // namespace rnnwb::ui
