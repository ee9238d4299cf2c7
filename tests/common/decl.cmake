# decl.cmake - what the installed-to-be headers declare, for the test directories: a test that needs a routine
# <shmem.h> does not declare skips (or builds a stand-in) instead of breaking the build.
include(CheckCSourceCompiles)

# gshmem_test_has_decl(<var> <header> <symbol>): <var> is true when <header> (from this project's include
# directories) declares <symbol>; checked again at every configure.
function(gshmem_test_has_decl var header sym)
  set(CMAKE_REQUIRED_INCLUDES ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
  set(CMAKE_REQUIRED_QUIET ON)
  unset(${var} CACHE)
  check_c_source_compiles("#include <${header}>\nint main(void) { return (void (*)(void))&${sym} == 0; }" ${var})
  set(${var} ${${var}} PARENT_SCOPE)
endfunction()

# gshmem_test_features(<PREFIX> [ASSUME] <FEATURE:symbol>...): for each pair, <PREFIX>_HAVE_<FEATURE> is 1 when
# <shmem.h> declares the symbol, else 0 (always 1 with ASSUME: nothing is checked), <PREFIX>_SYM_<FEATURE> is the
# symbol; <PREFIX>_DEFS gets <PREFIX>_HAVE_<FEATURE>=0|1 appended for the compiler, <PREFIX>_MISSING each symbol
# not declared.
macro(gshmem_test_features prefix)
  cmake_parse_arguments(_gtf "ASSUME" "" "" ${ARGN})
  foreach(_gtf_pair ${_gtf_UNPARSED_ARGUMENTS})
    string(REPLACE ":" ";" _gtf_pair "${_gtf_pair}")
    list(GET _gtf_pair 0 _gtf_feat)
    list(GET _gtf_pair 1 _gtf_sym)
    set(${prefix}_HAVE_${_gtf_feat} 1)
    if(NOT _gtf_ASSUME)
      gshmem_test_has_decl(${prefix}_DECL_${_gtf_feat} shmem.h ${_gtf_sym})
      if(NOT ${prefix}_DECL_${_gtf_feat})
        set(${prefix}_HAVE_${_gtf_feat} 0)
        list(APPEND ${prefix}_MISSING ${_gtf_sym})
      endif()
    endif()
    set(${prefix}_SYM_${_gtf_feat} ${_gtf_sym})
    list(APPEND ${prefix}_DEFS ${prefix}_HAVE_${_gtf_feat}=${${prefix}_HAVE_${_gtf_feat}})
  endforeach()
endmacro()
