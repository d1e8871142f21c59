# cmake -DNVCC=... -DSRC=kern_cuda.cu -DINCS=a,b -P cuda_resources.cmake
# Compiles the CUDA kernel for sm_80 and sm_90 with ptxas's resource report
# and fails unless every kernel of both has 0 bytes of spill stores and
# loads and 0 bytes of stack frame; prints the report.
string(REPLACE "," ";" INCS "${INCS}")
foreach(arch 80 90)
  set(incs)
  foreach(i ${INCS})
    list(APPEND incs -I${i})
  endforeach()
  execute_process(COMMAND ${NVCC} -std=c++17 -cubin -gencode=arch=compute_${arch},code=sm_${arch} -Xptxas=-v
    ${incs} -o /dev/null ${SRC} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("sm_${arch}:\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nvcc failed for sm_${arch}")
  endif()
  string(REGEX MATCHALL "[0-9]+ bytes stack frame, [0-9]+ bytes spill stores, [0-9]+ bytes spill loads" lines "${err}")
  list(LENGTH lines n)
  if(n LESS 2)
    message(FATAL_ERROR "sm_${arch}: expected a resource line per kernel (2), found ${n}")
  endif()
  foreach(l ${lines})
    if(NOT l STREQUAL "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads")
      message(FATAL_ERROR "sm_${arch}: a kernel spills or uses a stack frame: ${l}")
    endif()
  endforeach()
endforeach()
message("every kernel: 0 spill bytes, 0 stack")
