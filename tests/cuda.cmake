# Tests of the GPU engine. Always: the plan-to-kernel marshalling. With CUDA
# built: reduce.h compiled by nvcc as host code against the C build, the
# fatbinary's targets, the kernel's resource report (no GPU needed); and the
# GPU tests, which skip (77) with the reason where no GPU answers.
chorus_add_unit_test(test_cuda_args SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_cuda_args.c LIBS chorus_static)
target_include_directories(test_cuda_args PRIVATE ${PROJECT_SOURCE_DIR}/engine ${PROJECT_SOURCE_DIR}/plan
  ${PROJECT_SOURCE_DIR}/engine/kernels)
set_tests_properties(test_cuda_args PROPERTIES TIMEOUT 300)

# The kernel's device code run on the CPU (one host thread per block): needs
# only a C++ compiler, so it runs in every build.
enable_language(CXX)
chorus_add_unit_test(test_kern_emu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_kern_emu.c
  ${CMAKE_CURRENT_SOURCE_DIR}/unit/kern_emu.cc LIBS chorus_static Threads::Threads)
target_include_directories(test_kern_emu PRIVATE ${PROJECT_SOURCE_DIR}/engine ${PROJECT_SOURCE_DIR}/plan
  ${PROJECT_SOURCE_DIR}/engine/kernels)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/unit/kern_emu.cc PROPERTIES COMPILE_OPTIONS
  "-std=c++17;-Wall;-Wextra;-Wno-unknown-pragmas;$<$<BOOL:${CHORUS_WERROR}>:-Werror>")
set_tests_properties(test_kern_emu PROPERTIES TIMEOUT 600)
# Under the sanitizers 1 to 4 ranks (200 s of a 19-minute CI run at 8 ranks,
# 2026-12-03); the warnings build runs 1 to 8.
if(CHORUS_SANITIZE)
  set_tests_properties(test_kern_emu PROPERTIES ENVIRONMENT "CHORUS_TEST_EMU_RANKS=4")
endif()

if(CHORUS_HAVE_CUDA)
  chorus_add_unit_test(test_kernels_nvcc SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_kernels.c
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/reduce_nvcc.cu LIBS chorus_kernels m CUDA::cudart_static)
  target_compile_definitions(test_kernels_nvcc PRIVATE CHORUS_TEST_NVCC=1)
  target_include_directories(test_kernels_nvcc PRIVATE ${PROJECT_SOURCE_DIR}/engine/kernels)
  # Host code only; linked by the C driver so that sanitizer builds link too.
  set_target_properties(test_kernels_nvcc PROPERTIES LINKER_LANGUAGE C CUDA_RUNTIME_LIBRARY Static)
  target_compile_options(test_kernels_nvcc PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror,-fno-exceptions>)

  add_executable(test_cuda_fatbin ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_cuda_fatbin.c)
  target_link_libraries(test_cuda_fatbin PRIVATE chorus_testlib)
  add_test(NAME test_cuda_fatbin COMMAND test_cuda_fatbin $<TARGET_FILE:chorus>)
  set_tests_properties(test_cuda_fatbin PROPERTIES LABELS "unit;cuda")

  add_test(NAME cuda_kernel_resources COMMAND ${CMAKE_COMMAND} -DNVCC=${CMAKE_CUDA_COMPILER}
    -DSRC=${PROJECT_SOURCE_DIR}/engine/kernels/kern_cuda.cu
    "-DINCS=${PROJECT_SOURCE_DIR}/engine/kernels,${PROJECT_SOURCE_DIR}/core,${PROJECT_SOURCE_DIR}/include"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/lib/cuda_resources.cmake)
  set_tests_properties(cuda_kernel_resources PROPERTIES LABELS "unit;cuda;nosan" TIMEOUT 300)

  chorus_add_unit_test(test_cuda SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_cuda.c LIBS chorus_static
    CUDA::cudart_static LABELS gpu;integration)
  target_include_directories(test_cuda PRIVATE ${PROJECT_SOURCE_DIR}/engine ${PROJECT_SOURCE_DIR}/plan)
  set_tests_properties(test_cuda PROPERTIES TIMEOUT 600)
endif()

# chorus perf on a GPU: runs and checks where one answers, else says why (no
# device, or a build without CUDA) instead of crashing or hanging.
engine_cli_test(cli_perf_gpu_runs_or_says_why
  "Out of bounds values : 0 OK|no CUDA device: this machine has no NVIDIA driver|no CUDA device: .*\\(cuda[A-Za-z]*|0 devices\\)|built without CUDA"
  perf allreduce -g 0 -n 2 -b 8 -e 64K -f 8 -w 0 -i 1)
engine_cli_test(cli_perf_gpu_bad_device "-g: 'x' is not a CUDA device number" perf allreduce -g x)
