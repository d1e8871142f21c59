# The pages Chorus writes, opened in headless Chromium (Debian `chromium`, the
# `browser` group of scripts/packages.txt, which scripts/test installs): the
# DOM after loading is checked against the text the same run prints.
add_test(NAME browser_explain_html COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/browser/test_explain_html.py
  $<TARGET_FILE:chorus_cli>)
set_tests_properties(browser_explain_html PROPERTIES LABELS "browser;integration;nosan" TIMEOUT 600 RUN_SERIAL TRUE
  SKIP_REGULAR_EXPRESSION "no chromium: install"
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies")
add_test(NAME browser_timeline_html COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/browser/test_timeline_html.py
  $<TARGET_FILE:chorus_cli>)
set_tests_properties(browser_timeline_html PROPERTIES LABELS "browser;integration;nosan" TIMEOUT 300 RUN_SERIAL TRUE
  SKIP_REGULAR_EXPRESSION "no chromium: install"
  ENVIRONMENT "CHORUS_ALGOS=${PROJECT_SOURCE_DIR}/algos;CHORUS_TOPOLOGIES=${PROJECT_SOURCE_DIR}/topologies")
