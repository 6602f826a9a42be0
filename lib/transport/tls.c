/* tls.c: the certificate and key of an HTTPS server, reloadable (tls.h).
 *
 * GnuTLS asks for the credentials at each handshake (the certificate
 * callback); the callback gets the GnuTLS session, whose pointer
 * libmicrohttpd sets to the connection, whose socket context the
 * connection-notify callback set to the http_tls. Each load is a
 * generation; the newest serves new handshakes. Older generations stay
 * until the server stops, since a handshake may be using one while a
 * reload happens (a reload costs the few kilobytes of a certificate).
 */
#define _GNU_SOURCE
#include "internal/tls.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHAIN 16

typedef struct tls_gen {
    struct tls_gen *older;
    gnutls_pcert_st chain[MAX_CHAIN];
    unsigned nchain;
    gnutls_privkey_t key;
} tls_gen;

struct http_tls {
    const char *cert_file, *key_file;
    pthread_mutex_t mu;
    tls_gen *cur; /* the newest; ->older the others */
};

static void gen_free(tls_gen *g)
{
    for (unsigned i = 0; i < g->nchain; i++)
        gnutls_pcert_deinit(&g->chain[i]);
    if (g->key)
        gnutls_privkey_deinit(g->key);
    free(g);
}

/* Both files, checked to belong together (GnuTLS compares the key with the
 * first certificate when both go into one credentials structure). */
static tls_gen *gen_load(const char *cert_file, const char *key_file, char *why, size_t why_len)
{
    gnutls_certificate_credentials_t probe;
    if (gnutls_certificate_allocate_credentials(&probe) < 0) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    int rc = gnutls_certificate_set_x509_key_file2(probe, cert_file, key_file, GNUTLS_X509_FMT_PEM, NULL, 0);
    gnutls_certificate_free_credentials(probe);
    if (rc < 0) {
        snprintf(why, why_len, "--tls-cert %s with --tls-key %s: %s", cert_file, key_file, gnutls_strerror(rc));
        return NULL;
    }
    tls_gen *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    g->nchain = MAX_CHAIN;
    rc = gnutls_pcert_list_import_x509_file(g->chain, &g->nchain, cert_file, GNUTLS_X509_FMT_PEM, NULL, NULL, 0);
    if (rc < 0) {
        g->nchain = 0;
        snprintf(why, why_len, "--tls-cert %s: %s", cert_file, gnutls_strerror(rc));
        gen_free(g);
        return NULL;
    }
    gnutls_datum_t pem = {0};
    rc = gnutls_load_file(key_file, &pem);
    if (rc >= 0)
        rc = gnutls_privkey_init(&g->key);
    if (rc >= 0)
        rc = gnutls_privkey_import_x509_raw(g->key, &pem, GNUTLS_X509_FMT_PEM, NULL, 0);
    if (pem.data) {
        memset(pem.data, 0, pem.size);
        gnutls_free(pem.data);
    }
    if (rc < 0) {
        snprintf(why, why_len, "--tls-key %s: %s", key_file, gnutls_strerror(rc));
        gen_free(g);
        return NULL;
    }
    return g;
}

http_tls *http_tls_new(const char *cert_file, const char *key_file, char *why, size_t why_len)
{
    if (!cert_file || !key_file) {
        snprintf(why, why_len, "%s",
                 cert_file ? "--tls-cert needs --tls-key (the certificate's private key)"
                           : "--tls-key needs --tls-cert (the certificate chain)");
        return NULL;
    }
    char lwhy[512];
    if (!http_libs_load_tls(lwhy, sizeof lwhy)) {
        snprintf(why, why_len, "--tls-cert needs GnuTLS: %s", lwhy);
        return NULL;
    }
    tls_gen *g = gen_load(cert_file, key_file, why, why_len);
    if (!g)
        return NULL;
    http_tls *t = calloc(1, sizeof *t);
    if (!t) {
        gen_free(g);
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    t->cert_file = cert_file;
    t->key_file = key_file;
    t->cur = g;
    pthread_mutex_init(&t->mu, NULL);
    return t;
}

bool http_tls_reload(http_tls *t, char *why, size_t why_len)
{
    tls_gen *g = gen_load(t->cert_file, t->key_file, why, why_len);
    if (!g)
        return false;
    pthread_mutex_lock(&t->mu);
    g->older = t->cur;
    t->cur = g;
    pthread_mutex_unlock(&t->mu);
    return true;
}

void http_tls_free(http_tls *t)
{
    if (!t)
        return;
    for (tls_gen *g = t->cur, *older; g; g = older) {
        older = g->older;
        gen_free(g);
    }
    pthread_mutex_destroy(&t->mu);
    free(t);
}

void http_tls_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                     enum MHD_ConnectionNotificationCode code)
{
    (void)c;
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        *socket_context = cls;
}

int http_tls_retrieve(gnutls_session_t session, const gnutls_datum_t *req_ca_rdn, int nreqs,
                      const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length, gnutls_pcert_st **pcert,
                      unsigned int *pcert_length, gnutls_privkey_t *privkey)
{
    (void)req_ca_rdn;
    (void)nreqs;
    (void)pk_algos;
    (void)pk_algos_length;
    struct MHD_Connection *c = gnutls_session_get_ptr(session);
    const union MHD_ConnectionInfo *info = c ? MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT) : NULL;
    http_tls *t = info ? info->socket_context : NULL;
    if (!t)
        return -1;
    pthread_mutex_lock(&t->mu);
    tls_gen *g = t->cur;
    pthread_mutex_unlock(&t->mu);
    *pcert = g->chain;
    *pcert_length = g->nchain;
    *privkey = g->key;
    return 0;
}
