# Desktop integration of rnnwb-gui (freedesktop.org): the menu entry, AppStream metainfo, the
# icon in the hicolor theme, and the MIME type of *.rnn.json that opens graphs in the workbench.
set(RNNWB_APP_ID org.rnnwb.Workbench)
set(RNNWB_HOMEPAGE "https://example.org/rnnwb" CACHE STRING
    "The project's homepage, named by the AppStream metainfo (screenshots under /screenshots)")
set(RNNWB_PROJECT_LICENSE "" CACHE STRING
    "SPDX licence expression for the AppStream metainfo (none is given while the tree has none)")
if(RNNWB_PROJECT_LICENSE)
  set(RNNWB_PROJECT_LICENSE_XML
      "  <project_license>${RNNWB_PROJECT_LICENSE}</project_license>\n")
endif()
# The screenshots' sizes, read from their PNG headers (width and height at bytes 16-23).
set(RNNWB_SHOTS workbench collapsed)
set(index 1)
foreach(name IN LISTS RNNWB_SHOTS)
  file(READ ${CMAKE_CURRENT_SOURCE_DIR}/screenshots/${name}.png header LIMIT 24 HEX)
  string(SUBSTRING "${header}" 32 8 w)
  string(SUBSTRING "${header}" 40 8 h)
  math(EXPR RNNWB_SHOT${index}_WIDTH "0x${w}")
  math(EXPR RNNWB_SHOT${index}_HEIGHT "0x${h}")
  math(EXPR index "${index} + 1")
endforeach()
configure_file(${RNNWB_APP_ID}.metainfo.xml.in
               ${CMAKE_CURRENT_BINARY_DIR}/${RNNWB_APP_ID}.metainfo.xml @ONLY)

if(TARGET rnnwb-gui)
  install(FILES ${RNNWB_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications
          COMPONENT runtime)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${RNNWB_APP_ID}.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo COMPONENT runtime)
  install(FILES rnnwb-mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
          RENAME ${RNNWB_APP_ID}.xml COMPONENT runtime)
  # The PNGs are rendered from resources/icons/rnnwb.svg by packaging/render-icons.sh.
  foreach(size 16 22 24 32 48 64 128 256 512)
    install(FILES icons/${size}.png
            DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps
            RENAME ${RNNWB_APP_ID}.png COMPONENT runtime)
  endforeach()
  install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/rnnwb.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps
          RENAME ${RNNWB_APP_ID}.svg COMPONENT runtime)
endif()

# The validators, as tests (label install): desktop-file-validate, and appstreamcli without the
# network (CI has none) and --strict (warnings fail too). A missing validator fails its test
# (scripts/install-deps.sh installs both).
if(RNNWB_BUILD_TESTS)
  find_program(RNNWB_DESKTOP_FILE_VALIDATE desktop-file-validate)
  find_program(RNNWB_APPSTREAMCLI appstreamcli)
  foreach(tool desktop-file-validate appstreamcli)
    string(TOUPPER ${tool} var)
    string(REPLACE "-" "_" var RNNWB_${var})
    if(NOT ${var})
      set(${var} sh -c "echo '${tool} not found (scripts/install-deps.sh installs it)' >&2; exit 1"
                 --)
    endif()
  endforeach()
  add_test(NAME desktop_file_validate COMMAND ${RNNWB_DESKTOP_FILE_VALIDATE}
           ${CMAKE_CURRENT_SOURCE_DIR}/${RNNWB_APP_ID}.desktop)
  add_test(NAME appstream_validate COMMAND ${RNNWB_APPSTREAMCLI} validate --no-net --strict
           ${CMAKE_CURRENT_BINARY_DIR}/${RNNWB_APP_ID}.metainfo.xml)
  set_tests_properties(desktop_file_validate appstream_validate PROPERTIES LABELS install)
endif()
