# mcpidl_libcurl_soname(<soname-var> <deb-package-var>): the file name libmcpidl-http loads
# libcurl by (transport/fetch.c opens it with dlopen() on first use), and the Debian package that
# holds that file (empty when dpkg does not know it), for the package's dependencies: a dlopen()
# is invisible to dpkg-shlibdeps.
#
# The name is the SONAME of the library pkg_check_modules(CURL ...) found, read with objdump or
# readelf: the libcurl of the headers the library is compiled against, the one the dynamic
# loader would have picked had it been linked. The cache variable MCPIDL_LIBCURL_SONAME, when
# set, is taken as it is.
function(mcpidl_libcurl_soname soname_var package_var)
  set(MCPIDL_LIBCURL_SONAME "" CACHE STRING
    "the file name libmcpidl-http loads libcurl by (empty: the SONAME of pkg-config's libcurl)")
  set(soname "${MCPIDL_LIBCURL_SONAME}")
  set(file "")
  foreach(lib IN LISTS CURL_LINK_LIBRARIES)
    if(lib MATCHES "curl[^/]*$" AND EXISTS "${lib}")
      set(file "${lib}")
      break()
    endif()
  endforeach()
  if(NOT soname)
    if(NOT file)
      message(FATAL_ERROR "libcurl: pkg-config names no library file (${CURL_LINK_LIBRARIES}); "
        "set MCPIDL_LIBCURL_SONAME to the file name to load it by")
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
      message(FATAL_ERROR "libcurl: no SONAME read from ${file} (with objdump -p or readelf -d); "
        "set MCPIDL_LIBCURL_SONAME to the file name to load it by")
    endif()
    message(STATUS "libcurl is loaded on first use as ${soname} (the SONAME of ${file})")
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
