# node.otela: tests of the stand-in otela node (tests/otela-node), run with
# node's built-in test runner. Dependencies come from `npm ci` (install.sh);
# without node_modules the tests fail saying so. Their files go to
# NETPROF_TEST_TMP and are removed at the end; NETPROF_TEST_OTELA (a real
# otela binary, from the caller's environment) adds the checks that the
# real node reads the stand-in's files and the other way round.
add_test(NAME node.otela
  COMMAND node --test ${CMAKE_CURRENT_LIST_DIR}/test/
  WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
set_tests_properties(node.otela PROPERTIES LABELS node TIMEOUT 300
  ENVIRONMENT "${NETPROF_TEST_ENV}")
