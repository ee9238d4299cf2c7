# GshmemPmix.cmake - the PMIx bootstrap (src/bootstrap/pmix.c) for mpirun, prterun and srun --mpi=pmix.
# Only pmix.h is needed to build: libgshmem does not link libpmix but loads it when a PMIx launcher started the PE.
# GSHMEM_WITH_PMIX: AUTO (use PMIx when found), ON (fail without it), OFF. Sets GSHMEM_HAVE_PMIX and provides
# gshmem_pmix_setup(<target>) for the targets that compile pmix.c.
set(GSHMEM_WITH_PMIX AUTO CACHE STRING "PMIx bootstrap for mpirun/prterun/srun --mpi=pmix: AUTO, ON or OFF")
set_property(CACHE GSHMEM_WITH_PMIX PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${GSHMEM_WITH_PMIX}" _gshmem_with_pmix)
if(NOT _gshmem_with_pmix MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "GSHMEM_WITH_PMIX='${GSHMEM_WITH_PMIX}': expected AUTO, ON or OFF")
endif()

set(GSHMEM_HAVE_PMIX OFF)
if(NOT _gshmem_with_pmix STREQUAL "OFF")
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(GSHMEM_PC_PMIX QUIET pmix)
  endif()
  # Debian keeps PMIx under /usr/lib/<arch>/pmix2, outside the default search paths
  find_path(GSHMEM_PMIX_INCLUDE_DIR pmix.h HINTS ${GSHMEM_PC_PMIX_INCLUDE_DIRS}
    PATH_SUFFIXES pmix2/include ${CMAKE_LIBRARY_ARCHITECTURE}/pmix2/include)
  find_library(GSHMEM_PMIX_LIBRARY NAMES pmix HINTS ${GSHMEM_PC_PMIX_LIBRARY_DIRS}
    PATH_SUFFIXES pmix2/lib ${CMAKE_LIBRARY_ARCHITECTURE}/pmix2/lib)
  if(GSHMEM_PMIX_INCLUDE_DIR)
    set(GSHMEM_HAVE_PMIX ON)
    set(GSHMEM_PMIX_LIBDIR "")
    if(GSHMEM_PMIX_LIBRARY)
      get_filename_component(GSHMEM_PMIX_LIBDIR "${GSHMEM_PMIX_LIBRARY}" DIRECTORY)
    endif()
    message(STATUS "PMIx bootstrap: yes (${GSHMEM_PMIX_INCLUDE_DIR}/pmix.h; libpmix.so.2 is loaded at run time, "
      "from the loader's path or else ${GSHMEM_PMIX_LIBDIR})")
  elseif(_gshmem_with_pmix STREQUAL "ON")
    message(FATAL_ERROR "GSHMEM_WITH_PMIX=ON but pmix.h was not found (Debian: apt-get install libpmix-dev; "
      "elsewhere set CMAKE_PREFIX_PATH to PMIx's prefix)")
  else()
    message(STATUS "PMIx bootstrap: no (pmix.h not found; install libpmix-dev for mpirun/srun support)")
  endif()
else()
  message(STATUS "PMIx bootstrap: no (GSHMEM_WITH_PMIX=OFF)")
endif()

function(gshmem_pmix_setup target)
  if(GSHMEM_HAVE_PMIX)
    target_include_directories(${target} PRIVATE ${GSHMEM_PMIX_INCLUDE_DIR})
    target_compile_definitions(${target} PRIVATE GSHMEM_HAVE_PMIX=1 "GSHMEM_PMIX_LIBDIR=\"${GSHMEM_PMIX_LIBDIR}\"")
    target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
  endif()
endfunction()
