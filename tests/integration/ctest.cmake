# The engine's test driver: a small program over the engine API that the
# integration tests (test_engine*.sh) run to exercise it directly.
add_executable(engine_driver ${CMAKE_CURRENT_LIST_DIR}/engine_driver.c)
target_link_libraries(engine_driver PRIVATE netprof_core)
set_target_properties(engine_driver PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
# The node API's driver, for test_node_api*.sh.
add_executable(node_api_driver ${CMAKE_CURRENT_LIST_DIR}/node_api_driver.c)
target_link_libraries(node_api_driver PRIVATE netprof_core)
set_target_properties(node_api_driver PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
foreach(t ${INTEGRATION_TESTS})
  get_filename_component(name ${t} NAME_WE)
  if(name MATCHES "^test_(engine|exec)")
    set_property(TEST integration.${name} APPEND PROPERTY ENVIRONMENT
      "ENGINE_DRIVER=$<TARGET_FILE:engine_driver>")
  endif()
  if(name MATCHES "^test_node_api")
    set_property(TEST integration.${name} APPEND PROPERTY ENVIRONMENT
      "NODE_API_DRIVER=$<TARGET_FILE:node_api_driver>")
  endif()
endforeach()
