# GshmemGpu.cmake - the GPU transport layer. Its backends need no GPU library at build time (the CUDA driver and the
# HIP runtime are loaded at run time); with nvcc (hipcc) present, the device kernels the host runtime launches (atomics
# on GPU memory, the reduction step of collectives) are compiled from the one source src/gpu/cuda/kernels.cu to PTX and
# machine code (AMD code objects) and embedded. Without the compiler the library still builds and runs; those atomics
# then report an error and reductions on GPU memory are computed on the host.
set(GSHMEM_CUDA_PTX_ARCH "compute_75" CACHE STRING "Virtual architecture of the embedded PTX (JIT-compiled for the GPU)")
# Machine code for these GPUs is embedded too (a fatbin), so they load the kernels without the driver's JIT (which
# also needs a driver at least as new as nvcc); any other GPU JIT-compiles the PTX. Empty: PTX only.
set(GSHMEM_CUDA_SASS_ARCHS "80;90" CACHE STRING "GPU architectures (sm_XX) whose machine code is embedded")
find_program(GSHMEM_NVCC nvcc PATHS /usr/local/cuda/bin ENV CUDA_HOME PATH_SUFFIXES bin)

function(gshmem_gpu_setup target)
  gshmem_cuda_kernels(${target})
  gshmem_hip_kernels(${target})
endfunction()

function(gshmem_cuda_kernels target)
  if(NOT GSHMEM_NVCC)
    message(STATUS "gshmem: nvcc not found: no embedded CUDA kernels (atomics on CUDA GPU memory will be unavailable, reductions on it staged through the host)")
    return()
  endif()
  set(src ${PROJECT_SOURCE_DIR}/src/gpu/cuda/kernels.cu)
  set(ptx ${PROJECT_BINARY_DIR}/gen/kernels.ptx)
  set(hdr ${PROJECT_BINARY_DIR}/gen/kernels_ptx.h)
  add_custom_command(OUTPUT ${hdr}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/gen
    COMMAND ${GSHMEM_NVCC} -ptx -fmad=false -arch=${GSHMEM_CUDA_PTX_ARCH} ${src} -o ${ptx}
    COMMAND ${CMAKE_COMMAND} -DIN=${ptx} -DOUT=${hdr} -P ${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake
    DEPENDS ${src} ${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake
    COMMENT "nvcc: device kernels to PTX")
  set(defs GSHMEM_HAVE_CUDA_PTX=1)
  set(hdrs ${hdr})
  if(GSHMEM_CUDA_SASS_ARCHS)
    set(gencode)
    foreach(a ${GSHMEM_CUDA_SASS_ARCHS})
      list(APPEND gencode -gencode arch=compute_${a},code=sm_${a})
    endforeach()
    set(fatbin ${PROJECT_BINARY_DIR}/gen/kernels.fatbin)
    set(fhdr ${PROJECT_BINARY_DIR}/gen/kernels_fatbin.h)
    add_custom_command(OUTPUT ${fhdr}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/gen
      COMMAND ${GSHMEM_NVCC} -fatbin -fmad=false ${gencode} ${src} -o ${fatbin}
      COMMAND ${CMAKE_COMMAND} -DIN=${fatbin} -DOUT=${fhdr} -DNAME=gshmemi_kernels_fatbin
        -P ${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake
      DEPENDS ${src} ${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake
      COMMENT "nvcc: device kernels to machine code for sm ${GSHMEM_CUDA_SASS_ARCHS}")
    list(APPEND defs GSHMEM_HAVE_CUDA_FATBIN=1)
    list(APPEND hdrs ${fhdr})
  endif()
  add_custom_target(gshmem_ptx DEPENDS ${hdrs})
  add_dependencies(${target} gshmem_ptx)
  target_include_directories(${target} PRIVATE ${PROJECT_BINARY_DIR}/gen)
  set_source_files_properties(${PROJECT_SOURCE_DIR}/src/gpu/cuda/gtl_cuda.c PROPERTIES
    COMPILE_DEFINITIONS "${defs}" OBJECT_DEPENDS "${hdrs}")
  message(STATUS "gshmem: GPU kernels built with ${GSHMEM_NVCC} (${GSHMEM_CUDA_PTX_ARCH}; machine code for sm "
    "${GSHMEM_CUDA_SASS_ARCHS})")
endfunction()

# AMD: one code object per architecture, bundled (hipcc --genco), loaded with hipModuleLoadData, which takes the one
# for the GPU present. An architecture this hipcc cannot target (gfx942 needs LLVM 17, ROCm 6) is left out with a
# message: such GPUs then run without the kernels (the backend says so).
set(GSHMEM_HIP_ARCHS "gfx90a;gfx942" CACHE STRING "AMD GPU architectures whose kernels (code objects) are embedded")
option(GSHMEM_HIP_KERNELS "Embed the HIP backend's kernels when hipcc is found (OFF: build as if it were not)" ON)
if(GSHMEM_HIP_KERNELS)
  find_program(GSHMEM_HIPCC hipcc PATHS /opt/rocm/bin ENV ROCM_PATH PATH_SUFFIXES bin)
else()
  unset(GSHMEM_HIPCC CACHE)
endif()

function(gshmem_hip_kernels target)
  set(GSHMEM_HIP_EMBEDDED "" CACHE INTERNAL "AMD architectures whose kernels are embedded")
  if(NOT GSHMEM_HIPCC)
    message(STATUS "gshmem: hipcc not found (or GSHMEM_HIP_KERNELS=OFF): no embedded HIP kernels (atomics on AMD GPU memory will be unavailable, reductions on it staged through the host)")
    return()
  endif()
  set(probe ${PROJECT_BINARY_DIR}/gen/hip_probe.hip)
  file(WRITE ${probe} "extern \"C\" __attribute__((global)) void gshmemi_probe(int *p) { *p = 1; }\n")
  set(archs)
  foreach(a ${GSHMEM_HIP_ARCHS})
    if(NOT DEFINED GSHMEM_HIPCC_OK_${a})
      execute_process(COMMAND ${GSHMEM_HIPCC} --genco --offload-arch=${a} -x hip ${probe} -o ${probe}.${a}.co
        RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
      if(rc EQUAL 0)
        set(GSHMEM_HIPCC_OK_${a} 1 CACHE INTERNAL "hipcc targets ${a}")
      else()
        set(GSHMEM_HIPCC_OK_${a} 0 CACHE INTERNAL "hipcc targets ${a}")
      endif()
    endif()
    if(GSHMEM_HIPCC_OK_${a})
      list(APPEND archs ${a})
    else()
      message(STATUS "gshmem: ${GSHMEM_HIPCC} cannot target ${a}: no HIP kernels for it")
    endif()
  endforeach()
  if(NOT archs)
    return()
  endif()
  set(src ${PROJECT_SOURCE_DIR}/src/gpu/cuda/kernels.cu)
  set(co ${PROJECT_BINARY_DIR}/gen/kernels_hip.co)
  set(hdr ${PROJECT_BINARY_DIR}/gen/kernels_hip.h)
  set(offload)
  foreach(a ${archs})
    list(APPEND offload --offload-arch=${a})
  endforeach()
  # -ffp-contract=off: no fused multiply-adds, so float reductions match the host's bit for bit (nvcc's -fmad=false)
  add_custom_command(OUTPUT ${hdr}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/gen
    COMMAND ${GSHMEM_HIPCC} --genco -O3 -ffp-contract=off ${offload} -x hip ${src} -o ${co}
    COMMAND ${CMAKE_COMMAND} -DIN=${co} -DOUT=${hdr} -DNAME=gshmemi_kernels_hip
      -P ${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake
    DEPENDS ${src} ${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake
    COMMENT "hipcc: device kernels to code objects for ${archs}")
  add_custom_target(gshmem_hipco DEPENDS ${hdr})
  add_dependencies(${target} gshmem_hipco)
  target_include_directories(${target} PRIVATE ${PROJECT_BINARY_DIR}/gen)
  string(REPLACE ";" ", " alist "${archs}")
  set_source_files_properties(${PROJECT_SOURCE_DIR}/src/gpu/hip/gtl_hip.c PROPERTIES
    COMPILE_DEFINITIONS "GSHMEM_HAVE_HIP_KERNELS=1;GSHMEM_HIP_ARCHS_STR=\"${alist}\"" OBJECT_DEPENDS "${hdr}")
  set(GSHMEM_HIP_EMBEDDED "${archs}" CACHE INTERNAL "AMD architectures whose kernels are embedded")
  message(STATUS "gshmem: HIP kernels built with ${GSHMEM_HIPCC} for ${alist}")
endfunction()
