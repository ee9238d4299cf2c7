# GshmemTesting.cmake - helpers to register tests: gshmem_add_pe_test runs one program under our oshrun at
# several PE counts (and, when libfabric is built in, again as ofi_<name> over the tcp provider, ofinet_<name>
# over the net provider and split_<name> in pretend nodes of two PEs; not with LOCAL_ONLY); exit code 77 counts as a
# skip (GPU or network missing). NET_ONLY: the network variants alone (for what only the network path does).
# VARIANTS p...: only the network variants with these prefixes (ofi ofinet split ofishm mrlocal).
function(gshmem_add_pe_test name exe)
  cmake_parse_arguments(A "LOCAL_ONLY;NET_ONLY" "TIMEOUT" "NPES;ENV;ARGS;LABELS;VARIANTS" ${ARGN})
  if(NOT A_NPES)
    set(A_NPES 2 3 4)
  endif()
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 120)
  endif()
  foreach(np ${A_NPES})
    if(NOT A_NET_ONLY)
      add_test(NAME ${name}_np${np} COMMAND $<TARGET_FILE:oshrun> -np ${np} $<TARGET_FILE:${exe}> ${A_ARGS})
      set_tests_properties(${name}_np${np} PROPERTIES TIMEOUT ${A_TIMEOUT} SKIP_RETURN_CODE 77
        PROCESSORS ${np} LABELS "functional;${A_LABELS}")
      if(A_ENV)
        set_tests_properties(${name}_np${np} PROPERTIES ENVIRONMENT "${A_ENV}")
      endif()
    endif()
    # The same test again with every PE its own "node": all traffic through libfabric on loopback, over the tcp
    # provider (ofi_*, up to 8 PEs: 16-PE runs take 2 minutes each over tcp on a 2-core machine) and over the net
    # provider (ofinet_*, up to 4 PEs; no fabric atomics there: gshmem's atomics travel as messages).
    # split_*: 3 and 4 PEs as pretend nodes of 2 (SHMEM_TEST_NODE_SIZE), the multi-node layout: shared memory
    # within a pair, libfabric between pairs, so teams and operations mix mapped and network peers. 3 PEs over tcp
    # (fabric atomics, taken to mapped peers too), 4 over net (atomics as messages; tcp if net is missing).
    set(split_prov tcp)
    if(GSHMEM_OFI_NET)
      set(split_prov net)
    endif()
    # ofishm_*: 2 and 3 PEs over libfabric's own shared-memory provider (shm), the one a single-node libfabric job gets.
    # mrlocal_*: 2 PEs over tcp (rxm: fabric atomics) and 3 over net (atomics as messages) with every local buffer
    # registered and checked, as providers that need it (FI_MR_LOCAL: verbs, efa) are served.
    foreach(variant "ofi;tcp;1;8;GSHMEM_OFI_FOUND;SHMEM_TRANSPORT=ofi"
                    "ofinet;net;1;4;GSHMEM_OFI_NET;SHMEM_TRANSPORT=ofi"
                    "split;tcp;3;3;GSHMEM_OFI_FOUND;SHMEM_TEST_NODE_SIZE=2"
                    "split;${split_prov};4;4;GSHMEM_OFI_FOUND;SHMEM_TEST_NODE_SIZE=2"
                    "ofishm;shm;2;3;GSHMEM_OFI_FOUND;SHMEM_TRANSPORT=ofi"
                    "mrlocal;tcp;2;2;GSHMEM_OFI_FOUND;SHMEM_TRANSPORT=ofi,SHMEM_OFI_MR_LOCAL=1"
                    "mrlocal;${split_prov};3;3;GSHMEM_OFI_FOUND;SHMEM_TRANSPORT=ofi,SHMEM_OFI_MR_LOCAL=1")
      list(GET variant 0 prefix)
      list(GET variant 1 prov)
      list(GET variant 2 minnp)
      list(GET variant 3 maxnp)
      list(GET variant 4 enabled)
      list(GET variant 5 layout)
      string(REPLACE "," ";" layout "${layout}")
      set(wanted 1)
      if(A_VARIANTS AND NOT prefix IN_LIST A_VARIANTS)
        set(wanted 0)
      endif()
      if(${enabled} AND wanted AND NOT A_LOCAL_ONLY AND np GREATER_EQUAL ${minnp} AND np LESS_EQUAL ${maxnp})
        set(domain SHMEM_OFI_DOMAIN=lo)
        if(prov STREQUAL "shm")
          set(domain) # (its one domain is named shm)
        endif()
        add_test(NAME ${prefix}_${name}_np${np} COMMAND $<TARGET_FILE:oshrun> -np ${np} $<TARGET_FILE:${exe}> ${A_ARGS})
        set_tests_properties(${prefix}_${name}_np${np} PROPERTIES TIMEOUT ${A_TIMEOUT} SKIP_RETURN_CODE 77
          PROCESSORS ${np} LABELS "${prefix};${A_LABELS}"
          ENVIRONMENT "${A_ENV};${layout};SHMEM_OFI_PROVIDER=${prov};${domain}")
      endif()
    endforeach()
  endforeach()
endfunction()

# gshmem_register_fakegpu(prefix env...): a vendor backend's stand-in driver (tests/fake*) is built; devheap re-runs
# then also run as <prefix>_devheap_<name> with env (which selects the backend, puts the fake first on
# LD_LIBRARY_PATH and lets the test program's own CPU loads reach GPU-heap objects).
function(gshmem_register_fakegpu p)
  set(GSHMEM_FAKE_GPUS ${GSHMEM_FAKE_GPUS} ${p} CACHE INTERNAL "stand-in GPU drivers the tests run on")
  list(REMOVE_DUPLICATES GSHMEM_FAKE_GPUS)
  set(GSHMEM_FAKE_GPUS ${GSHMEM_FAKE_GPUS} CACHE INTERNAL "stand-in GPU drivers the tests run on")
  set(GSHMEM_FAKE_GPU_ENV_${p} ${ARGN} CACHE INTERNAL "environment of the ${p} tests")
endfunction()

# gshmem_add_devheap_test(name exe): builds dh_<exe>, the program <exe> again with tests/common/devheap.h forced in
# (its symmetric heap objects then live in the GPU heap), and runs it as devheap_<name> on the emulated GPU with the
# CPU allowed to touch GPU memory (local at 2 and 4 PEs; at 3 PEs split into pretend nodes and over net, where GPU
# segments are staged by their owner), and as <prefix>_devheap_<name> on each registered stand-in driver
# (gshmem_register_fakegpu).
function(gshmem_add_devheap_test name exe)
  cmake_parse_arguments(A "" "TIMEOUT" "" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 120)
  endif()
  get_target_property(srcs ${exe} SOURCES)
  get_target_property(sdir ${exe} SOURCE_DIR)
  set(abs)
  foreach(f ${srcs})
    if(IS_ABSOLUTE ${f})
      list(APPEND abs ${f})
    else()
      list(APPEND abs ${sdir}/${f})
    endif()
  endforeach()
  add_executable(dh_${exe} ${abs})
  foreach(prop COMPILE_DEFINITIONS COMPILE_OPTIONS LINK_LIBRARIES CXX_STANDARD CXX_STANDARD_REQUIRED CXX_EXTENSIONS)
    get_target_property(v ${exe} ${prop})
    if(v)
      set_target_properties(dh_${exe} PROPERTIES ${prop} "${v}")
    endif()
  endforeach()
  target_compile_options(dh_${exe} PRIVATE -include ${PROJECT_SOURCE_DIR}/tests/common/devheap.h)
  set(heap SHMEM_SYMMETRIC_SIZE_DEVICE=64M)
  gshmem_add_pe_test(devheap_${name} dh_${exe} NPES 2 4 LOCAL_ONLY TIMEOUT ${A_TIMEOUT} LABELS devheap
    ENV SHMEM_GPU=emulate-visible ${heap})
  gshmem_add_pe_test(devheap_${name} dh_${exe} NPES 3 NET_ONLY VARIANTS split ofinet TIMEOUT ${A_TIMEOUT}
    LABELS devheap ENV SHMEM_GPU=emulate-visible ${heap})
  # each vendor backend on its stand-in driver (gshmem_register_fakegpu)
  # (under the sanitizers only the first, the CUDA backend's: the others run the same library paths through
  # another backend, whose own code the sanitizers see in its gpu_* tests; this keeps CI under its hour)
  foreach(p ${GSHMEM_FAKE_GPUS})
    set(fake ${GSHMEM_FAKE_GPU_ENV_${p}} ${heap})
    set(labels devheap)
    if(NOT p STREQUAL "cudafake")
      set(labels devheap nosan)
    endif()
    gshmem_add_pe_test(${p}_devheap_${name} dh_${exe} NPES 3 LOCAL_ONLY TIMEOUT ${A_TIMEOUT} LABELS ${labels}
      ENV ${fake})
    gshmem_add_pe_test(${p}_devheap_${name} dh_${exe} NPES 3 NET_ONLY VARIANTS split TIMEOUT ${A_TIMEOUT}
      LABELS ${labels} ENV ${fake})
  endforeach()
endfunction()

# gshmem_add_emu_program(name sources...): a CUDA or HIP program built for the CPU emulation of the GPU, as
# `oshcc --emulate-gpu` builds it: .cu and .hip files, and .cpp files that include <hip/hip_runtime.h>, rewritten by
# tools/gshmem-emu-cu, everything compiled as C++17 with gshmem/emu/cuda.hpp forced in, linked with libgshmem.
function(gshmem_add_emu_program name)
  set(srcs)
  set(quote_dirs)
  foreach(s ${ARGN})
    get_filename_component(abs ${s} ABSOLUTE)
    set(hip_cpp FALSE)
    if(s MATCHES "\\.(cpp|cc|cxx)$")
      file(STRINGS ${abs} hip_inc REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]hip/hip_runtime")
      if(hip_inc)
        set(hip_cpp TRUE)
      endif()
    endif()
    if(s MATCHES "\\.(cu|hip)$" OR hip_cpp)
      get_filename_component(base ${s} NAME)
      set(out ${CMAKE_CURRENT_BINARY_DIR}/${name}.emu/${base}.cpp)
      add_custom_command(OUTPUT ${out}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/${name}.emu
        COMMAND sh ${PROJECT_SOURCE_DIR}/tools/gshmem-emu-cu ${abs} ${out}
        DEPENDS ${abs} ${PROJECT_SOURCE_DIR}/tools/gshmem-emu-cu VERBATIM)
      list(APPEND srcs ${out})
      get_filename_component(dir ${abs} DIRECTORY)
      list(APPEND quote_dirs ${dir})
    else()
      list(APPEND srcs ${abs})
      set_source_files_properties(${abs} PROPERTIES LANGUAGE CXX)
    endif()
  endforeach()
  add_executable(${name} ${srcs})
  target_compile_features(${name} PRIVATE cxx_std_17)
  target_compile_options(${name} PRIVATE -include gshmem/emu/cuda.hpp)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/include/gshmem/emu/sys)
  target_link_libraries(${name} PRIVATE gshmem)
  foreach(d ${quote_dirs}) # "..." includes of a rewritten file are looked for beside the original
    target_compile_options(${name} PRIVATE -iquote ${d})
  endforeach()
endfunction()

# gshmem_find_mpi(): sets GSHMEM_MPI_USABLE (and MPI::MPI_C) where an MPI C compiler can build against mpi.h.
# Debian's openmpi-bin brings mpicc without mpi.h (that is libopenmpi-dev), and FindMPI then stops the whole configure
# on the missing include directory: ask the wrapper to compile a program first, and look for MPI only where that works.
macro(gshmem_find_mpi)
  if(NOT DEFINED GSHMEM_MPI_USABLE)
    set(GSHMEM_MPI_USABLE FALSE)
    find_program(GSHMEM_MPICC NAMES mpicc)
    if(GSHMEM_MPICC)
      set(_probe ${PROJECT_BINARY_DIR}/mpi_probe.c)
      file(WRITE ${_probe} "#include <mpi.h>\nint main(void) { return MPI_Init(0, 0); }\n")
      execute_process(COMMAND ${GSHMEM_MPICC} -fsyntax-only ${_probe} RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        find_package(MPI QUIET COMPONENTS C)
        if(MPI_C_FOUND)
          set(GSHMEM_MPI_USABLE TRUE)
        endif()
      else()
        message(STATUS "mpicc cannot compile against mpi.h (libopenmpi-dev missing?): MPI programs left out")
      endif()
    endif()
  elseif(GSHMEM_MPI_USABLE AND NOT TARGET MPI::MPI_C)
    find_package(MPI QUIET COMPONENTS C) # (imported targets are per directory)
  endif()
endmacro()
