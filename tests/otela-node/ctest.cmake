# node.otela: tests of the stand-in otela node (tests/otela-node), run with
# node's built-in test runner. Dependencies come from `npm ci` (install.sh);
# without node_modules the tests fail saying so.
add_test(NAME node.otela
  COMMAND node --test ${CMAKE_CURRENT_LIST_DIR}/test/
  WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
set_tests_properties(node.otela PROPERTIES LABELS node TIMEOUT 300)
