# The test drivers: small programs over the engine API (test_engine*.sh,
# test_tunnel.sh) and the node API (test_node_api*.sh) that the
# integration tests run to exercise them directly; driver.c is what the
# three share.
foreach(driver engine_driver tunnel_driver node_api_driver)
  add_executable(${driver} ${CMAKE_CURRENT_LIST_DIR}/${driver}.c
    ${CMAKE_CURRENT_LIST_DIR}/driver.c)
  target_include_directories(${driver} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(${driver} PRIVATE netprof_core)
  set_target_properties(${driver} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()
foreach(t ${INTEGRATION_TESTS})
  get_filename_component(name ${t} NAME_WE)
  if(name MATCHES "^test_(engine|exec)")
    set_property(TEST integration.${name} APPEND PROPERTY ENVIRONMENT
      "ENGINE_DRIVER=$<TARGET_FILE:engine_driver>")
  endif()
  if(name STREQUAL "test_tunnel")
    set_property(TEST integration.${name} APPEND PROPERTY ENVIRONMENT
      "TUNNEL_DRIVER=$<TARGET_FILE:tunnel_driver>")
  endif()
  if(name MATCHES "^test_node_api")
    set_property(TEST integration.${name} APPEND PROPERTY ENVIRONMENT
      "NODE_API_DRIVER=$<TARGET_FILE:node_api_driver>")
  endif()
endforeach()
