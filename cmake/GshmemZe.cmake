# GshmemZe.cmake - the Level Zero backend's kernels (src/gpu/ze/kernels.cl) built to SPIR-V and embedded, where a
# clang that targets spir64 and an llvm-spirv of the same LLVM version exist (Debian: clang-14 and llvm-spirv-14).
# Without them the library still builds; the backend then says so, reduces on the host and fails atomics on GPU memory.
option(GSHMEM_ZE_KERNELS "Build the Level Zero kernels to SPIR-V when a compiler for it is found (OFF: as without one)" ON)
set(GSHMEM_ZE_SPIRV_CLANG "" CACHE FILEPATH "clang used to compile the Level Zero kernels (empty: search)")
set(GSHMEM_ZE_LLVM_SPIRV "" CACHE FILEPATH "llvm-spirv of the same LLVM version as GSHMEM_ZE_SPIRV_CLANG")
if(NOT GSHMEM_ZE_SPIRV_CLANG OR NOT GSHMEM_ZE_LLVM_SPIRV)
  # the LLVM bitcode must be read by the same major version's translator: search them in pairs
  foreach(v 19 18 17 16 15 14)
    find_program(_ze_tr_${v} llvm-spirv-${v} PATHS /usr/lib/llvm-${v}/bin)
    find_program(_ze_cc_${v} clang-${v} PATHS /usr/lib/llvm-${v}/bin)
    if(_ze_tr_${v} AND _ze_cc_${v})
      set(GSHMEM_ZE_SPIRV_CLANG ${_ze_cc_${v}} CACHE FILEPATH "" FORCE)
      set(GSHMEM_ZE_LLVM_SPIRV ${_ze_tr_${v}} CACHE FILEPATH "" FORCE)
      break()
    endif()
  endforeach()
endif()

function(gshmem_ze_setup target)
  set(GSHMEM_ZE_HAVE_KERNELS OFF CACHE INTERNAL "the Level Zero kernels are embedded")
  if(NOT GSHMEM_ZE_KERNELS OR NOT GSHMEM_ZE_SPIRV_CLANG OR NOT GSHMEM_ZE_LLVM_SPIRV)
    if(GSHMEM_ZE_KERNELS)
      set(why "no clang + llvm-spirv pair (Debian: llvm-spirv-14)")
    else()
      set(why "GSHMEM_ZE_KERNELS=OFF")
    endif()
    message(STATUS "gshmem: ${why}: no Level Zero kernels (atomics on Intel GPU memory will be unavailable, "
      "reductions on it computed on the host)")
    return()
  endif()
  set(src ${PROJECT_SOURCE_DIR}/src/gpu/ze/kernels.cl)
  set(gen ${PROJECT_BINARY_DIR}/gen)
  set(hdrs)
  foreach(part base fp64)
    set(def)
    set(name gshmemi_ze_spirv)
    if(part STREQUAL fp64)
      set(def -DGSHMEM_ZE_FP64)
      set(name gshmemi_ze_spirv_fp64)
    endif()
    add_custom_command(OUTPUT ${gen}/ze_${part}_spv.h
      COMMAND ${CMAKE_COMMAND} -E make_directory ${gen}
      COMMAND ${GSHMEM_ZE_SPIRV_CLANG} -c -target spir64 -cl-std=CL2.0 -Xclang -finclude-default-header -O2 -Werror
        -emit-llvm ${def} ${src} -o ${gen}/ze_${part}.bc
      COMMAND ${GSHMEM_ZE_LLVM_SPIRV} ${gen}/ze_${part}.bc -o ${gen}/ze_${part}.spv
      COMMAND ${CMAKE_COMMAND} -DIN=${gen}/ze_${part}.spv -DOUT=${gen}/ze_${part}_spv.h -DNAME=${name}
        -P ${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake
      DEPENDS ${src} ${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake
      COMMENT "clang + llvm-spirv: Level Zero kernels (${part}) to SPIR-V")
    list(APPEND hdrs ${gen}/ze_${part}_spv.h)
  endforeach()
  add_custom_target(gshmem_ze_spirv DEPENDS ${hdrs})
  set(GSHMEM_ZE_HAVE_KERNELS ON CACHE INTERNAL "the Level Zero kernels are embedded")
  add_dependencies(${target} gshmem_ze_spirv)
  target_include_directories(${target} PRIVATE ${gen})
  set_source_files_properties(${PROJECT_SOURCE_DIR}/src/gpu/ze/gtl_ze.c PROPERTIES
    COMPILE_DEFINITIONS GSHMEM_HAVE_ZE_SPIRV=1 OBJECT_DEPENDS "${hdrs}")
  message(STATUS "gshmem: Level Zero kernels built to SPIR-V with ${GSHMEM_ZE_SPIRV_CLANG} and ${GSHMEM_ZE_LLVM_SPIRV}")
endfunction()
