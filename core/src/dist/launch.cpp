#include "rnnwb/core/dist/launch.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "world.hpp"

namespace rnnwb::dist {
namespace {

int readCount(const char* variable, const char* text) {
  int value = 0;
  const std::string_view s(text);
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (error != std::errc() || end != s.data() + s.size() || value < 0)
    throw std::runtime_error(std::string("the launcher set ") + variable + "='" + text +
                             "', which is not a rank or a number of ranks");
  return value;
}

}  // namespace

LaunchInfo detectLaunch(const std::function<const char*(const char*)>& getenv) {
  const auto read = [&](const char* name) -> const char* {
    return getenv ? getenv(name) : std::getenv(name);
  };
  struct Variables {
    const char *rank, *size, *launcher;
  };
  for (const Variables v : {Variables{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI"},
                            Variables{"PMI_RANK", "PMI_SIZE", "MPICH (PMI)"}}) {
    const char* rank = read(v.rank);
    const char* size = read(v.size);
    if (!rank || !size) continue;
    LaunchInfo info{readCount(v.rank, rank), readCount(v.size, size), v.launcher};
    if (info.size < 1 || info.rank >= info.size)
      throw std::runtime_error(std::string("the launcher set ") + v.rank + "=" + rank + " and " +
                               v.size + "=" + size + ": no such rank");
    return info;
  }
  return {};
}

std::unique_ptr<Communicator> openWorld() {
  const LaunchInfo launch = detectLaunch();
  if (launch.size == 1) return makeSingleProcessCommunicator();
  if (!builtWithMpi())
    throw std::runtime_error(
        "this process is rank " + std::to_string(launch.rank) + " of " +
        std::to_string(launch.size) + " (" + launch.launcher +
        "), but rnnwb was built without MPI: install Open MPI (scripts/install-deps.sh installs "
        "openmpi-bin and libopenmpi-dev; Debian: apt-get install openmpi-bin libopenmpi-dev), "
        "reconfigure and rebuild (scripts/build.sh), then run `mpirun -np " +
        std::to_string(launch.size) + " rnnwb train ...` (docs/distributed.md)");
  return openMpiWorld(launch);
}

}  // namespace rnnwb::dist
