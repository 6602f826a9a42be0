/* init.h: mcpidlc --init, a starter project. */
#ifndef MCPIDLC_INIT_H
#define MCPIDLC_INIT_H

#include <stdio.h>

/* Write NAME/NAME.mcp.yaml, NAME/NAME.c and NAME/CMakeLists.txt (a CMake
 * project that finds mcpidl VERSION's major.minor); say so on `out`. Returns
 * the exit status: 0, 1 when the folder is in the way or a file cannot be
 * written, 2 for a NAME that cannot be one. */
int mcpidlc_init(const char *name, const char *version, FILE *out, FILE *err);

#endif
