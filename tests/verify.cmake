# Tests of plan/verify.c: the verifier and explain on plans built in C.
chorus_add_unit_test(test_verify SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_verify.c LIBS chorus_plan)
