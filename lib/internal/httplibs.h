/* httplibs.h (internal): libmicrohttpd and GnuTLS, loaded when the HTTP
 * transport starts.
 *
 * libmcpidl-http does not link them: loading GnuTLS (libmicrohttpd's TLS)
 * and the libraries it brings costs a process some 2.5 MB of RSS and
 * milliseconds of start-up, and a server that serves stdio never uses
 * either. http_libs_load() opens libmicrohttpd with dlopen() when the
 * transport starts, and http_libs_load_tls() GnuTLS when it serves TLS;
 * until then neither is mapped.
 *
 * This header is what http.c and tls.c include instead of <microhttpd.h>:
 * after the libraries' own headers (for the types and the constants), it
 * maps each function they call to a pointer of a table the loader fills, so
 * that the call sites read as calls of the libraries' functions. Only after
 * a successful load may they be called.
 *
 * The files opened are the SONAMEs the build found (MCPIDL_LIBMICROHTTPD_SONAME,
 * MCPIDL_GNUTLS_SONAME); the environment variables MCPIDL_TEST_LIBMICROHTTPD
 * and MCPIDL_TEST_GNUTLS replace them, for the tests of a library that
 * cannot be loaded (docs/build.md).
 */
#ifndef MCPIDL_INTERNAL_HTTPLIBS_H
#define MCPIDL_INTERNAL_HTTPLIBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>

/* Load libmicrohttpd, once per process (thread-safe): true when it is
 * there, else false with why filled (a sentence naming the file tried, the
 * loader's reason and the package to install). Later calls give the same
 * verdict. */
bool http_libs_load(char *why, size_t why_len);
/* GnuTLS likewise, for TLS; after http_libs_load(). */
bool http_libs_load_tls(char *why, size_t why_len);

/* Every libmicrohttpd function called. __typeof__ keeps the types those of
 * microhttpd.h's declarations. */
typedef struct http_mhd_fns {
    __typeof__(MHD_start_daemon_va) *start_daemon_va;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_is_feature_supported) *is_feature_supported;
    __typeof__(MHD_get_connection_info) *get_connection_info;
    __typeof__(MHD_get_connection_values_n) *get_connection_values_n;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_suspend_connection) *suspend_connection;
    __typeof__(MHD_resume_connection) *resume_connection;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_create_response_from_callback) *create_response_from_callback;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
} http_mhd_fns;

/* Every GnuTLS function called; free is the value of GnuTLS's variable
 * gnutls_free (a function pointer), not its address. */
typedef struct http_gnutls_fns {
    __typeof__(gnutls_certificate_allocate_credentials) *certificate_allocate_credentials;
    __typeof__(gnutls_certificate_free_credentials) *certificate_free_credentials;
    __typeof__(gnutls_certificate_set_x509_key_file2) *certificate_set_x509_key_file2;
    __typeof__(gnutls_pcert_list_import_x509_file) *pcert_list_import_x509_file;
    __typeof__(gnutls_pcert_deinit) *pcert_deinit;
    __typeof__(gnutls_privkey_init) *privkey_init;
    __typeof__(gnutls_privkey_deinit) *privkey_deinit;
    __typeof__(gnutls_privkey_import_x509_raw) *privkey_import_x509_raw;
    __typeof__(gnutls_load_file) *load_file;
    __typeof__(gnutls_session_get_ptr) *session_get_ptr;
    __typeof__(gnutls_strerror) *strerror;
    gnutls_free_function free;
} http_gnutls_fns;

extern http_mhd_fns http_mhd;
extern http_gnutls_fns http_gnutls;

/* MHD_start_daemon is variadic: this one passes its options on to
 * MHD_start_daemon_va. */
struct MHD_Daemon *http_mhd_start_daemon(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls,
                                         MHD_AccessHandlerCallback dh, void *dh_cls, ...);

/* NOLINTBEGIN(bugprone-macro-parentheses): each name becomes its pointer */
#define MHD_start_daemon http_mhd_start_daemon
#define MHD_stop_daemon (*http_mhd.stop_daemon)
#define MHD_get_daemon_info (*http_mhd.get_daemon_info)
#define MHD_is_feature_supported (*http_mhd.is_feature_supported)
#define MHD_get_connection_info (*http_mhd.get_connection_info)
#define MHD_get_connection_values_n (*http_mhd.get_connection_values_n)
#define MHD_lookup_connection_value (*http_mhd.lookup_connection_value)
#define MHD_suspend_connection (*http_mhd.suspend_connection)
#define MHD_resume_connection (*http_mhd.resume_connection)
#define MHD_create_response_from_buffer (*http_mhd.create_response_from_buffer)
#define MHD_create_response_from_callback (*http_mhd.create_response_from_callback)
#define MHD_add_response_header (*http_mhd.add_response_header)
#define MHD_queue_response (*http_mhd.queue_response)
#define MHD_destroy_response (*http_mhd.destroy_response)

#define gnutls_certificate_allocate_credentials (*http_gnutls.certificate_allocate_credentials)
#define gnutls_certificate_free_credentials (*http_gnutls.certificate_free_credentials)
#define gnutls_certificate_set_x509_key_file2 (*http_gnutls.certificate_set_x509_key_file2)
#define gnutls_pcert_list_import_x509_file (*http_gnutls.pcert_list_import_x509_file)
#define gnutls_pcert_deinit (*http_gnutls.pcert_deinit)
#define gnutls_privkey_init (*http_gnutls.privkey_init)
#define gnutls_privkey_deinit (*http_gnutls.privkey_deinit)
#define gnutls_privkey_import_x509_raw (*http_gnutls.privkey_import_x509_raw)
#define gnutls_load_file (*http_gnutls.load_file)
#define gnutls_session_get_ptr (*http_gnutls.session_get_ptr)
#define gnutls_strerror (*http_gnutls.strerror)
/* gnutls.h's own macro, on the loaded pointer: frees a and sets it to NULL. */
#undef gnutls_free
#define gnutls_free(a) (http_gnutls.free((void *)(a)), (a) = NULL)
/* NOLINTEND(bugprone-macro-parentheses) */

#endif
