# The source rules a compiler does not check, run on every build:
#  names.exports   every symbol the library exports carries its file's
#                  prefix (nm), but for the allowlist beside it
#  names.schema    the record writers and readers take field names from
#                  record_schema.h, never as literals
#  names.architecture  docs/architecture.md's file list names every file
#                  under src/, and no file that is gone
#  names.length    no file under src/ is over 900 lines
#  names.hooks     collect's and bench's parts reach their run through its
#                  hooks, never by a call into collect_run.c or bench_run.c;
#                  nor the ssh transport's files into transport_ssh_ops.c,
#                  nor engine_hosts.c into engine.c, nor a lower file into
#                  the one above it (bench_counters.c, bench_throughput.c,
#                  the diagnosis's parts, heatmap_html_data.c,
#                  matrix_model.c)
add_test(NAME names.exports COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/exports.sh
  $<TARGET_FILE:netprof_core> ${CMAKE_CURRENT_LIST_DIR}/exports.allow)
add_test(NAME names.schema COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/schema.sh
  ${PROJECT_SOURCE_DIR}/src)
add_test(NAME names.architecture COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/architecture.sh
  ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/docs/architecture.md)
add_test(NAME names.length COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/length.sh
  ${PROJECT_SOURCE_DIR}/src 900)
add_test(NAME names.hooks COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/hooks.sh
  ${PROJECT_SOURCE_DIR}/src)
set_tests_properties(names.exports names.schema names.architecture names.length
  names.hooks
  PROPERTIES LABELS unit)
