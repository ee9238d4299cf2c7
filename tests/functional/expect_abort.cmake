# expect_abort.cmake - runs a misuse program under oshrun and passes only if the job ends with a non-zero exit
# (not a signal), within the timeout, and its output has a line matching EXPECT (routine and PE named).
# cmake -DOSHRUN=... -DPROG=<prog;args> -DNP=2 -DEXPECT=<regex> [-DENVS=A=B] [-DOK_TOO=1] -P expect_abort.cmake
# OK_TOO: a job that exits 0 passes too (a condition that may or may not arise, which must never be a hang or a
# silent exit).
if(ENVS)
  foreach(kv ${ENVS})
    string(REGEX MATCH "^[^=]+" k "${kv}")
    string(REGEX REPLACE "^[^=]+=" "" v "${kv}")
    set(ENV{${k}} "${v}")
  endforeach()
endif()
execute_process(COMMAND ${OSHRUN} -np ${NP} ${PROG} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
  TIMEOUT 30)
set(all "${out}${err}")
message("---- output (exit: ${rc}) ----\n${all}----")
if("${rc}" STREQUAL "0" AND OK_TOO)
  return()
endif()
if("${rc}" STREQUAL "0")
  message(FATAL_ERROR "the misuse was not reported: the job exited 0")
endif()
if(NOT "${rc}" MATCHES "^[0-9]+$")
  message(FATAL_ERROR "the job did not end with an exit code: '${rc}' (signal or timeout)")
endif()
if(NOT "${all}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "no line of output matches '${EXPECT}'")
endif()
if("${all}" MATCHES "Segmentation fault|SIGSEGV|SIGBUS|signal 11|core dumped")
  message(FATAL_ERROR "the misuse crashed a PE instead of being reported")
endif()
