# Man pages made from the programs' --help (help2man; rnnwb's lists each command's --help), and
# rnnwb's bash completion from `rnnwb completion bash`: both made by running the built programs,
# so they say what the programs say. The GUI's --help needs no display (offscreen platform).
# Not in the sanitizer trees, whose programs a build should not run (LeakSanitizer would fail
# the build on a leak of Qt's at exit), and which nobody installs.
if(CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  return()
endif()
find_program(RNNWB_HELP2MAN help2man)
set(RNNWB_MAN_DIR ${CMAKE_CURRENT_BINARY_DIR}/man)
set(RNNWB_MANUAL_OUTPUTS ${CMAKE_CURRENT_BINARY_DIR}/rnnwb.bash)
add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/rnnwb.bash
  COMMAND rnnwb completion bash > ${CMAKE_CURRENT_BINARY_DIR}/rnnwb.bash
  DEPENDS rnnwb VERBATIM COMMENT "Writing rnnwb's bash completion")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/rnnwb.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME rnnwb
        COMPONENT runtime)

if(RNNWB_HELP2MAN)
  set(programs rnnwb)
  if(TARGET rnnwb-gui)
    list(APPEND programs rnnwb-gui)
  endif()
  foreach(program IN LISTS programs)
    add_custom_command(OUTPUT ${RNNWB_MAN_DIR}/${program}.1
      COMMAND ${CMAKE_COMMAND} -E make_directory ${RNNWB_MAN_DIR}
      COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen
              ${CMAKE_CURRENT_SOURCE_DIR}/make-man.sh ${RNNWB_HELP2MAN} $<TARGET_FILE:${program}>
              ${RNNWB_MAN_DIR}/${program}.1
      DEPENDS ${program} make-man.sh VERBATIM COMMENT "Writing the man page of ${program}")
    list(APPEND RNNWB_MANUAL_OUTPUTS ${RNNWB_MAN_DIR}/${program}.1)
    install(FILES ${RNNWB_MAN_DIR}/${program}.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
            COMPONENT runtime)
  endforeach()
else()
  message(WARNING "help2man not found: no man pages (scripts/install-deps.sh installs it)")
endif()
add_custom_target(rnnwb_manual ALL DEPENDS ${RNNWB_MANUAL_OUTPUTS})
