#pragma once
// The example graphs the engines compute today: those with no engine limitation that stream in
// chunks (version 1's, and version 2's that use complement connections only). The other version
// 2 examples (2-D, ctc, reading ahead) are validated and analysed by tst_cli and tst_scanorder,
// and refused by the engines (tst_enginesupport) until the 2-D engine exists; loops that run
// every example through an engine take this list instead of the whole folder.
#include <QDir>
#include <QStringList>

#include "rnnwb/core/engine/engine_support.hpp"
#include "rnnwb/core/graph_io.hpp"

namespace rnnwb::testing {

inline QStringList engineExampleNames() {
  const QDir examples(RNNWB_EXAMPLES_DIR);
  QStringList names;
  for (const QString& name : examples.entryList({"*.rnn.json"}, QDir::Files, QDir::Name)) {
    const GraphLoadResult r = loadGraphFile(examples.filePath(name).toStdString());
    if (!r.graph) {
      names.push_back(name);  // the test that loads it reports why it does not
      continue;
    }
    const CompiledPlan plan(*r.graph);
    if (engineLimitations(plan).empty() && plan.readAheadConnection() < 0) names.push_back(name);
  }
  return names;
}

}  // namespace rnnwb::testing
