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
    # The same test again with every PE its own "node": all traffic through libfabric on loopback, over the tcp
    # provider (ofi_*, up to 8 PEs: 16-PE runs take 2 minutes each over tcp on a 2-core machine) and over the net
    # provider (ofinet_*, up to 4 PEs; no fabric atomics there: gshmem's atomics travel as messages).
    foreach(variant "ofi;tcp;8;GSHMEM_OFI_FOUND" "ofinet;net;4;GSHMEM_OFI_NET")
      list(GET variant 0 prefix)
      list(GET variant 1 prov)
      list(GET variant 2 maxnp)
      list(GET variant 3 enabled)
      if(${enabled} AND np LESS_EQUAL ${maxnp})
        add_test(NAME ${prefix}_${name}_np${np} COMMAND $<TARGET_FILE:oshrun> -np ${np} $<TARGET_FILE:${exe}> ${A_ARGS})
        set_tests_properties(${prefix}_${name}_np${np} PROPERTIES TIMEOUT ${A_TIMEOUT} SKIP_RETURN_CODE 77
          PROCESSORS ${np} LABELS "${prefix};${A_LABELS}"
          ENVIRONMENT "${A_ENV};SHMEM_TRANSPORT=ofi;SHMEM_OFI_PROVIDER=${prov};SHMEM_OFI_DOMAIN=lo")
      endif()
    endforeach()
  endforeach()
endfunction()
