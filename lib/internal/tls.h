/* tls.h (internal): HTTPS for the HTTP transport, on libmicrohttpd's GnuTLS
 * support (docs/http.md, "TLS").
 *
 * The certificate chain and its key come from PEM files and are handed to
 * GnuTLS per handshake through libmicrohttpd's certificate callback, so
 * that http_tls_reload() (SIGHUP) can put new ones in place without
 * stopping the server: handshakes after the reload use them, connections
 * already up keep theirs. Only TLS 1.2 and 1.3 are offered
 * (HTTP_TLS_PRIORITIES).
 */
#ifndef MCPIDL_INTERNAL_TLS_H
#define MCPIDL_INTERNAL_TLS_H

#include <stdbool.h>
#include <stddef.h>

#include "internal/httplibs.h"

/* GnuTLS's NORMAL set without the protocol versions before TLS 1.2. */
#define HTTP_TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

typedef struct http_tls http_tls;

/* The chain of cert_file and the key of key_file, checked to belong
 * together: NULL with why when they cannot be used. The file names are
 * kept, not copied. */
http_tls *http_tls_new(const char *cert_file, const char *key_file, char *why, size_t why_len);
/* Read both files again: false, the credentials in place kept, with why. */
bool http_tls_reload(http_tls *t, char *why, size_t why_len);
/* After the daemon that used it has stopped. NULL is a no-op. */
void http_tls_free(http_tls *t);

/* For MHD_start_daemon: MHD_OPTION_NOTIFY_CONNECTION with http_tls_notify
 * and t, and MHD_OPTION_HTTPS_CERT_CALLBACK with &http_tls_retrieve (which
 * finds t through the connection). */
void http_tls_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                     enum MHD_ConnectionNotificationCode code);
gnutls_certificate_retrieve_function2 http_tls_retrieve;

#endif
