/* dynlib.h: a library the HTTP transport loads with dlopen() on first use
 * (libcurl for fetches, libmicrohttpd and GnuTLS for serving, hogweed for
 * JWT signatures), its functions looked up with dlsym() into a table of
 * pointers.
 */
#ifndef MCPIDL_INTERNAL_DYNLIB_H
#define MCPIDL_INTERNAL_DYNLIB_H

#include <stdbool.h>
#include <stddef.h>

/* A function of the library and where its pointer goes in the table. */
typedef struct dyn_symbol {
    const char *name;
    size_t offset;
} dyn_symbol;

typedef struct dyn_library {
    const char *what;    /* its name in messages: "libmicrohttpd" */
    const char *env;     /* the tests' replacement of its file name */
    const char *soname;  /* the build's file name */
    const char *install; /* what to do when it is missing: "install libmicrohttpd12" */
    const dyn_symbol *symbols;
    size_t nsymbols;
    void *table;
    /* After the functions are found, the library's own start, or NULL: false
     * with error filled when it fails (libcurl's global init, say). */
    bool (*ready)(struct dyn_library *l);
    void *handle; /* once open */
    int state;    /* dyn_load's verdict: 0 not asked yet, 1 loaded, -1 not */
    char error[512];
} dyn_library;

/* Open the library (the file the env variable names, else its soname) and
 * look up every function of its table: false, with l->error filled ("cannot
 * load WHAT, FILE (REASON): INSTALL" or "FILE is not a usable WHAT:
 * REASON"), when either fails. */
bool dyn_open(dyn_library *l);

/* The library loaded once per process (thread-safe): the first call opens
 * it (dyn_open, then l->ready), and every call gives that verdict: true, or
 * false with why filled with l->error. The library stays loaded for the rest
 * of the process: threads, and a library's own state, may outlive whatever
 * asked for it, and what dlclose() would give back is small. */
bool dyn_load(dyn_library *l, char *why, size_t why_len);

#endif
