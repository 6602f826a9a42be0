# Compiler flags of a fuzzing build (MCPIDL_FUZZ), included by the top-level CMakeLists.txt
# before the libraries are defined: every library is compiled with libFuzzer's coverage
# instrumentation and the sanitizers, so that the fuzz targets of tests/fuzz see inside them.
# The fuzz targets add -fsanitize=fuzzer when they link (libFuzzer's main).
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR
    "MCPIDL_FUZZ needs clang (libFuzzer), not ${CMAKE_C_COMPILER_ID}: configure a new build "
    "directory with -DCMAKE_C_COMPILER=clang (scripts/fuzz.sh does)")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                    -fno-omit-frame-pointer -gline-tables-only)
# Plain programs of this build (mcpidlc, which generates code at build time) link the
# sanitizer runtimes, which also define the coverage callbacks.
add_link_options(-fsanitize=address,undefined)
