# Tests of engine/kernels: reduce.h's arithmetic and conversions, and every
# instruction set's kernels against an independent reference.
chorus_add_unit_test(test_kernels SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_kernels.c LIBS chorus_kernels m)
