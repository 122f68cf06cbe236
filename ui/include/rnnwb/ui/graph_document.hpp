#pragma once
// GraphDocument: the editor's single source of truth. It holds the core Graph (with the editor's
// positions in graph.ui["positions"]), the file it came from and the QUndoStack; it runs headless.
//
// Only the undo commands of graph_commands.hpp call the mutating primitives below; every gesture
// pushes such a command. Views mirror the document through its signals and never change it
// directly. Layers are named by id, connections by their index in graph().connections.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <QObject>
#include <QPointF>
#include <QString>
#include <QStringList>

#include "rnnwb/core/diagnostic.hpp"
#include "rnnwb/core/graph.hpp"
#include "rnnwb/core/scc_analysis.hpp"
#include "rnnwb/ui/layer_frames.hpp"

class QUndoStack;

namespace rnnwb::ui {

using PositionMap = std::map<std::string, QPointF>;

class GraphDocument : public QObject {
  Q_OBJECT
 public:
  explicit GraphDocument(QObject* parent = nullptr);
  ~GraphDocument() override;

  const Graph& graph() const { return m_graph; }
  QUndoStack* undoStack() const { return m_undoStack; }

  /// The file the document was opened from or saved to; empty for a new document.
  QString filePath() const { return m_filePath; }
  void setFilePath(const QString& path);
  /// Unsaved changes: the undo stack is away from its clean state, or the content came from
  /// somewhere other than its file (a recovered autosave).
  bool isModified() const;
  void markUnsaved();

  /// Replaces the whole document (New, Open, recovery); clears the undo stack. Layers without a
  /// position get one from the auto-layout, without counting as an edit.
  void reset(Graph graph, const QString& path);
  /// Opens a graph file. A graph that breaks validity rules is opened (the problems panel shows
  /// what is wrong); a file that cannot be read, is not a graph file, or holds something the
  /// model cannot keep (an unknown key, a value of the wrong type) is not, and *error names the
  /// file and every such problem. Returns whether the document changed.
  bool open(const QString& path, QString* error);
  /// Saves atomically and marks the stack clean; throws std::runtime_error naming the path.
  void saveAs(const QString& path);

  int layerIndex(const std::string& id) const;
  bool hasPosition(const std::string& id) const;
  QPointF position(const std::string& id) const;  // (0, 0) when it has none
  PositionMap positions() const;
  /// `base` when no layer has that id, else base2, base3, ...
  std::string uniqueLayerId(const std::string& base) const;
  std::string uniqueConnectionId(const std::string& base) const;

  /// The frames around groups of layers (layer_frames.hpp), from ui["frames"].
  std::vector<LayerFrame> frames() const { return readFrames(m_graph.ui); }

  /// Every problem of validateGraph(), refreshed after each edit.
  const std::vector<Diagnostic>& problems() const { return m_problems; }
  /// The SCC analysis, absent while the graph has a zero-delay cycle or dangling connection.
  const std::optional<SccAnalysis>& analysis() const { return m_analysis; }

  // ---- Mutating primitives: for undo commands only. Indices must be in range. ----
  /// Within an EditScope: the structure is being changed, and the analysis is not yet its own.
  bool isEditing() const { return m_editDepth > 0; }
  /// Groups several primitives into one notification (nestable).
  class EditScope {
   public:
    explicit EditScope(GraphDocument& document);
    ~EditScope();
    EditScope(const EditScope&) = delete;
    EditScope& operator=(const EditScope&) = delete;

   private:
    GraphDocument& m_document;
  };
  void insertLayer(int index, const Layer& layer, std::optional<QPointF> position);
  void removeLayer(int index);  // and its position; its connections must already be gone
  void replaceLayer(int index, const Layer& layer);  // same id, or a rename via renameLayer
  /// Renames a layer's position entry and its place in frames; the caller updates connections
  /// through setConnections.
  void renamePosition(const std::string& from, const std::string& to);
  void insertConnection(int index, const Connection& connection);
  void removeConnection(int index);
  void replaceConnection(int index, const Connection& connection);
  void setConnections(std::vector<Connection> connections);
  void setName(const std::string& name);
  void setDimensions(int dimensions);
  /// Moves layers (ids that do not exist are ignored); rounds to whole scene units as the file
  /// stores them.
  void setPositions(const PositionMap& positions);
  void setFrames(const std::vector<LayerFrame>& frames);

 signals:
  /// reset() replaced the whole graph (structureChanged follows): selections are void.
  void replaced();
  /// Layers or connections were added, removed or edited: rebuild what mirrors them.
  void structureChanged();
  void positionsChanged(const QStringList& layerIds);
  /// Frames were added, removed, renamed, recoloured or given other layers.
  void framesChanged();
  void problemsChanged();
  void filePathChanged(const QString& path);
  void modifiedChanged(bool modified);

 private:
  void beginEdit();
  void endEdit();
  void refreshAnalysis();
  nlohmann::json& positionsJson();

  Graph m_graph;
  QString m_filePath;
  QUndoStack* m_undoStack;
  std::vector<Diagnostic> m_problems;
  std::optional<SccAnalysis> m_analysis;
  int m_editDepth = 0;
  bool m_unsavedOutsideStack = false;
};

}  // namespace rnnwb::ui
