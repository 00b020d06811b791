# browser.heatmap: headless Chromium (Debian's chromium) driven by
# playwright-core over the page `netprof heatmap` writes from the fixtures.
# Skips (77) when chromium or node_modules are missing; tests/browser/install.sh
# installs both. Screenshots land in <build>/tests/browser/.
find_program(NETPROF_NODE node)
if(NETPROF_NODE)
  add_test(NAME browser.heatmap
    COMMAND ${NETPROF_NODE} ${CMAKE_CURRENT_LIST_DIR}/heatmap.test.mjs)
  set_tests_properties(browser.heatmap PROPERTIES LABELS browser
    SKIP_RETURN_CODE 77 TIMEOUT 180
    ENVIRONMENT "${NETPROF_TEST_ENV};NETPROF_BROWSER_OUT=${CMAKE_CURRENT_BINARY_DIR}/browser")
  add_test(NAME browser.heatmap_wan
    COMMAND ${NETPROF_NODE} ${CMAKE_CURRENT_LIST_DIR}/wan.test.mjs)
  set_tests_properties(browser.heatmap_wan PROPERTIES LABELS browser
    SKIP_RETURN_CODE 77 TIMEOUT 180
    ENVIRONMENT "${NETPROF_TEST_ENV};NETPROF_BROWSER_OUT=${CMAKE_CURRENT_BINARY_DIR}/browser")
  # The colours against the site pairs' typical values: a healthy WAN
  # green, a slowed link and a relayed pair red, the raw scale a click away.
  add_test(NAME browser.heatmap_colours
    COMMAND ${NETPROF_NODE} ${CMAKE_CURRENT_LIST_DIR}/colours.test.mjs)
  set_tests_properties(browser.heatmap_colours PROPERTIES LABELS browser
    SKIP_RETURN_CODE 77 TIMEOUT 180
    ENVIRONMENT "${NETPROF_TEST_ENV};NETPROF_BROWSER_OUT=${CMAKE_CURRENT_BINARY_DIR}/browser")
  # 1,000 hosts: 999,000 records written, read and drawn.
  add_test(NAME browser.heatmap_scale
    COMMAND ${NETPROF_NODE} ${CMAKE_CURRENT_LIST_DIR}/scale.test.mjs)
  set_tests_properties(browser.heatmap_scale PROPERTIES LABELS browser
    SKIP_RETURN_CODE 77 TIMEOUT 300
    ENVIRONMENT "${NETPROF_TEST_ENV};NETPROF_BROWSER_OUT=${CMAKE_CURRENT_BINARY_DIR}/browser")
endif()
