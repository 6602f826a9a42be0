/* diag.h: diagnostics with locations, GCC style.
 *
 * A front-end pass never stops at its first problem: it adds a diagnostic and
 * goes on. The driver prints them all at the end:
 *
 *     weather.mcp.yaml:12:21: error: unknown type 'WeatherDta'; did you mean 'WeatherData'?
 *        12 |     returns: WeatherDta
 *           |              ^
 */
#ifndef MCPIDL_IDL_DIAG_H
#define MCPIDL_IDL_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mcpidl/arena.h"

/* On a function whose result says whether it failed, or is what it made:
 * ignoring it is a compile-time warning (an error with -Werror). */
#if defined(__GNUC__)
#define IDL_NODISCARD __attribute__((warn_unused_result))
#else
#define IDL_NODISCARD
#endif

/* A place in the source: 1-based line and column, the column counted in
 * characters (UTF-8 code points), as libyaml counts them. {0,0}: no place.
 * `file` is the file it lies in: 0 the file compiled, others the files it
 * imports (idl_diags_add_file). */
typedef struct idl_loc {
    uint32_t line;
    uint32_t col;
    uint32_t file;
} idl_loc;

typedef enum idl_severity { IDL_NOTE, IDL_WARNING, IDL_ERROR } idl_severity;

typedef struct idl_diag {
    idl_severity severity;
    idl_loc loc;
    char *message;
} idl_diag;

/* A file diagnostics may point into, besides the one compiled. */
typedef struct idl_file {
    const char *path;
    const char *src;
    size_t src_len;
} idl_file;

typedef struct idl_diags {
    mcp_arena *arena;
    const char *path; /* the file name as given on the command line */
    const char *src;  /* the whole source text (may contain NULs), for caret lines */
    size_t src_len;
    idl_file *files; /* file i (i >= 1) of idl_loc.file is files[i - 1] */
    size_t nfiles, cap_files;
    idl_diag *items;
    size_t len, cap;
    size_t errors, warnings;
    size_t max_items; /* stop recording after this many (the count goes on) */
    bool truncated;
} idl_diags;

void idl_diags_init(idl_diags *d, mcp_arena *arena, const char *path, const char *src, size_t src_len);

/* Add a file (its path as diagnostics name it, and its text, which must live
 * as long as d): its number for idl_loc.file, or 0 without memory. */
IDL_NODISCARD uint32_t idl_diags_add_file(idl_diags *d, const char *path, const char *src, size_t src_len);
/* The path and text of file number `file` (the compiled one for 0 or an unknown number). */
const char *idl_diags_file(const idl_diags *d, uint32_t file, const char **src, size_t *src_len);

void idl_diag_add(idl_diags *d, idl_severity sev, idl_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void idl_diag_vadd(idl_diags *d, idl_severity sev, idl_loc loc, const char *fmt, va_list ap);

#define idl_error(d, loc, ...) idl_diag_add((d), IDL_ERROR, (loc), __VA_ARGS__)
#define idl_warning(d, loc, ...) idl_diag_add((d), IDL_WARNING, (loc), __VA_ARGS__)
#define idl_note(d, loc, ...) idl_diag_add((d), IDL_NOTE, (loc), __VA_ARGS__)

/* A diagnostic and its text: "path:line:col: severity: message\n" (or
 * "path: severity: message\n" without a place), then, when asked for, the
 * source line and a caret under the column. */
typedef void (*idl_diag_fn)(void *ctx, const idl_diag *g, const char *text, size_t len);

/* Sort by location (stable), then hand each to fn with its text; when more
 * were added than recorded, a last note without a place says so. False when
 * out of memory (the rest are not handed). */
IDL_NODISCARD bool idl_diags_render(idl_diags *d, bool show_source, idl_diag_fn fn, void *ctx);
/* idl_diags_render, each text written to `out`. */
IDL_NODISCARD bool idl_diags_print(idl_diags *d, FILE *out, bool show_source);

/* Column (1-based, in characters) of byte offset `off` within the line that starts at
 * byte offset `line_start` of src. */
uint32_t idl_char_col(const char *src, size_t line_start, size_t off);
/* Location of byte offset `off` in src. */
idl_loc idl_loc_of_offset(const char *src, size_t len, size_t off);

#endif
