# GshmemOmp.cmake - OpenMP (offload) for the examples, tests and workloads of docs/omp.md: the library itself never
# needs it. GSHMEM_OMP_FLAGS: -fopenmp, plus -foffload=nvptx-none where GCC's offload compiler (Debian's
# gcc-offload-nvptx) builds and links a target region; GSHMEM_OMP_OFFLOAD says which.
option(GSHMEM_OMP "build the OpenMP offload examples, tests and workloads (when the compiler has OpenMP)" ON)
set(GSHMEM_OMP_OFFLOAD_FLAGS "-foffload=nvptx-none;-foffload-options=nvptx-none=-misa=sm_80" CACHE STRING
    "flags that turn on OpenMP offload (GCC nvptx; sm_80 PTX: CUDA 12's ptxas no longer takes GCC 12's default sm_35)")
set(GSHMEM_OMP_FOUND OFF)
set(GSHMEM_OMP_OFFLOAD OFF)
if(GSHMEM_OMP)
  find_package(OpenMP COMPONENTS C QUIET)
endif()
if(GSHMEM_OMP AND OpenMP_C_FOUND)
  set(GSHMEM_OMP_FOUND ON)
  set(GSHMEM_OMP_FLAGS ${OpenMP_C_FLAGS})
  separate_arguments(GSHMEM_OMP_FLAGS)
  if(GSHMEM_SANITIZE)
    # the sanitizers' runtime calls have no nvptx implementation (the offload link fails on __ubsan_* symbols); GCC
    # with an offload compiler installed offloads by default, so say host only
    set(GSHMEM_OMP_OFFLOAD_OK OFF CACHE INTERNAL "GCC nvptx offload links")
    if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
      list(APPEND GSHMEM_OMP_FLAGS -foffload=disable)
    endif()
  elseif(NOT DEFINED GSHMEM_OMP_OFFLOAD_OK)
    # a real link: mkoffload and the accelerator compiler only run there
    set(dir ${CMAKE_BINARY_DIR}/CMakeFiles/omp_offload_check)
    file(WRITE ${dir}/t.c "int main(void) { int x = 0;\n#pragma omp target map(tofrom: x)\n x = 1;\n return !x; }\n")
    try_compile(ok ${dir} ${dir}/t.c COMPILE_DEFINITIONS ${GSHMEM_OMP_FLAGS} ${GSHMEM_OMP_OFFLOAD_FLAGS}
      LINK_OPTIONS ${GSHMEM_OMP_FLAGS} ${GSHMEM_OMP_OFFLOAD_FLAGS} OUTPUT_VARIABLE out)
    set(GSHMEM_OMP_OFFLOAD_OK ${ok} CACHE INTERNAL "GCC nvptx offload links")
  endif()
  if(GSHMEM_OMP_OFFLOAD_OK)
    set(GSHMEM_OMP_OFFLOAD ON)
    list(APPEND GSHMEM_OMP_FLAGS ${GSHMEM_OMP_OFFLOAD_FLAGS})
    message(STATUS "gshmem: OpenMP offload examples built with ${GSHMEM_OMP_FLAGS}")
  else()
    message(STATUS "gshmem: OpenMP examples built for the host only (${GSHMEM_OMP_FLAGS}: no nvptx offload compiler; "
                   "Debian's gcc-offload-nvptx adds it)")
  endif()
endif()

# gshmem_omp_program(target sources...): an OpenMP (offload) program against gshmem
function(gshmem_omp_program name)
  add_executable(${name} ${ARGN})
  target_compile_options(${name} PRIVATE ${GSHMEM_OMP_FLAGS})
  # GCC 12's offload table is relocated at load time: no PIE, or ld warns of text relocations
  target_link_options(${name} PRIVATE ${GSHMEM_OMP_FLAGS} $<$<BOOL:${GSHMEM_OMP_OFFLOAD}>:-no-pie>)
  if(GSHMEM_OMP_OFFLOAD)
    target_compile_options(${name} PRIVATE -fno-pie)
  endif()
  target_link_libraries(${name} PRIVATE gshmem)
endfunction()
