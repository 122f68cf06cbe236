// rnnwb._core.Training: one training run on a thread of its own (rnnwb train's loop, the same
// Trainer), whose progress the Python thread takes from a queue (rnnwb.run.Run iterates it).
// The Python thread waits with the GIL released and short timeouts, so that Ctrl+C reaches it
// as KeyboardInterrupt; Run then calls request_stop(), and the loop stops as for SIGINT on the
// CLI: it finishes its update and writes a checkpoint. No signal handler is installed here
// (Python's own SIGINT handler stays).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <thread>

#include "bindings.hpp"
#include "convert.hpp"
#include "errors.hpp"
#include "rnnwb/core/train/run_folder_lock.hpp"
#include "rnnwb/core/train/run_spec.hpp"
#include "rnnwb/core/train/stop_signal.hpp"
#include "rnnwb/core/train/trainer.hpp"

namespace rnnwb::python {

namespace {

struct Event {
  std::string kind;  // "report", "message", "end", "error"
  std::string text;  // a metrics line, a message, or an error's message
  nlohmann::json outcome;
};

class Training : public train::TrainingObserver {
 public:
  static std::unique_ptr<Training> start(const nb::handle& settings, const std::string& config,
                                         const std::string& runDir, bool resume) {
    auto t = std::unique_ptr<Training>(new Training());
    const train::SettingValues given = settingValues(settings);
    train::clearStopRequest();
    t->m_lock.emplace(runDir);
    if (resume) {
      train::requireResumeMayChange(given, runDir);
      t->m_trainer = train::Trainer::resume(runDir, train::resumeOverrides(given), t.get());
    } else {
      t->m_trainer =
          train::Trainer::startNew(train::resolveRunConfig(config, given), runDir, t.get());
    }
    t->m_thread = std::thread([raw = t.get()] { raw->loop(); });
    return t;
  }

  ~Training() override {
    if (m_thread.joinable()) {
      train::requestStop(SIGINT);
      m_thread.join();
    }
  }

  /// The next event, or None after `timeout` seconds without one.
  nb::object next(double timeout) {
    Event event;
    {
      const nb::gil_scoped_release noGil;
      std::unique_lock<std::mutex> lock(m_mutex);
      if (!m_cv.wait_for(lock, std::chrono::duration<double>(timeout),
                         [&] { return !m_events.empty(); }))
        return nb::none();
      event = std::move(m_events.front());
      m_events.pop_front();
    }
    if (event.kind == "end" || event.kind == "error") {
      const nb::gil_scoped_release noGil;
      m_thread.join();
      m_lock.reset();
    }
    if (event.kind == "error") throw std::runtime_error(event.text);
    nb::object value = event.kind == "end"      ? fromJson(event.outcome)
                       : event.kind == "report" ? fromJson(nlohmann::json::parse(event.text))
                                                : nb::cast(event.text);
    return nb::make_tuple(event.kind, value);
  }

  void onReport(const train::MetricsRecord& record, std::int64_t) override {
    push({"report", train::toJsonLine(record), {}});
  }
  void onMessage(const std::string& message) override { push({"message", message, {}}); }

 private:
  Training() = default;

  static train::SettingValues settingValues(const nb::handle& settings) {
    train::SettingValues values;
    const nlohmann::json given = toJson(settings);  // kept alive: items() refers into it
    for (const auto& [key, value] : given.items()) {
      const train::Setting* s = train::findSetting(key);
      if (!s) throw std::invalid_argument("unknown setting '" + key + "' (docs/training.md)");
      values[key] = train::checkedValue(*s, value, "'" + key + "'");
    }
    return values;
  }

  void loop() {
    try {
      const train::TrainOutcome o = m_trainer->run();
      push({"end",
            {},
            {{"finished", o.finished},
             {"stop_signal", o.stopSignal},
             {"step", o.step},
             {"total_steps", o.totalSteps}}});
    } catch (const std::exception& e) {
      push({"error", e.what(), {}});
    }
  }

  void push(Event event) {
    {
      const std::lock_guard<std::mutex> lock(m_mutex);
      m_events.push_back(std::move(event));
    }
    m_cv.notify_one();
  }

  std::optional<train::RunFolderLock> m_lock;  // as the CLI holds it: a second run is refused
  std::unique_ptr<train::Trainer> m_trainer;
  std::thread m_thread;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<Event> m_events;
};

}  // namespace

void bindTrain(nb::module_& m) {
  nb::class_<Training>(m, "Training",
                       "A training run on a thread of its own; rnnwb.train() and rnnwb.Run wrap "
                       "it.")
      .def_static(
          "start",
          [](const nb::handle& settings, const std::string& config, const std::string& runDir,
             bool resume) {
            std::unique_ptr<Training> t;
            withGraphNames(nullptr, [&] { t = Training::start(settings, config, runDir, resume); });
            return t;
          },
          nb::arg("settings"), nb::arg("config"), nb::arg("run_dir"), nb::arg("resume"),
          "Checks the settings ({config key: value}, as docs/training.md's run spec) as "
          "`rnnwb train` does, creates (or, with resume, continues) the run folder and starts "
          "the loop.")
      .def("next", &Training::next, nb::arg("timeout"),
           "The next event: ('report', metrics dict), ('message', text), ('end', outcome "
           "dict), or None after `timeout` seconds; raises the loop's error.")
      .def_static(
          "request_stop", [] { train::requestStop(SIGINT); },
          "Asks the loop to stop as SIGINT does: it finishes its update and writes a checkpoint.");
}

}  // namespace rnnwb::python
