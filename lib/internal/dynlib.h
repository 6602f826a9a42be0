/* dynlib.h: a library the HTTP transport loads with dlopen() on first use
 * (libcurl for fetches, libmicrohttpd and GnuTLS for serving), its
 * functions looked up with dlsym() into a table of pointers.
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
    void *handle; /* once open */
    char error[512];
} dyn_library;

/* Open the library (the file the env variable names, else its soname) and
 * look up every function of its table: false, with l->error filled ("cannot
 * load WHAT, FILE (REASON): INSTALL" or "FILE is not a usable WHAT:
 * REASON"), when either fails. */
bool dyn_open(dyn_library *l);

#endif
