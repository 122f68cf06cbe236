#pragma once
// The properties panel: every field of the spec for the selected layer (id, kind, size,
// activation, bias, loss) or connection (id, from, to, type, delay, density, seed, and version 2's
// dy, block, reduce, trainable, init), or the graph's name and dimensions when nothing single is
// selected. Each edit pushes an undo command; an id that is malformed or taken is refused with a
// message, every other value is accepted and validated live. The editors carry object names
// (layerId, layerKind, layerSize, layerActivation, layerBias, layerLoss, connectionId,
// connectionFrom, connectionTo, connectionType, connectionDelay (dx in a 2-D graph),
// connectionDelayY, connectionBlockX, connectionBlockY, connectionReduce, connectionTrainable,
// connectionInit, connectionDensity, connectionSeed, graphName, graphDimensions; layerMessage and
// connectionMessage, the refusal under the id field) so that tests and style sheets can find them.
// The connection form is in properties_connection.cpp.
#include <string>

#include <QWidget>

#include "rnnwb/core/graph.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
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
  void refreshConnection(const Connection& c);
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
  QFormLayout* m_connectionLayout;
  QSpinBox* m_delay;
  QSpinBox* m_delayY;
  QSpinBox* m_blockX;
  QSpinBox* m_blockY;
  QComboBox* m_reduce;
  QCheckBox* m_trainable;
  QLineEdit* m_init;
  QDoubleSpinBox* m_density;
  QLineEdit* m_seed;

  QLineEdit* m_name;
  QComboBox* m_dimensions;
  QLabel* m_graphSummary;
};

}  // namespace rnnwb::ui
