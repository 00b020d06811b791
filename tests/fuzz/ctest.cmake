# Fuzzing the parsers of outside input (docs/fuzzing.md).
#  fuzz.<target>  replays the target's corpus (tests/fuzz/corpus/<target>,
#                 crash regressions included) and its seed fixtures through
#                 tests/fuzz/replay.c: seconds, in every build (the ASan+UBSan
#                 one too).
#  fuzz_<target>  with -DNETPROF_FUZZ=ON and clang: the libFuzzer binary
#                 (-fsanitize=fuzzer,address,undefined) that
#                 tests/fuzz/run.sh runs for a time budget.
# A new target is one fuzz_<name>.c here and one line in NETPROF_FUZZ_SEEDS.
set(FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
set(FUZZ_FIX ${CMAKE_CURRENT_SOURCE_DIR}/fixtures)
# target|seed directories (comma-separated) besides its own corpus
set(NETPROF_FUZZ_SEEDS
  "inventory|${FUZZ_FIX}/inventory,${PROJECT_SOURCE_DIR}/examples"
  "ping|${FUZZ_FIX}/ping"
  "iperf|${FUZZ_FIX}/iperf3"
  "json_pos|${FUZZ_FIX}/inventory,${FUZZ_FIX}/iperf3"
  "template|"
  "heatmap|${FUZZ_FIX}/heatmap"
  "node|${FUZZ_FIX}/node")

if(NETPROF_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "-DNETPROF_FUZZ=ON needs clang (CC=clang): libFuzzer is clang's")
  endif()
  # The code under test instrumented for coverage, apart from netprof_core:
  # the parsers and what they call, not the commands and transports.
  set(FUZZ_SOURCES ${NETPROF_SOURCES})
  list(FILTER FUZZ_SOURCES EXCLUDE REGEX
    "/(cmd.*|engine|transport_.*|runner|plan|progress|schedule|probe|record)\\.c$")
  add_library(netprof_fuzzcore STATIC ${FUZZ_SOURCES})
  target_include_directories(netprof_fuzzcore PUBLIC ${NETPROF_INCLUDE_DIRS})
  target_compile_options(netprof_fuzzcore PUBLIC
    -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
    -fno-omit-frame-pointer)
  target_link_libraries(netprof_fuzzcore PUBLIC PkgConfig::LIBSSH
    PkgConfig::LIBUV PkgConfig::CJSON PkgConfig::LIBCURL m)
endif()

foreach(entry ${NETPROF_FUZZ_SEEDS})
  string(REPLACE "|" ";" parts "${entry}")
  string(REPLACE "," ";" parts "${parts}")
  list(GET parts 0 name)
  list(SUBLIST parts 1 -1 seeds)
  set(corpus ${FUZZ_DIR}/corpus/${name})
  add_executable(replay_${name} ${FUZZ_DIR}/replay.c ${FUZZ_DIR}/fuzz_${name}.c)
  target_link_libraries(replay_${name} PRIVATE netprof_core)
  set_target_properties(replay_${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
  add_test(NAME fuzz.${name} COMMAND replay_${name} ${corpus} ${seeds})
  set_tests_properties(fuzz.${name} PROPERTIES LABELS fuzz TIMEOUT 120
    ENVIRONMENT "${NETPROF_TEST_ENV}")
  if(NETPROF_FUZZ)
    add_executable(fuzz_${name} ${FUZZ_DIR}/fuzz_${name}.c)
    target_link_libraries(fuzz_${name} PRIVATE netprof_fuzzcore)
    target_link_options(fuzz_${name} PRIVATE
      -fsanitize=fuzzer,address,undefined)
    set_target_properties(fuzz_${name} PROPERTIES
      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
  endif()
endforeach()
