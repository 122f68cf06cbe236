#pragma once
// The undo commands: the only way the editor changes a GraphDocument. Each stores what it needs
// to restore the document exactly (a delete keeps the removed layers, connections and positions
// with their indices), so redo→undo gives back an identical graph.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <QUndoCommand>

#include "rnnwb/core/graph.hpp"
#include "rnnwb/ui/graph_document.hpp"

namespace rnnwb::ui {

/// A new connection from `from` to `to` as a drag between ports makes it: full, no delay, the
/// spec's default id (made unique if a parallel one exists) and seed (its future index).
Connection makeConnection(const GraphDocument& document, const std::string& from,
                          const std::string& to);
/// A new layer of this kind as the palette makes it, with a fresh id and the kind's defaults.
Layer makeLayer(const GraphDocument& document, LayerKind kind, bool output = false);

class AddLayerCommand : public QUndoCommand {
 public:
  AddLayerCommand(GraphDocument* document, Layer layer, QPointF position);
  void redo() override;
  void undo() override;

 private:
  GraphDocument* m_document;
  Layer m_layer;
  QPointF m_position;
  int m_index;
};

class AddConnectionCommand : public QUndoCommand {
 public:
  AddConnectionCommand(GraphDocument* document, Connection connection);
  void redo() override;
  void undo() override;

 private:
  GraphDocument* m_document;
  Connection m_connection;
  int m_index;
};

/// Deletes layers (with every connection touching them) and connections.
class RemoveItemsCommand : public QUndoCommand {
 public:
  RemoveItemsCommand(GraphDocument* document, const std::set<std::string>& layerIds,
                     const std::set<int>& connectionIndices);
  void redo() override;
  void undo() override;
  bool isEmpty() const { return m_layers.empty() && m_connections.empty(); }

 private:
  struct RemovedLayer {
    int index;
    Layer layer;
    std::optional<QPointF> position;
  };
  GraphDocument* m_document;
  std::vector<RemovedLayer> m_layers;                     // ascending index
  std::vector<std::pair<int, Connection>> m_connections;  // ascending index
};

/// Replaces a layer's fields. A new id is carried to the connections that name the layer (their
/// default ids follow) and to its position.
class EditLayerCommand : public QUndoCommand {
 public:
  EditLayerCommand(GraphDocument* document, int index, Layer layer);
  void redo() override;
  void undo() override;

 private:
  GraphDocument* m_document;
  int m_index;
  Layer m_before, m_after;
  std::vector<Connection> m_connectionsBefore, m_connectionsAfter;
};

/// Replaces a connection's fields; a default id follows a changed delay.
class EditConnectionCommand : public QUndoCommand {
 public:
  EditConnectionCommand(GraphDocument* document, int index, Connection connection);
  void redo() override;
  void undo() override;

 private:
  GraphDocument* m_document;
  int m_index;
  Connection m_before, m_after;
};

/// Moves layers. Commands of the same drag (same dragId) merge into one undo step.
class MoveLayersCommand : public QUndoCommand {
 public:
  static constexpr int kId = 1;
  MoveLayersCommand(GraphDocument* document, PositionMap before, PositionMap after, int dragId = -1,
                    const QString& text = QStringLiteral("Move"));
  void redo() override;
  void undo() override;
  int id() const override { return kId; }
  bool mergeWith(const QUndoCommand* other) override;

 private:
  GraphDocument* m_document;
  PositionMap m_before, m_after;
  int m_dragId;
};

/// Replaces the frames around groups of layers (make, rename, recolour, delete a frame): the
/// list before and after, so undo is exact.
class SetFramesCommand : public QUndoCommand {
 public:
  SetFramesCommand(GraphDocument* document, std::vector<LayerFrame> before,
                   std::vector<LayerFrame> after, const QString& text);
  void redo() override;
  void undo() override;

 private:
  GraphDocument* m_document;
  std::vector<LayerFrame> m_before, m_after;
};

/// A group of layers and connections appended together (paste, templates). Connections may
/// also name layers already in the document.
struct GraphFragment {
  std::vector<Layer> layers;
  std::vector<Connection> connections;
  PositionMap positions;
};

class InsertFragmentCommand : public QUndoCommand {
 public:
  InsertFragmentCommand(GraphDocument* document, GraphFragment fragment, const QString& text);
  void redo() override;
  void undo() override;

 private:
  GraphDocument* m_document;
  GraphFragment m_fragment;
  int m_firstLayer, m_firstConnection;
};

/// The graph's dimensions (1 or 2). What no longer fits (a dy in a 1-D graph) is left for the
/// Problems panel to name, as a file holding it would be; undo brings the old dimensions back.
class SetDimensionsCommand : public QUndoCommand {
 public:
  SetDimensionsCommand(GraphDocument* document, int dimensions);
  void redo() override;
  void undo() override;

 private:
  GraphDocument* m_document;
  int m_before, m_after;
};

class RenameGraphCommand : public QUndoCommand {
 public:
  RenameGraphCommand(GraphDocument* document, std::string name);
  void redo() override;
  void undo() override;

 private:
  GraphDocument* m_document;
  std::string m_before, m_after;
};

}  // namespace rnnwb::ui
