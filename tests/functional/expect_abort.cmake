# expect_abort.cmake - runs a misuse program under oshrun and passes only if the job ends with a non-zero exit
# (not a signal), within the timeout, and its output has a line matching EXPECT (routine and PE named).
# cmake -DOSHRUN=... -DPROG=<prog;args> -DNP=2 -DEXPECT=<regex> [-DENVS=A=B] [-DOK_TOO=1] [-DSKIP_IF=<regex>]
#   -P expect_abort.cmake
# OK_TOO: a job that exits 0 passes too (a condition that may or may not arise, which must never be a hang or a
# silent exit). SKIP_IF: a job that exits 0 with output matching this regex means the misuse is not one on this
# machine (a GPU is there); the script then prints "SKIP:" (the test's SKIP_REGULAR_EXPRESSION).
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
if("${rc}" STREQUAL "0" AND SKIP_IF AND "${all}" MATCHES "${SKIP_IF}")
  message("SKIP: the job ran: this machine has what the test expects to be missing ('${SKIP_IF}')")
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
