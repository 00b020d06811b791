# deps.build: netprof builds (tests off) with only the packages of
# `tests/install-deps.sh build` and what they depend on, in a clean directory
# (tests/deps/test_build_deps.sh), so a missing install step fails here and
# not on a user's fresh machine.
add_test(NAME deps.build COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_build_deps.sh)
set_tests_properties(deps.build PROPERTIES LABELS deps TIMEOUT 600
  ENVIRONMENT "${NETPROF_TEST_ENV}")
