# Where an install puts things (GNUInstallDirs), said relative to the programs' own folder, so
# that an installed tree works under any prefix and under DESTDIR (relocatable): the programs
# find their libraries through $ORIGIN and their data through RNNWB_BIN_TO_DATA.

# bin/ -> lib/ (lib/x86_64-linux-gnu under /usr on Debian) and bin/ -> share/rnnwb.
file(RELATIVE_PATH RNNWB_BIN_TO_LIB ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
file(RELATIVE_PATH RNNWB_BIN_TO_DATA ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_FULL_DATADIR}/rnnwb)
set(RNNWB_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/rnnwb)
set(RNNWB_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/rnnwb)

# Build-tree programs keep the absolute rpath of the build tree (the tests run them there); the
# installed ones get a relative one. Libraries find each other in their own folder.
set(CMAKE_INSTALL_RPATH "$ORIGIN/${RNNWB_BIN_TO_LIB}")

# The engine's libraries: SONAME librnnwb_X.so.MAJOR.MINOR while the version is 0.x (every
# 0.x release may change the ABI), then MAJOR.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(RNNWB_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(RNNWB_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()

# The Python package's place (Debian's dist-packages under /usr) and the RUNPATH its extension
# needs to find the engine's libraries from there, for python/ to install into the component
# `python` (packaging/cpack.cmake makes python3-rnnwb of it).
set(RNNWB_INSTALL_PYTHONDIR lib/python3/dist-packages CACHE PATH
    "Where the rnnwb Python package installs, relative to the prefix")
file(RELATIVE_PATH RNNWB_PYTHON_TO_LIB ${CMAKE_INSTALL_PREFIX}/${RNNWB_INSTALL_PYTHONDIR}/rnnwb
     ${CMAKE_INSTALL_FULL_LIBDIR})
