# GshmemGpu.cmake - the GPU transport layer. Its backends need no GPU library at build time (the CUDA driver is
# loaded at run time); with nvcc present, the device kernels the host runtime launches (atomics on GPU memory, the
# reduction step of collectives) are compiled to PTX and machine code and embedded. Without nvcc the library still builds and runs;
# those atomics then report an error and reductions on GPU memory are computed on the host.
set(GSHMEM_CUDA_PTX_ARCH "compute_75" CACHE STRING "Virtual architecture of the embedded PTX (JIT-compiled for the GPU)")
# Machine code for these GPUs is embedded too (a fatbin), so they load the kernels without the driver's JIT (which
# also needs a driver at least as new as nvcc); any other GPU JIT-compiles the PTX. Empty: PTX only.
set(GSHMEM_CUDA_SASS_ARCHS "80;90" CACHE STRING "GPU architectures (sm_XX) whose machine code is embedded")
find_program(GSHMEM_NVCC nvcc PATHS /usr/local/cuda/bin ENV CUDA_HOME PATH_SUFFIXES bin)

function(gshmem_gpu_setup target)
  if(NOT GSHMEM_NVCC)
    message(STATUS "gshmem: nvcc not found: no embedded GPU kernels (atomics on GPU memory will be unavailable, reductions on GPU memory staged through the host)")
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
