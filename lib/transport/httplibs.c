/* httplibs.c: libmicrohttpd and GnuTLS, loaded with dlopen() when the HTTP
 * transport starts (httplibs.h says why).
 *
 * Each library's functions are looked up with dlsym() into a table filled
 * once, by the first caller (dyn_load). The libraries stay loaded
 * for the rest of the process: a daemon's threads, and GnuTLS's state, may
 * outlive any one server, and what dlclose() would give back is small.
 * libmicrohttpd links GnuTLS itself, so that loading GnuTLS after it opens
 * no new file: it finds the library already mapped.
 */
#define _GNU_SOURCE
#include "internal/httplibs.h"

#include "internal/dynlib.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MCPIDL_LIBMICROHTTPD_SONAME
#error "MCPIDL_LIBMICROHTTPD_SONAME (the file name of libmicrohttpd to load) comes from the build"
#endif
#ifndef MCPIDL_GNUTLS_SONAME
#error "MCPIDL_GNUTLS_SONAME (the file name of GnuTLS to load) comes from the build"
#endif
#ifndef MCPIDL_LIBMICROHTTPD_INSTALL
#define MCPIDL_LIBMICROHTTPD_INSTALL "install it"
#endif
#ifndef MCPIDL_GNUTLS_INSTALL
#define MCPIDL_GNUTLS_INSTALL "install it"
#endif

http_mhd_fns http_mhd;
http_gnutls_fns http_gnutls;

static const dyn_symbol MHD_SYMBOLS[] = {
    {"MHD_start_daemon_va", offsetof(http_mhd_fns, start_daemon_va)},
    {"MHD_stop_daemon", offsetof(http_mhd_fns, stop_daemon)},
    {"MHD_get_daemon_info", offsetof(http_mhd_fns, get_daemon_info)},
    {"MHD_is_feature_supported", offsetof(http_mhd_fns, is_feature_supported)},
    {"MHD_get_connection_info", offsetof(http_mhd_fns, get_connection_info)},
    {"MHD_get_connection_values_n", offsetof(http_mhd_fns, get_connection_values_n)},
    {"MHD_lookup_connection_value", offsetof(http_mhd_fns, lookup_connection_value)},
    {"MHD_suspend_connection", offsetof(http_mhd_fns, suspend_connection)},
    {"MHD_resume_connection", offsetof(http_mhd_fns, resume_connection)},
    {"MHD_create_response_from_buffer", offsetof(http_mhd_fns, create_response_from_buffer)},
    {"MHD_create_response_from_callback", offsetof(http_mhd_fns, create_response_from_callback)},
    {"MHD_add_response_header", offsetof(http_mhd_fns, add_response_header)},
    {"MHD_queue_response", offsetof(http_mhd_fns, queue_response)},
    {"MHD_destroy_response", offsetof(http_mhd_fns, destroy_response)},
};

static const dyn_symbol GNUTLS_SYMBOLS[] = {
    {"gnutls_certificate_allocate_credentials", offsetof(http_gnutls_fns, certificate_allocate_credentials)},
    {"gnutls_certificate_free_credentials", offsetof(http_gnutls_fns, certificate_free_credentials)},
    {"gnutls_certificate_set_x509_key_file2", offsetof(http_gnutls_fns, certificate_set_x509_key_file2)},
    {"gnutls_pcert_list_import_x509_file", offsetof(http_gnutls_fns, pcert_list_import_x509_file)},
    {"gnutls_pcert_deinit", offsetof(http_gnutls_fns, pcert_deinit)},
    {"gnutls_privkey_init", offsetof(http_gnutls_fns, privkey_init)},
    {"gnutls_privkey_deinit", offsetof(http_gnutls_fns, privkey_deinit)},
    {"gnutls_privkey_import_x509_raw", offsetof(http_gnutls_fns, privkey_import_x509_raw)},
    {"gnutls_load_file", offsetof(http_gnutls_fns, load_file)},
    {"gnutls_session_get_ptr", offsetof(http_gnutls_fns, session_get_ptr)},
    {"gnutls_strerror", offsetof(http_gnutls_fns, strerror)},
};

/* gnutls_free is a variable holding the function: its value. */
static bool gnutls_ready(dyn_library *l)
{
    gnutls_free_function *fp = dlsym(l->handle, "gnutls_free");
    if (!fp || !*fp) {
        snprintf(l->error, sizeof l->error, "the GnuTLS loaded has no gnutls_free");
        return false;
    }
    http_gnutls.free = *fp;
    return true;
}

static dyn_library mhd_lib = {.what = "libmicrohttpd",
                              .env = "MCPIDL_TEST_LIBMICROHTTPD",
                              .soname = MCPIDL_LIBMICROHTTPD_SONAME,
                              .install = MCPIDL_LIBMICROHTTPD_INSTALL,
                              .symbols = MHD_SYMBOLS,
                              .nsymbols = sizeof MHD_SYMBOLS / sizeof MHD_SYMBOLS[0],
                              .table = &http_mhd};
static dyn_library gnutls_lib = {.what = "GnuTLS",
                                 .env = "MCPIDL_TEST_GNUTLS",
                                 .soname = MCPIDL_GNUTLS_SONAME,
                                 .install = MCPIDL_GNUTLS_INSTALL,
                                 .symbols = GNUTLS_SYMBOLS,
                                 .nsymbols = sizeof GNUTLS_SYMBOLS / sizeof GNUTLS_SYMBOLS[0],
                                 .table = &http_gnutls,
                                 .ready = gnutls_ready};
bool http_libs_load(char *why, size_t why_len) { return dyn_load(&mhd_lib, why, why_len); }

bool http_libs_load_tls(char *why, size_t why_len) { return dyn_load(&gnutls_lib, why, why_len); }

struct MHD_Daemon *http_mhd_start_daemon(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls,
                                         MHD_AccessHandlerCallback dh, void *dh_cls, ...)
{
    va_list ap;
    va_start(ap, dh_cls);
    struct MHD_Daemon *d = http_mhd.start_daemon_va(flags, port, apc, apc_cls, dh, dh_cls, ap);
    va_end(ap);
    return d;
}
