# mcpidl_generate(TARGET tgt IDL file.mcp.yaml... [OUTPUT_DIR dir] [SCHEMA_DIR dir]
#                 [LIBRARY lib] [MOCK])
#
# Runs mcpidlc at build time on each IDL file, adds the generated NAME.mcp.c (and, with MOCK,
# NAME.mock.c) to the target, puts the output directory on its include path, and links the
# runtime. The files are generated again when an IDL file, a file it imports (imports:) or
# the compiler changes; IDL diagnostics fail the build with FILE:LINE:COLUMN messages (the
# IDL's absolute path). A file that imports others includes their headers: list the imported
# files in IDL too (in this call, or in one for a library the target links), so that their
# NAME.mcp.c is compiled once.
#
#   TARGET      the executable (or library) the generated sources belong to
#   IDL         one or more .mcp.yaml files, relative to the current source directory;
#               NAME is each file's name without .mcp.yaml
#   OUTPUT_DIR  where the C files go (default: mcpidl_<tgt> in the current binary directory)
#   SCHEMA_DIR  also write the JSON Schemas there (mcpidlc --emit=schema): NAME.tools.json and,
#               per tool, NAME.TOOL.input.schema.json and NAME.TOOL.output.schema.json
#   LIBRARY     the runtime target to link (default: mcpidl::mcpidl, the shared library;
#               mcpidl::mcpidl_static for the static one)
#   MOCK        generate NAME.mock.c too: canned-JSON handlers and a main() (a mock server)
#
# The same in the three ways of bringing mcpidl into a build: find_package(mcpidl CONFIG), where
# mcpidl::mcpidlc and mcpidl::mcpidl are imported targets, and add_subdirectory or FetchContent,
# where they are aliases of mcpidl's own targets mcpidlc and mcpidl.
function(mcpidl_generate)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "MOCK" "TARGET;OUTPUT_DIR;SCHEMA_DIR;LIBRARY" "IDL")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mcpidl_generate: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_TARGET OR NOT ARG_IDL)
    message(FATAL_ERROR "mcpidl_generate: TARGET and IDL are required")
  endif()
  if(NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "mcpidl_generate: '${ARG_TARGET}' is not a target")
  endif()

  # The compiler: a target of this build (through its alias), or an imported one.
  if(TARGET mcpidl::mcpidlc)
    set(compiler mcpidl::mcpidlc)
  elseif(TARGET mcpidlc)
    set(compiler mcpidlc)
  else()
    message(FATAL_ERROR "mcpidl_generate: no mcpidlc target: find_package(mcpidl CONFIG), "
                        "add_subdirectory or FetchContent mcpidl first")
  endif()
  get_target_property(aliased ${compiler} ALIASED_TARGET)
  if(aliased)
    set(compiler ${aliased})
  endif()
  get_target_property(imported ${compiler} IMPORTED)
  if(imported)
    # An installed compiler: run it by its path, and depend on that file.
    set(compiler_command "$<TARGET_FILE:${compiler}>")
    set(compiler_depends "$<TARGET_FILE:${compiler}>")
  else()
    # mcpidlc of this build: naming the target builds it first and reruns when it changes.
    set(compiler_command ${compiler})
    set(compiler_depends ${compiler})
  endif()

  if(NOT ARG_LIBRARY)
    if(TARGET mcpidl::mcpidl)
      set(ARG_LIBRARY mcpidl::mcpidl)
    else()
      set(ARG_LIBRARY mcpidl)
    endif()
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/mcpidl_${ARG_TARGET}")
  endif()
  get_filename_component(out "${ARG_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  if(ARG_SCHEMA_DIR)
    get_filename_component(schema_out "${ARG_SCHEMA_DIR}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  set(emit c)
  if(ARG_MOCK)
    set(emit c,mock)
  endif()

  set(stems "")
  foreach(file IN LISTS ARG_IDL)
    get_filename_component(idl "${file}" ABSOLUTE)
    get_filename_component(name "${idl}" NAME)
    string(REGEX REPLACE "\\.mcp\\.ya?ml$|\\.ya?ml$" "" stem "${name}")
    if(stem IN_LIST stems)
      message(FATAL_ERROR "mcpidl_generate: two IDL files named '${stem}' for ${ARG_TARGET}")
    endif()
    list(APPEND stems "${stem}")

    set(outputs "${out}/${stem}.mcp.h" "${out}/${stem}.mcp.c")
    set(sources "${out}/${stem}.mcp.h" "${out}/${stem}.mcp.c")
    if(ARG_MOCK)
      list(APPEND outputs "${out}/${stem}.mock.c")
      list(APPEND sources "${out}/${stem}.mock.c")
    endif()
    # mcpidlc names the files the IDL imports in a dependency file, so that editing one
    # regenerates the files of every IDL that imports it.
    set(depfile "${out}/${stem}.mcp.d")
    set(commands
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${out}"
      COMMAND ${compiler_command} --emit=${emit} -o "${out}" --depfile "${depfile}" "${idl}")
    if(ARG_SCHEMA_DIR)
      # The per-tool files are named after the tools, which only mcpidlc knows: NAME.tools.json
      # stands for them all.
      list(APPEND outputs "${schema_out}/${stem}.tools.json")
      list(APPEND sources "${schema_out}/${stem}.tools.json")
      list(APPEND commands
        COMMAND "${CMAKE_COMMAND}" -E make_directory "${schema_out}"
        COMMAND ${compiler_command} --emit=schema -o "${schema_out}" "${idl}")
    endif()
    cmake_policy(PUSH)
    if(POLICY CMP0116)
      cmake_policy(SET CMP0116 NEW) # the depfile's paths are absolute: the same either way
    endif()
    add_custom_command(
      OUTPUT ${outputs}
      ${commands}
      DEPENDS "${idl}" ${compiler_depends}
      DEPFILE "${depfile}"
      COMMENT "mcpidlc ${name}"
      VERBATIM)
    cmake_policy(POP)
    target_sources(${ARG_TARGET} PRIVATE ${sources})
  endforeach()

  target_include_directories(${ARG_TARGET} PRIVATE "${out}")
  target_link_libraries(${ARG_TARGET} PRIVATE ${ARG_LIBRARY})
endfunction()
