# plot_test.cmake - the ctests of bench/plot.py on a tiny JSON fixture (shmem-perf at 2 and 3 PEs, two app runs):
# bench_plot_smoke (each PNG it should draw, labels without repeated units), bench_plot_default_out (without --out
# nothing lands in the tracked bench/results/plots), bench_plot_quick_{flag,dir,perf} (a --quick run's PNGs say they
# are not a measurement). The checks are bench/plot_test.sh's. Skipped (77) where the Python has no matplotlib.
# Included from bench/CMakeLists.txt; -DGSHMEM_PLOT_PYTHON=/path/to/venv/bin/python picks a Python with matplotlib.

if(NOT GSHMEM_BUILD_TESTS)
  return()
endif()
if(NOT GSHMEM_PLOT_PYTHON)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_FOUND)
    set(GSHMEM_PLOT_PYTHON ${Python3_EXECUTABLE})
  endif()
endif()
if(NOT GSHMEM_PLOT_PYTHON)
  return()
endif()

# the fixture: written at configure time so the test depends on nothing but plot.py
set(_pf ${CMAKE_CURRENT_BINARY_DIR}/plot-fixture)
# _plot_row(list test size unit value npes api impl): one shmem-perf point (median = min = max = value)
macro(_plot_row list test size unit value npes api impl)
  list(APPEND ${list} "{\"test\": \"${test}\", \"size\": ${size}, \"unit\": \"${unit}\", \"median\": ${value}, \
\"min\": ${value}, \"max\": ${value}, \"reps\": 1, \"iters\": 10, \"npes\": ${npes}, \"api\": \"${api}\", \
\"mem\": \"H-H\", \"impl\": \"${impl}\"}")
endmacro()
foreach(impl "gshmem 0.1.0" "http://www.open-mpi.org/")
  if(impl MATCHES "gshmem")
    set(f 1)
    set(id gshmem)
  else()
    set(f 2)
    set(id oshmem)
  endif()
  set(rows "")
  foreach(size 8 64 4096)
    math(EXPR lat "${f} * (100 + ${size} / 64)")
    math(EXPR bw "${size} / (100 * ${f})")
    foreach(t put_lat get_lat)
      _plot_row(rows ${t} ${size} us ${lat}e-2 2 p2p "${impl}")
    endforeach()
    _plot_row(rows memcpy_lat ${size} us 0.01 2 p2p "${impl}")
    _plot_row(rows put_bw ${size} GB/s ${bw}.5 2 p2p "${impl}")
    _plot_row(rows memcpy_bw ${size} GB/s 50 2 p2p "${impl}")
  endforeach()
  foreach(np 2 3)
    math(EXPR t "${f} * ${np}")
    _plot_row(rows barrier 0 us ${t} ${np} team "${impl}")
    _plot_row(rows bcast 8 us ${t} ${np} team "${impl}")
  endforeach()
  string(JOIN ",\n " rows ${rows})
  file(WRITE ${_pf}/perf-${id}.json "[${rows}]\n")
endforeach()
set(_t "\"time\": {\"median\": 0.5, \"min\": 0.4, \"max\": 0.6, \"unit\": \"s\"}")
set(_g "\"GUP/s\": {\"median\": 0.002, \"min\": 0.001, \"max\": 0.003, \"unit\": \"GUP/s\"}")
set(_a "\"time_4096\": {\"median\": 10, \"min\": 9, \"max\": 11, \"unit\": \"us\"}, \
\"busbw_4096\": {\"median\": 0.4, \"min\": 0.3, \"max\": 0.5, \"unit\": \"GB/s\"}, \
\"busbw_65536\": {\"median\": 1.6, \"min\": 1.5, \"max\": 1.7, \"unit\": \"GB/s\"}")
foreach(impl gshmem oshmem)
  set(_head "\"impl\": \"${impl}\", \"npes\": 2, \"verify\": \"passed\", \"params\": {\"reps\": \"1\"}")
  file(WRITE ${_pf}/app-gups-${impl}.json "{\"app\": \"gups\", \"variant\": \"classic\", ${_head}, \
\"metrics\": {${_t}, ${_g}}}\n")
  file(WRITE ${_pf}/app-allreduce-${impl}.json "{\"app\": \"allreduce\", \"variant\": \"ring\", ${_head}, \
\"metrics\": {${_a}}}\n")
endforeach()
# not ours to plot (compare.sh's summary.json has this shape): must be ignored, not fatal
file(WRITE ${_pf}/summary.json "[{\"target\": \"x\", \"result\": \"PASS\"}]\n")

# (scripts/py-env.sh's venv, where it has been made, is tried before the Python found here)
foreach(_mode smoke default-out quick-flag quick-dir)
  string(REPLACE "-" "_" _name ${_mode})
  add_test(NAME bench_plot_${_name} COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/plot_test.sh ${_mode} ${GSHMEM_PLOT_PYTHON}
    ${CMAKE_CURRENT_LIST_DIR}/plot.py ${CMAKE_CURRENT_BINARY_DIR}/plot-test-${_mode} ${_pf}
    ${PROJECT_BINARY_DIR}/pyenv/bin/python)
  set_tests_properties(bench_plot_${_name} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS bench)
endforeach()
# shmem-perf --quick's own JSON, plotted: the mark comes from the data, not from a flag
if(TARGET shmem-perf)
  add_test(NAME bench_plot_quick_perf COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/plot_test.sh quick-perf ${GSHMEM_PLOT_PYTHON}
    ${CMAKE_CURRENT_LIST_DIR}/plot.py ${CMAKE_CURRENT_BINARY_DIR}/plot-test-quick-perf ${_pf}
    ${PROJECT_BINARY_DIR}/pyenv/bin/python $<TARGET_FILE:oshrun> $<TARGET_FILE:shmem-perf>)
  set_tests_properties(bench_plot_quick_perf PROPERTIES TIMEOUT 120 PROCESSORS 2 SKIP_RETURN_CODE 77 LABELS bench)
endif()
