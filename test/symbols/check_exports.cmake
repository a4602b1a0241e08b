# What each library exports is exactly what its version script lists: every
# name of the script's global list is defined and exported (a misspelled or
# missing entry point fails here; GNU ld drops such names without a word),
# and nothing else is (the library's internals stay inside, as the
# drop-in promise needs: a preloaded libridge must not take over any other
# symbol of the program). Patterns (ridge_*) must match at least one export.
#
# -D variables: NM, LIBS (list), MAPS (list, the version script of each library, same order).
foreach(var NM LIBS MAPS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_exports.cmake: -D${var}=... is required")
  endif()
endforeach()

list(LENGTH LIBS lib_count)
list(LENGTH MAPS map_count)
if(NOT lib_count EQUAL map_count)
  message(FATAL_ERROR "check_exports.cmake: ${lib_count} libraries but ${map_count} version scripts")
endif()

# Sets out to TRUE when one of `names` is `entry`, or matches it if it is a pattern (ridge_*).
function(any_name_matches entry names out)
  string(REPLACE "*" ".*" pattern "^${entry}$")
  foreach(name ${names})
    if(name MATCHES "${pattern}")
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} FALSE PARENT_SCOPE)
endfunction()

set(failures "")
math(EXPR last "${lib_count} - 1")
foreach(i RANGE ${last})
  list(GET LIBS ${i} lib)
  list(GET MAPS ${i} map)

  # The script's global names: the lines between "global:" and "local:", comments dropped.
  file(READ "${map}" text)
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")
  string(REGEX MATCH "global:(.*)local:" globals "${text}")
  if(NOT globals)
    message(FATAL_ERROR "${map}: no global: ... local: section")
  endif()
  string(REGEX REPLACE "^global:|local:$" "" globals "${CMAKE_MATCH_1}")
  string(REGEX MATCHALL "[A-Za-z0-9_*]+" listed "${globals}")
  string(REGEX MATCH "([A-Za-z0-9_]+)[ \t\n]*{" node "${text}")
  set(version_node "${CMAKE_MATCH_1}")

  execute_process(COMMAND ${NM} -D --defined-only "${lib}" OUTPUT_VARIABLE nm_out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} -D --defined-only ${lib} failed (${rc})")
  endif()
  string(REPLACE "\n" ";" nm_lines "${nm_out}")
  set(exported "")
  foreach(line ${nm_lines})
    # "<address> <type> <name>[@@<version>]"; the version node itself is an absolute symbol.
    if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] ([^@ ]+)")
      set(name "${CMAKE_MATCH_1}")
      if(NOT name STREQUAL version_node)
        list(APPEND exported "${name}")
      endif()
    endif()
  endforeach()

  foreach(entry ${listed})
    any_name_matches("${entry}" "${exported}" found)
    if(NOT found)
      string(APPEND failures "${lib}: nothing exported is ${entry}, which ${map} lists (not defined?)\n")
    endif()
  endforeach()
  foreach(name ${exported})
    set(allowed FALSE)
    foreach(entry ${listed})
      any_name_matches("${entry}" "${name}" allowed)
      if(allowed)
        break()
      endif()
    endforeach()
    if(NOT allowed)
      string(APPEND failures "${lib}: exports ${name}, which ${map} does not list\n")
    endif()
  endforeach()
  list(LENGTH exported exported_count)
  message(STATUS "${lib}: ${exported_count} exports checked against ${map}")
endforeach()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
