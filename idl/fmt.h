/* fmt.h: printf for the names and messages the front end and the compiler
 * build by the thousand (a C name "%s_%s", a message's "field '%s' of %s").
 *
 * The conversions they use, %s, %.*s, %c, %d, %u, %zu and %%, are written
 * here directly; a format with any other conversion or flag is handed to
 * vsnprintf. The result is the C library's, byte for byte: this is only
 * faster, by not interpreting what these formats do not have. */
#ifndef MCPIDL_IDL_FMT_H
#define MCPIDL_IDL_FMT_H

#include <stdarg.h>
#include <stddef.h>

#include "mcpidl/arena.h"

/* vsnprintf and snprintf. */
int idl_vsnprintf(char *dst, size_t size, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
int idl_snprintf(char *dst, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* mcp_arena_printf: the text in arena a, NULL without memory. */
char *idl_vfmt(mcp_arena *a, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
char *idl_fmt(mcp_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
