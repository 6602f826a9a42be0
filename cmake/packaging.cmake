# Debian packages of mcpidl, made by CPack from the install rules (cpack -G DEB in the build):
#
#   mcpidl          the compiler: bin/mcpidlc, its man page, the IDL's JSON Schema
#                   (install component "compiler")
#   libmcpidl-dev   what a server is built with: the headers, libmcpidl and libmcpidl-http
#                   (shared and static), libmcpidlc, the CMake package and the pkg-config files
#                   (components "runtime" and "development")
#
# libmcpidl-dev depends on mcpidl of the same version (its CMake package names mcpidlc, which
# mcpidl_generate() runs) and on the -dev packages of what a static link and pkg-config's
# Requires.private need, and on the libmicrohttpd, GnuTLS and libcurl that libmcpidl-http loads
# when it needs them (a dlopen(), which dpkg-shlibdeps does not see). mcpidl's own dependencies come from dpkg-shlibdeps.
set(CPACK_PACKAGE_NAME mcpidl)
set(CPACK_PACKAGE_VENDOR "mcpidl")
set(CPACK_PACKAGE_CONTACT "mcpidl maintainers <mcpidl@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "schema-first MCP (Model Context Protocol) servers in C")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL compiler runtime development)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENT_COMPILER_GROUP mcpidl)
set(CPACK_COMPONENT_RUNTIME_GROUP libmcpidl-dev)
set(CPACK_COMPONENT_DEVELOPMENT_GROUP libmcpidl-dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_MCPIDL_PACKAGE_NAME mcpidl)
set(CPACK_DEBIAN_MCPIDL_DESCRIPTION
  "compiler of mcpidl, schema-first MCP servers in C\n mcpidlc compiles a .mcp.yaml description of an MCP server's tools into the JSON\n Schemas its clients see and the C types, validators and server table its handlers use.")
set(CPACK_DEBIAN_LIBMCPIDL-DEV_PACKAGE_NAME libmcpidl-dev)
set(CPACK_DEBIAN_LIBMCPIDL-DEV_DESCRIPTION
  "runtime and development files of mcpidl, schema-first MCP servers in C\n libmcpidl serves the tools of an mcpidl server over stdio, libmcpidl-http over\n Streamable HTTP; headers, static and shared libraries, CMake and pkg-config files.")
set(_mcpidl_dev_depends "mcpidl (= ${PROJECT_VERSION}), libjson-c-dev, libpcre2-dev, nettle-dev")
if(TARGET mcpidl-http)
  # libmcpidl-http loads libmicrohttpd and GnuTLS with dlopen() when the HTTP transport starts,
  # libcurl when authorization fetches a URL, and hogweed when it reads a JWT key set:
  # dpkg-shlibdeps cannot see that, so the packages that hold the files it opens are named here
  # (lib/ found them). Their headers are not needed by what links libmcpidl-http, only to build it.
  foreach(lib LIBMICROHTTPD GNUTLS LIBCURL HOGWEED)
    if(MCPIDL_${lib}_DEB_PACKAGE)
      string(APPEND _mcpidl_dev_depends ", ${MCPIDL_${lib}_DEB_PACKAGE}")
    else()
      string(TOLOWER "${lib}" _lib)
      message(WARNING "dpkg knows no package holding the ${_lib} libmcpidl-http loads: "
        "the Debian package of libmcpidl-http will not depend on it")
    endif()
  endforeach()
endif()
set(CPACK_DEBIAN_LIBMCPIDL-DEV_PACKAGE_DEPENDS "${_mcpidl_dev_depends}")
include(CPack)
