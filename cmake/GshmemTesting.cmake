# GshmemTesting.cmake - helpers to register tests: gshmem_add_pe_test runs one program under our oshrun at
# several PE counts (and, when libfabric is built in, again as ofi_<name> over the tcp provider and ofinet_<name>
# over the net provider); exit code 77 counts as a skip (GPU or network missing).
function(gshmem_add_pe_test name exe)
  cmake_parse_arguments(A "" "TIMEOUT" "NPES;ENV;ARGS;LABELS" ${ARGN})
  if(NOT A_NPES)
    set(A_NPES 2 3 4)
  endif()
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 120)
  endif()
  foreach(np ${A_NPES})
    add_test(NAME ${name}_np${np} COMMAND $<TARGET_FILE:oshrun> -np ${np} $<TARGET_FILE:${exe}> ${A_ARGS})
    set_tests_properties(${name}_np${np} PROPERTIES TIMEOUT ${A_TIMEOUT} SKIP_RETURN_CODE 77
      PROCESSORS ${np} LABELS "functional;${A_LABELS}")
    if(A_ENV)
      set_tests_properties(${name}_np${np} PROPERTIES ENVIRONMENT "${A_ENV}")
    endif()
    # The same test again with every PE its own "node": all traffic through libfabric's tcp provider on loopback.
    # (16-PE runs are left out: 2 minutes each over tcp on a 2-core machine, and 8 PEs already cover the paths.)
    if(GSHMEM_OFI_FOUND AND np LESS_EQUAL 8)
      add_test(NAME ofi_${name}_np${np} COMMAND $<TARGET_FILE:oshrun> -np ${np} $<TARGET_FILE:${exe}> ${A_ARGS})
      set_tests_properties(ofi_${name}_np${np} PROPERTIES TIMEOUT ${A_TIMEOUT} SKIP_RETURN_CODE 77
        PROCESSORS ${np} LABELS "ofi;${A_LABELS}"
        ENVIRONMENT "${A_ENV};SHMEM_TRANSPORT=ofi;SHMEM_OFI_PROVIDER=tcp;SHMEM_OFI_DOMAIN=lo")
    endif()
    # And over the net provider (no fabric atomics: gshmem's atomics as messages), up to 4 PEs.
    if(GSHMEM_OFI_NET AND np LESS_EQUAL 4)
      add_test(NAME ofinet_${name}_np${np} COMMAND $<TARGET_FILE:oshrun> -np ${np} $<TARGET_FILE:${exe}> ${A_ARGS})
      set_tests_properties(ofinet_${name}_np${np} PROPERTIES TIMEOUT ${A_TIMEOUT} SKIP_RETURN_CODE 77
        PROCESSORS ${np} LABELS "ofinet;${A_LABELS}"
        ENVIRONMENT "${A_ENV};SHMEM_TRANSPORT=ofi;SHMEM_OFI_PROVIDER=net;SHMEM_OFI_DOMAIN=lo")
    endif()
  endforeach()
endfunction()
