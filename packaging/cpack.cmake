# Debian packages by CPack (scripts/package.sh), one per install component:
#   rnnwb          the programs and their data, desktop integration (component runtime)
#   librnnwbVER    the shared libraries (libraries)
#   librnnwb-dev   headers, the CMake package, rnnwb.pc (development)
#   python3-rnnwb  the Python package (python): built only once python/ installs into it
# Library dependencies are computed by dpkg-shlibdeps; only what no ELF file shows is listed:
# the -dev package's header dependencies, and the fonts the GUI draws with.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rnnwb)
set(CPACK_PACKAGE_VENDOR "RNN Workbench")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPackDeb would put it first in every package; each
# component's description starts with its own summary line instead.
# The maintainers' address, as the commits give it.
set(CPACK_PACKAGE_CONTACT
    "RNN Workbench maintainers <maintainers@users.noreply.a-seed-3e84ea39.example>")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# dpkg-shlibdeps finds the package's own libraries in their staging tree (cpack-project.cmake);
# the library package gets a shlibs file for other packages built against it.
configure_file(${CMAKE_CURRENT_LIST_DIR}/cpack-project.cmake.in
               ${PROJECT_BINARY_DIR}/packaging/cpack-project.cmake @ONLY)
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/packaging/cpack-project.cmake)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(RNNWB_LIB_PACKAGE librnnwb${RNNWB_SOVERSION})

set(CPACK_COMPONENTS_ALL runtime libraries development)
# The Python package's hook: python/ installs its package into ${RNNWB_INSTALL_PYTHONDIR}/rnnwb
# with COMPONENT python (the extension's INSTALL_RPATH "$ORIGIN/${RNNWB_PYTHON_TO_LIB}") and sets
# the global property RNNWB_PACKAGE_PYTHON, which adds python3-rnnwb here.
get_property(RNNWB_PACKAGE_PYTHON GLOBAL PROPERTY RNNWB_PACKAGE_PYTHON)
if(RNNWB_PACKAGE_PYTHON)
  list(APPEND CPACK_COMPONENTS_ALL python)
endif()

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME rnnwb)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION science)
# Qt draws text with fontconfig's fonts; none is an ELF dependency.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "fonts-dejavu-core")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "shared-mime-info, desktop-file-utils")
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "Workbench for generalized recurrent neural networks\n\
RNN Workbench draws recurrent networks as graphs of layers joined by connections\n\
with delays, validates and analyses them, and trains them (rnnwb-gui, rnnwb).")
set(CPACK_DEBIAN_LIBRARIES_PACKAGE_NAME ${RNNWB_LIB_PACKAGE})
set(CPACK_DEBIAN_LIBRARIES_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIBRARIES_DESCRIPTION "RNN Workbench's engine (libraries)\n\
The graph model, analysis, CPU engine, RTRL/SnAp-n and training of RNN Workbench.")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME librnnwb-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
# The public headers include nlohmann/json.hpp (the only dependency a consumer compiles with).
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "nlohmann-json3-dev")
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION "RNN Workbench's engine (development files)\n\
Headers, the CMake package (find_package(rnnwb)) and rnnwb.pc.")
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-rnnwb)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
# The interpreter is no ELF dependency of an extension module.
# Built against Debian 12's Python 3.11 (the module's ABI tag): that Python, and NumPy.
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3 (>= 3.11), python3 (<< 3.12), python3-numpy")
set(CPACK_DEBIAN_PYTHON_DESCRIPTION "RNN Workbench's engine (Python)\n\
The rnnwb Python module: bindings of the engine.")

include(CPack)
cpack_add_component(libraries DISPLAY_NAME "Libraries")
cpack_add_component(runtime DISPLAY_NAME "Programs" DEPENDS libraries)
cpack_add_component(development DISPLAY_NAME "Development files" DEPENDS libraries)
cpack_add_component(python DISPLAY_NAME "Python package" DEPENDS libraries)
