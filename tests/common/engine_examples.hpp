#pragma once
// The example graphs the engines compute today: those of version 1. Version 2's examples (2-D,
// ctc, reading ahead) are validated and analysed by tst_cli and tst_scanorder, and refused by the
// engines (tst_enginesupport) until the 2-D engine exists; loops that run every example through
// an engine take this list instead of the whole folder.
#include <QDir>
#include <QStringList>

#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::testing {

inline QStringList engineExampleNames() {
  const QDir examples(RNNWB_EXAMPLES_DIR);
  QStringList names;
  for (const QString& name : examples.entryList({"*.rnn.json"}, QDir::Files, QDir::Name)) {
    const GraphLoadResult r = loadGraphFile(examples.filePath(name).toStdString());
    if (!r.graph || !usesVersion2(*r.graph)) names.push_back(name);
  }
  return names;
}

}  // namespace rnnwb::testing
