# mcpidl_soname(<name> <prefix> <soname-var> <deb-package-var>): the file name libmcpidl-http loads
# the library <name> by (it opens it with dlopen() when it first needs it, instead of linking it),
# and the Debian package that holds that file (empty when dpkg does not know it), for the
# package's dependencies: a dlopen() is invisible to dpkg-shlibdeps.
#
# The name is the SONAME of the library pkg_check_modules(<prefix> ...) found (the first file of
# <prefix>_LINK_LIBRARIES whose name holds <name>), read with objdump or readelf: the library of
# the headers libmcpidl-http is compiled against, the one the dynamic loader would have picked had
# it been linked. The cache variable MCPIDL_<NAME>_SONAME (MCPIDL_LIBCURL_SONAME, ...), when set,
# is taken as it is.
function(mcpidl_soname name prefix soname_var package_var)
  string(TOUPPER "${name}" upper)
  set(cache_var "MCPIDL_${upper}_SONAME")
  set(${cache_var} "" CACHE STRING
    "the file name libmcpidl-http loads ${name} by (empty: the SONAME of pkg-config's ${name})")
  set(soname "${${cache_var}}")
  string(REGEX REPLACE "^lib" "" stem "${name}")
  set(file "")
  foreach(lib IN LISTS ${prefix}_LINK_LIBRARIES)
    if(lib MATCHES "${stem}[^/]*$" AND EXISTS "${lib}")
      set(file "${lib}")
      break()
    endif()
  endforeach()
  if(NOT soname)
    if(NOT file)
      message(FATAL_ERROR "${name}: pkg-config names no library file (${${prefix}_LINK_LIBRARIES}); "
        "set ${cache_var} to the file name to load it by")
    endif()
    if(CMAKE_OBJDUMP)
      execute_process(COMMAND ${CMAKE_OBJDUMP} -p "${file}" OUTPUT_VARIABLE out ERROR_QUIET)
      if(out MATCHES "\n *SONAME +([^ \n]+)")
        set(soname "${CMAKE_MATCH_1}")
      endif()
    endif()
    if(NOT soname AND CMAKE_READELF)
      execute_process(COMMAND ${CMAKE_READELF} -d "${file}" OUTPUT_VARIABLE out ERROR_QUIET)
      if(out MATCHES "Library soname: \\[([^]]+)\\]")
        set(soname "${CMAKE_MATCH_1}")
      endif()
    endif()
    if(NOT soname)
      message(FATAL_ERROR "${name}: no SONAME read from ${file} (with objdump -p or readelf -d); "
        "set ${cache_var} to the file name to load it by")
    endif()
    message(STATUS "${name} is loaded when needed as ${soname} (the SONAME of ${file})")
  endif()
  set(package "")
  find_program(MCPIDL_DPKG_QUERY dpkg-query)
  mark_as_advanced(MCPIDL_DPKG_QUERY)
  if(MCPIDL_DPKG_QUERY AND file)
    get_filename_component(dir "${file}" DIRECTORY)
    execute_process(COMMAND ${MCPIDL_DPKG_QUERY} -S "${dir}/${soname}"
      OUTPUT_VARIABLE out ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0 AND out MATCHES "^([^:,]+)")
      set(package "${CMAKE_MATCH_1}")
    endif()
  endif()
  set(${soname_var} "${soname}" PARENT_SCOPE)
  set(${package_var} "${package}" PARENT_SCOPE)
endfunction()
