# The Python package (python/chorus) and its real client (python/examples/ddp_train.py), run with
# the system's /usr/bin/python3 and Debian's python3-numpy and python3-torch (the `python` group of
# scripts/packages.txt, which scripts/test installs). CHORUS_LIBRARY points them at this build's
# libchorus. Not under the sanitizers: an ASan library cannot be loaded into an uninstrumented
# interpreter (label nosan).
set(CHORUS_PYTHON /usr/bin/python3)
foreach(t collectives errors ddp)
  add_test(NAME python_${t} COMMAND ${CHORUS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/python/test_${t}.py)
  set_tests_properties(python_${t} PROPERTIES LABELS "python;integration;nosan" TIMEOUT 300
    ENVIRONMENT "CHORUS_LIBRARY=$<TARGET_FILE:chorus>;CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies;CHORUS_HANG_DIR=${CHORUS_TEST_HANG_DIR}")
endforeach()
set_tests_properties(python_ddp PROPERTIES RUN_SERIAL TRUE)
