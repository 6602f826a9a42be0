# mcpidl_generate(TARGET tgt IDL file.mcp.yaml [OUTPUT_DIR dir] [MOCK])
#
# Runs mcpidlc at build time on the IDL, adds the generated NAME.mcp.c (and,
# with MOCK, NAME.mock.c) to the target, puts the output directory on its
# include path, and links the runtime. The sources are regenerated when the
# IDL or the compiler changes; IDL diagnostics fail the build with
# file:line:col messages.
function(mcpidl_generate)
  cmake_parse_arguments(ARG "MOCK" "TARGET;IDL;OUTPUT_DIR" "" ${ARGN})
  if(NOT ARG_TARGET OR NOT ARG_IDL)
    message(FATAL_ERROR "mcpidl_generate: TARGET and IDL are required")
  endif()
  get_filename_component(idl "${ARG_IDL}" ABSOLUTE)
  get_filename_component(name "${idl}" NAME)
  string(REGEX REPLACE "\\.mcp\\.ya?ml$|\\.ya?ml$" "" stem "${name}")
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/mcpidl_${ARG_TARGET}")
  endif()
  set(outputs "${ARG_OUTPUT_DIR}/${stem}.mcp.h" "${ARG_OUTPUT_DIR}/${stem}.mcp.c")
  set(emit c)
  if(ARG_MOCK)
    list(APPEND outputs "${ARG_OUTPUT_DIR}/${stem}.mock.c")
    set(emit c,mock)
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND mcpidlc --emit=${emit} -o "${ARG_OUTPUT_DIR}" "${idl}"
    DEPENDS "${idl}" mcpidlc
    COMMENT "mcpidlc ${name}"
    VERBATIM)
  target_sources(${ARG_TARGET} PRIVATE "${ARG_OUTPUT_DIR}/${stem}.mcp.c")
  if(ARG_MOCK)
    target_sources(${ARG_TARGET} PRIVATE "${ARG_OUTPUT_DIR}/${stem}.mock.c")
  endif()
  target_include_directories(${ARG_TARGET} PRIVATE "${ARG_OUTPUT_DIR}")
  target_link_libraries(${ARG_TARGET} PRIVATE mcpidl)
endfunction()
