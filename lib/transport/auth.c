/* auth.c: the HTTP transport as an OAuth 2.1 resource server (auth.h).
 *
 * Pieces, in order: settings and URLs; fetching over HTTP(S) (fetch.h: the
 * JWKS document, introspection); the key set and its refresh; the
 * token cache; claims; the checks http.c calls; the answers (challenges and
 * the metadata document).
 *
 * Threads. http.c runs one thread per connection, so every function here
 * may run on many threads at once. The key set is replaced whole under
 * keys_mu (a reader holds it only while verifying); one thread at a time
 * fetches (fetch_mu, tried, never waited on by a request: a request whose
 * token names an unknown key while another thread fetches gets 401). The
 * cache has its own mutex.
 */
#define _GNU_SOURCE
#include "internal/auth.h"

#include <arpa/inet.h>
#include <errno.h>
#include <nettle/sha2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "internal/fetch.h"
#include "internal/jose.h"
#include "mcpidl/generated.h"
#include "mcpidl/jsonw.h"
#include "mcpidl/mcpidl.h"

#define FETCH_TIMEOUT_SECONDS 5
#define FETCH_MAX_BYTES ((size_t)1 << 20)
#define CACHE_SLOTS 4096
#define MAX_SCOPES_SUPPORTED 256
#define METADATA_PATH "/.well-known/oauth-protected-resource"

struct auth_caller {
    mcp_caller view;
    atomic_int refs;
    mcp_arena arena;   /* the claims, the scopes, the strings */
    time_t until;      /* cached until then (exp plus leeway) */
    const char *owner; /* "iss sub" */
};

typedef struct cache_slot {
    uint8_t key[SHA256_DIGEST_SIZE];
    auth_caller *c; /* NULL: empty */
} cache_slot;

struct http_auth {
    mcp_runtime *rt;
    const mcp_options *o;
    const mcp_server *srv;
    const char *issuer;
    const char *resource;
    char *resource_norm; /* scheme and host lower case, no trailing slash */
    char *resource_host; /* lower case, without port or brackets */
    char *resource_path; /* "/mcp", or "" for a resource at the root */
    char *metadata_url;  /* where the challenge points: the path-suffixed form */
    char *metadata;      /* the document */
    size_t metadata_len;
    char *required_str; /* the required scopes, space separated ("" for none) */
    char *basic_str;    /* a 401's scope: the required ones and the server's default ones */
    unsigned algs;
    int leeway;

    /* The key set. */
    const char *jwks; /* a file name or a URL */
    bool jwks_url;
    pthread_mutex_t keys_mu;
    jose_keyset *keys;
    pthread_mutex_t fetch_mu;
    time_t last_fetch; /* under fetch_mu: the last attempt (0: none) */

    /* Introspection. */
    const char *introspect;
    const char *client_id;
    char *client_secret;

    pthread_mutex_t cache_mu;
    cache_slot *cache;
    atomic_ulong verified, cached;
};

/* ---------------------------------------------------------------- callers */

const mcp_caller *auth_caller_view(const auth_caller *c) { return c ? &c->view : NULL; }

const char *auth_caller_owner(const auth_caller *c) { return c ? c->owner : ""; }

auth_caller *auth_caller_ref(auth_caller *c)
{
    if (c)
        atomic_fetch_add(&c->refs, 1);
    return c;
}

void auth_caller_unref(auth_caller *c)
{
    if (c && atomic_fetch_sub(&c->refs, 1) == 1) {
        mcp_arena_free(&c->arena);
        free(c);
    }
}

static auth_caller *caller_new(void)
{
    auth_caller *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    atomic_init(&c->refs, 1);
    mcp_arena_init(&c->arena);
    return c;
}

/* ---------------------------------------------------------------- URLs */

static bool loopback_host(const char *h, size_t n)
{
    if ((n == 9 && strncasecmp(h, "localhost", 9) == 0) || (n == 5 && strncmp(h, "[::1]", 5) == 0))
        return true;
    char buf[64];
    if (n >= sizeof buf)
        return false;
    memcpy(buf, h, n);
    buf[n] = 0;
    struct in_addr a4;
    return inet_pton(AF_INET, buf, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127;
}

/* An absolute http(s) URL: the host's place (brackets kept) and the path's
 * (from its '/', or the end). False when it is not one. */
static bool url_parts(const char *url, const char **host, size_t *host_len, const char **path, bool *https)
{
    const char *rest;
    if (strncasecmp(url, "https://", 8) == 0) {
        rest = url + 8;
        *https = true;
    } else if (strncasecmp(url, "http://", 7) == 0) {
        rest = url + 7;
        *https = false;
    } else {
        return false;
    }
    size_t auth_len = strcspn(rest, "/?#");
    if (auth_len == 0 || memchr(rest, '@', auth_len))
        return false;
    *host = rest;
    if (rest[0] == '[') {
        const char *e = memchr(rest, ']', auth_len);
        if (!e)
            return false;
        *host_len = (size_t)(e - rest) + 1;
    } else {
        *host_len = strcspn(rest, ":/?#");
    }
    if (*host_len == 0)
        return false;
    *path = rest + auth_len;
    return true;
}

/* A URL this server may fetch: https, or http to a loopback address (a
 * test, or an authorization server beside this one). NULL or why not. */
static const char *fetch_policy(const char *url)
{
    const char *host, *path;
    size_t hn;
    bool https;
    if (!url_parts(url, &host, &hn, &path, &https))
        return "is not an absolute http(s) URL";
    if (!https && !loopback_host(host, hn))
        return "must be https (plain http is taken only for a loopback address)";
    return NULL;
}

/* Scheme and host lower case, one trailing slash of the path dropped: how
 * an audience is compared with the resource (RFC 8707 section 2, and the
 * specification's note on trailing slashes). */
static char *url_norm(const char *url)
{
    const char *host, *path;
    size_t hn;
    bool https;
    if (!url_parts(url, &host, &hn, &path, &https))
        return strdup(url);
    char *s = strdup(url);
    if (!s)
        return NULL;
    for (char *p = s; p < s + (path - url); p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    size_t n = strlen(s);
    if (n > (size_t)(path - url) && s[n - 1] == '/')
        s[n - 1] = 0;
    return s;
}

static bool same_resource(const http_auth *a, const char *aud)
{
    if (strcmp(aud, a->resource) == 0)
        return true;
    char *n = url_norm(aud);
    bool same = n && strcmp(n, a->resource_norm) == 0;
    free(n);
    return same;
}

/* ---------------------------------------------------------------- fetching */

static const fetch_limits FETCH_LIMITS = {FETCH_TIMEOUT_SECONDS, FETCH_MAX_BYTES};

/* GET url, or POST `form` to it with HTTP Basic credentials: the body of a
 * 200 answer (malloc'd, NUL-terminated), or NULL with why. */
static char *fetch(const char *url, const char *form, const char *user, const char *pass, size_t *len, char *why,
                   size_t why_len)
{
    return fetch_url(url, form, user, pass, &FETCH_LIMITS, len, why, why_len);
}

static char *read_file(const char *path, size_t max, size_t *len, char *why, size_t why_len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(why, why_len, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, fp) : 0;
    bool err = ferror(fp);
    fclose(fp);
    if (!buf || err || n > max) {
        snprintf(why, why_len, "cannot read %s%s", path, n > max ? ": larger than 1 MiB" : "");
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* ---------------------------------------------------------------- the key set */

/* Fetch or read the key set and put it in place: false (the keys in place
 * kept) with why. */
static bool keys_load(http_auth *a, char *why, size_t why_len)
{
    size_t len = 0;
    char *text = a->jwks_url ? fetch(a->jwks, NULL, NULL, NULL, &len, why, why_len)
                             : read_file(a->jwks, FETCH_MAX_BYTES, &len, why, why_len);
    if (!text)
        return false;
    size_t skipped = 0;
    jose_keyset *ks = jose_keyset_parse(text, len, &skipped, why, why_len);
    free(text);
    if (!ks)
        return false;
    if (skipped)
        mcp_runtime_log(a->rt, MCP_LOG_WARN, "auth: %s: %zu key(s) skipped (%s)", a->jwks, skipped, why);
    pthread_mutex_lock(&a->keys_mu);
    jose_keyset *old = a->keys;
    a->keys = ks;
    pthread_mutex_unlock(&a->keys_mu);
    jose_keyset_free(old);
    mcp_runtime_log(a->rt, MCP_LOG_INFO, "auth: %zu key(s) from %s", jose_keyset_count(ks), a->jwks);
    return true;
}

/* A token named a key the set lacks: fetch the set again, unless another
 * thread is at it or the last attempt was less than auth_jwks_refresh
 * seconds ago. */
static void keys_refresh(http_auth *a)
{
    if (pthread_mutex_trylock(&a->fetch_mu) != 0)
        return;
    time_t now = time(NULL);
    if (a->last_fetch && now - a->last_fetch < a->o->auth_jwks_refresh) {
        pthread_mutex_unlock(&a->fetch_mu);
        return;
    }
    a->last_fetch = now;
    char why[1024]; /* the loader's sentence names a file twice */
    if (!keys_load(a, why, sizeof why)) {
        pthread_mutex_lock(&a->keys_mu);
        size_t have = jose_keyset_count(a->keys);
        pthread_mutex_unlock(&a->keys_mu);
        mcp_runtime_log(a->rt, MCP_LOG_WARN,
                        "auth: cannot load the keys from %s (%s): serving with the %zu key(s) it has", a->jwks, why,
                        have);
    }
    pthread_mutex_unlock(&a->fetch_mu);
}

void http_auth_reload(http_auth *a)
{
    if (!a || !a->jwks)
        return;
    pthread_mutex_lock(&a->fetch_mu);
    a->last_fetch = time(NULL);
    char why[1024];
    if (!keys_load(a, why, sizeof why))
        mcp_runtime_log(a->rt, MCP_LOG_WARN, "auth: reload: cannot load the keys from %s (%s): keeping those it has",
                        a->jwks, why);
    pthread_mutex_unlock(&a->fetch_mu);
}

/* ---------------------------------------------------------------- the cache */

static void token_hash(const char *token, size_t len, uint8_t out[SHA256_DIGEST_SIZE])
{
    struct sha256_ctx h;
    sha256_init(&h);
    sha256_update(&h, len, (const uint8_t *)token);
    sha256_digest(&h, SHA256_DIGEST_SIZE, out);
}

static cache_slot *slot_of(const http_auth *a, const uint8_t key[SHA256_DIGEST_SIZE])
{
    unsigned i = ((unsigned)key[0] << 8 | key[1]) % CACHE_SLOTS;
    return &a->cache[i];
}

static auth_caller *cache_get(http_auth *a, const uint8_t key[SHA256_DIGEST_SIZE], time_t now)
{
    auth_caller *c = NULL, *stale = NULL;
    pthread_mutex_lock(&a->cache_mu);
    cache_slot *s = slot_of(a, key);
    if (s->c && memcmp(s->key, key, SHA256_DIGEST_SIZE) == 0) {
        if (now < s->c->until) {
            c = auth_caller_ref(s->c);
        } else {
            stale = s->c;
            s->c = NULL;
        }
    }
    pthread_mutex_unlock(&a->cache_mu);
    auth_caller_unref(stale);
    return c;
}

static void cache_put(http_auth *a, const uint8_t key[SHA256_DIGEST_SIZE], auth_caller *c)
{
    auth_caller_ref(c);
    pthread_mutex_lock(&a->cache_mu);
    cache_slot *s = slot_of(a, key);
    auth_caller *old = s->c;
    memcpy(s->key, key, SHA256_DIGEST_SIZE);
    s->c = c;
    pthread_mutex_unlock(&a->cache_mu);
    auth_caller_unref(old);
}

void http_auth_counters(const http_auth *a, unsigned long *verified, unsigned long *cached)
{
    *verified = atomic_load(&a->verified);
    *cached = atomic_load(&a->cached);
}

/* ---------------------------------------------------------------- claims */

static bool num_of(const mcp_json *v, double *out)
{
    if (v && v->kind == MCP_JINT) {
        *out = (double)v->i;
        return true;
    }
    if (v && v->kind == MCP_JFLOAT) {
        *out = v->d;
        return true;
    }
    return false;
}

static const char *str_of(const mcp_json *o, const char *key)
{
    const mcp_json *v = mcp_json_get(o, key);
    return v && v->kind == MCP_JSTRING && !v->has_nul ? v->s : NULL;
}

/* The claims' verdict: NULL, or why the token is refused (a sentence for
 * error_description). JWT claims need iss, aud and exp; an introspection
 * answer needs `active` and aud, and is checked on the others it has. */
static const char *claims_check(const http_auth *a, const mcp_json *c, time_t now, bool introspected, double *exp_out)
{
    if (introspected) {
        const mcp_json *active = mcp_json_get(c, "active");
        if (!active || active->kind != MCP_JBOOL || !active->b)
            return "the token is not active";
    }
    const mcp_json *iss = mcp_json_get(c, "iss");
    if (iss || !introspected) {
        if (!iss || iss->kind != MCP_JSTRING || iss->has_nul)
            return "the token has no issuer";
        if (strcmp(iss->s, a->issuer) != 0)
            return "the token is from another issuer";
    }
    const mcp_json *aud = mcp_json_get(c, "aud");
    bool for_us = false;
    if (aud && aud->kind == MCP_JSTRING && !aud->has_nul)
        for_us = same_resource(a, aud->s);
    else if (aud && aud->kind == MCP_JARRAY)
        for (size_t i = 0; i < aud->n && !for_us; i++)
            for_us = aud->items[i]->kind == MCP_JSTRING && !aud->items[i]->has_nul &&
                     same_resource(a, aud->items[i]->s);
    if (!aud)
        return "the token has no audience";
    if (!for_us)
        return "the token is for another resource";
    double exp = 0, nbf, iat;
    const mcp_json *e = mcp_json_get(c, "exp");
    if (e || !introspected) {
        if (!num_of(e, &exp))
            return "the token has no expiry time";
        if ((double)now >= exp + a->leeway)
            return "the token has expired";
    }
    const mcp_json *n = mcp_json_get(c, "nbf");
    if (n && !num_of(n, &nbf))
        return "the token's nbf is not a number";
    if (n && (double)now + a->leeway < nbf)
        return "the token is not valid yet";
    const mcp_json *i = mcp_json_get(c, "iat");
    if (i && !num_of(i, &iat))
        return "the token's iat is not a number";
    if (i && iat > (double)now + a->leeway)
        return "the token was issued in the future";
    *exp_out = e ? exp : 0;
    return NULL;
}

/* The caller's view from its claims (in c's arena): subject, jti, scopes
 * ("scope", space separated, or "scp", an array), owner. */
static bool caller_fill(http_auth *a, auth_caller *c, const mcp_json *claims, double exp, time_t now)
{
    mcp_caller *v = &c->view;
    v->claims = claims;
    v->subject = str_of(claims, "sub");
    v->token_id = str_of(claims, "jti");
    const char *scope = str_of(claims, "scope");
    const mcp_json *scp = mcp_json_get(claims, "scp");
    size_t n = 0;
    const char **list = NULL;
    if (scope) {
        size_t most = strlen(scope) / 2 + 1;
        list = mcp_arena_alloc(&c->arena, most * sizeof *list);
        if (!list)
            return false;
        for (const char *p = scope; *p;) {
            size_t k = strcspn(p, " ");
            if (k) {
                list[n] = mcp_arena_strndup(&c->arena, p, k);
                if (!list[n])
                    return false;
                n++;
            }
            p += k;
            while (*p == ' ')
                p++;
        }
    } else if (scp && scp->kind == MCP_JARRAY) {
        list = mcp_arena_alloc(&c->arena, (scp->n ? scp->n : 1) * sizeof *list);
        if (!list)
            return false;
        for (size_t i = 0; i < scp->n; i++)
            if (scp->items[i]->kind == MCP_JSTRING && !scp->items[i]->has_nul)
                list[n++] = scp->items[i]->s;
    }
    v->scopes = list;
    v->nscopes = n;
    const char *iss = str_of(claims, "iss");
    c->owner = mcp_arena_printf(&c->arena, "%s %s", iss ? iss : a->issuer, v->subject ? v->subject : "");
    /* Cached until it expires; an introspection answer without exp, for as
     * long as a key set is kept between fetches. */
    double until = exp > 0 ? exp + a->leeway : (double)now + a->o->auth_jwks_refresh;
    c->until = until > 4e18 ? (time_t)4e18 : (time_t)until;
    return c->owner != NULL;
}

static bool has_scope(const mcp_caller *v, const char *scope)
{
    for (size_t i = 0; i < v->nscopes; i++)
        if (strcmp(v->scopes[i], scope) == 0)
            return true;
    return false;
}

/* ---------------------------------------------------------------- verifying */

/* Why a verification failed, for the answer: 401 invalid_token, with this
 * description. */
typedef struct verdict {
    const char *why;
} verdict;

static auth_caller *verify_jwt(http_auth *a, const char *token, size_t len, time_t now, verdict *vd)
{
    auth_caller *c = caller_new();
    if (!c) {
        vd->why = "out of memory";
        return NULL;
    }
    jose_jwt t;
    jose_err err = jose_jwt_parse(&c->arena, token, len, a->algs, &t);
    /* Verified with the keys in place; a token naming a key they lack has
     * the set fetched again (keys_refresh decides whether now) and is
     * verified once more. */
    for (int attempt = 0; err == JOSE_OK; attempt++) {
        pthread_mutex_lock(&a->keys_mu);
        err = jose_jwt_verify(&t, a->keys);
        pthread_mutex_unlock(&a->keys_mu);
        if ((err != JOSE_E_KID && err != JOSE_E_NO_KEY) || attempt == 1)
            break;
        keys_refresh(a);
        err = JOSE_OK;
    }
    atomic_fetch_add(&a->verified, 1);
    if (err != JOSE_OK) {
        vd->why = jose_error_str(err);
        auth_caller_unref(c);
        return NULL;
    }
    double exp = 0;
    vd->why = claims_check(a, t.payload, now, false, &exp);
    if (!vd->why && !caller_fill(a, c, t.payload, exp, now))
        vd->why = "out of memory";
    if (vd->why) {
        auth_caller_unref(c);
        return NULL;
    }
    return c;
}

static auth_caller *introspect(http_auth *a, const char *token, time_t now, verdict *vd)
{
    char *tok = fetch_escape(token);
    char *form = NULL;
    if (tok && asprintf(&form, "token=%s&token_type_hint=access_token", tok) < 0)
        form = NULL;
    free(tok);
    if (!form) {
        vd->why = "out of memory";
        return NULL;
    }
    char why[256];
    size_t len = 0;
    char *body = fetch(a->introspect, form, a->client_id, a->client_secret, &len, why, sizeof why);
    free(form);
    atomic_fetch_add(&a->verified, 1);
    if (!body) {
        mcp_runtime_log(a->rt, MCP_LOG_WARN, "auth: introspection at %s failed: %s", a->introspect, why);
        vd->why = "the token cannot be checked now";
        return NULL;
    }
    auth_caller *c = caller_new();
    const mcp_json_limits lim = {.max_depth = 16, .max_string = 1 << 16, .max_array = 1024, .max_values = 8192};
    const mcp_json *claims = c ? mcp_json_parse(&c->arena, body, len, &lim, NULL, NULL) : NULL;
    free(body);
    double exp = 0;
    if (!c)
        vd->why = "out of memory";
    else if (!claims || claims->kind != MCP_JOBJECT)
        vd->why = "the introspection answer is not a JSON object";
    else if (!(vd->why = claims_check(a, claims, now, true, &exp)) && !caller_fill(a, c, claims, exp, now))
        vd->why = "out of memory";
    if (vd->why) {
        if (claims && claims->kind != MCP_JOBJECT)
            mcp_runtime_log(a->rt, MCP_LOG_WARN, "auth: introspection at %s answered something other than an object",
                            a->introspect);
        auth_caller_unref(c);
        return NULL;
    }
    return c;
}

/* ---------------------------------------------------------------- answers */

/* The challenge: Bearer [error="E", error_description="D", ]
 * resource_metadata="URL"[, scope="S"]. */
static void challenge(const http_auth *a, http_resp *out, unsigned status, const char *error, const char *desc,
                      const char *scope)
{
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_puts(&b, "Bearer ");
    if (error)
        mcp_buf_printf(&b, "error=\"%s\", error_description=\"%s\", ", error, desc);
    mcp_buf_printf(&b, "resource_metadata=\"%s\"", a->metadata_url);
    if (scope && *scope)
        mcp_buf_printf(&b, ", scope=\"%s\"", scope);
    size_t n;
    char *hdr = b.oom ? (mcp_buf_free(&b), NULL) : mcp_buf_take(&b, &n);

    /* The body, as OAuth errors are written (RFC 6749 section 5.2). */
    mcp_buf j;
    mcp_buf_init(&j);
    mcp_buf_puts(&j, "{\"error\":");
    mcp_json_string(&j, error ? error : "unauthorized", strlen(error ? error : "unauthorized"));
    mcp_buf_puts(&j, ",\"error_description\":");
    mcp_json_string(&j, desc, strlen(desc));
    mcp_buf_puts(&j, "}");
    http_resp_free(out);
    *out = (http_resp){0};
    if (j.oom || !hdr) {
        mcp_buf_free(&j);
        free(hdr);
        return; /* status 0: the connection is closed */
    }
    out->body = mcp_buf_take(&j, &out->len);
    out->status = status;
    out->content_type = "application/json";
    out->www_authenticate = hdr;
}

void http_auth_forbid(const http_auth *a, http_resp *out, const char *scopes)
{
    challenge(a, out, 403, "insufficient_scope", "the token lacks a scope this request needs", scopes);
}

/* ---------------------------------------------------------------- the checks */

/* The header's token: 0 and *tok set; 1 no bearer credentials (401 without
 * an error); 2 malformed (400 invalid_request). */
static int bearer_token(const char *h, const char **tok, size_t *len, const char **why)
{
    if (!h)
        return 1;
    size_t sl = strcspn(h, " \t");
    if (sl != 6 || strncasecmp(h, "Bearer", 6) != 0)
        return 1;
    const char *p = h + 6;
    while (*p == ' ')
        p++;
    /* b64token (RFC 6750 section 2.1): ALPHA DIGIT - . _ ~ + / then '='s. */
    const char *t = p;
    while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
           *p == '_' || *p == '~' || *p == '+' || *p == '/')
        p++;
    while (*p == '=')
        p++;
    if (p == t) {
        *why = "the bearer token is empty";
        return 2;
    }
    if (*p) {
        *why = "the Authorization header is not Bearer followed by one token";
        return 2;
    }
    *tok = t;
    *len = (size_t)(p - t);
    return 0;
}

bool http_auth_precheck(const http_auth *a, const http_req *rq, http_resp *out)
{
    if (rq->query && rq->query(rq->conn, "access_token")) {
        challenge(a, out, 400, "invalid_request", "access tokens are taken in the Authorization header only", NULL);
        return false;
    }
    const char *tok, *why = NULL;
    size_t len;
    int r = bearer_token(rq->header(rq->conn, "Authorization"), &tok, &len, &why);
    if (r == 1) {
        challenge(a, out, 401, NULL, "this server needs a bearer token", a->basic_str);
        return false;
    }
    if (r == 2) {
        challenge(a, out, 400, "invalid_request", why, NULL);
        return false;
    }
    if (len > AUTH_MAX_TOKEN) {
        challenge(a, out, 401, "invalid_token", "the token is longer than 8192 bytes", a->basic_str);
        return false;
    }
    return true;
}

bool http_auth_check(http_auth *a, const http_req *rq, http_resp *out, auth_caller **who)
{
    *who = NULL;
    if (!http_auth_precheck(a, rq, out))
        return false;
    const char *tok, *why = NULL;
    size_t len;
    bearer_token(rq->header(rq->conn, "Authorization"), &tok, &len, &why);
    uint8_t key[SHA256_DIGEST_SIZE];
    token_hash(tok, len, key);
    time_t now = time(NULL);
    auth_caller *c = cache_get(a, key, now);
    if (c) {
        atomic_fetch_add(&a->cached, 1);
    } else {
        verdict vd = {0};
        char *copy = strndup(tok, len);
        bool jwt = a->jwks != NULL;
        if (!copy)
            vd.why = "out of memory";
        else if (jwt && (memchr(tok, '.', len) || !a->introspect))
            c = verify_jwt(a, copy, len, now, &vd);
        else if (a->introspect)
            c = introspect(a, copy, now, &vd);
        free(copy);
        if (!c) {
            mcp_runtime_log(a->rt, MCP_LOG_INFO, "auth: a token refused: %s", vd.why);
            challenge(a, out, 401, "invalid_token", vd.why, a->basic_str);
            return false;
        }
        cache_put(a, key, c);
    }
    for (size_t i = 0; i < a->o->nrequired_scopes; i++)
        if (!has_scope(&c->view, a->o->auth_required_scopes[i])) {
            auth_caller_unref(c);
            http_auth_forbid(a, out, a->required_str);
            return false;
        }
    *who = c;
    return true;
}

bool http_auth_missing(const http_auth *a, const mcp_json *msg, const auth_caller *who, char **scopes)
{
    *scopes = NULL;
    const char *some[64];
    const char **need = some;
    size_t n = mcp_message_scopes(a->srv, msg, need, sizeof some / sizeof *some);
    if (n > sizeof some / sizeof *some) {
        need = malloc(n * sizeof *need);
        if (!need)
            return true; /* unchecked is refused */
        n = mcp_message_scopes(a->srv, msg, need, n);
    }
    bool missing = false;
    for (size_t i = 0; i < n && !missing; i++)
        missing = !who || !has_scope(&who->view, need[i]);
    if (missing) {
        mcp_buf b;
        mcp_buf_init(&b);
        mcp_buf_puts(&b, a->required_str);
        for (size_t i = 0; i < n; i++) {
            bool dup = false;
            for (size_t k = 0; k < a->o->nrequired_scopes && !dup; k++)
                dup = strcmp(a->o->auth_required_scopes[k], need[i]) == 0;
            if (!dup)
                mcp_buf_printf(&b, "%s%s", b.len ? " " : "", need[i]);
        }
        size_t len;
        *scopes = b.oom ? (mcp_buf_free(&b), NULL) : mcp_buf_take(&b, &len);
    }
    if (need != some)
        free(need);
    return missing;
}

bool http_auth_host_ok(const http_auth *a, const char *name, size_t n)
{
    return a && a->resource_host && strlen(a->resource_host) == n && strncasecmp(a->resource_host, name, n) == 0;
}

bool http_auth_metadata(const http_auth *a, const http_req *rq, http_resp *out)
{
    const char *u = rq->url;
    size_t k = strlen(METADATA_PATH);
    if (strncmp(u, METADATA_PATH, k) != 0)
        return false;
    const char *rest = u + k;
    const char *endpoint = a->o->http_path ? a->o->http_path : "/mcp";
    if (*rest && strcmp(rest, a->resource_path) != 0 && strcmp(rest, endpoint) != 0)
        return false;
    if (strcmp(rq->method, "GET") != 0 && strcmp(rq->method, "HEAD") != 0) {
        http_resp_error(out, 405, -32000, "Method Not Allowed");
        out->allow = false;
        return true;
    }
    http_resp_free(out);
    *out = (http_resp){0};
    out->body = malloc(a->metadata_len + 1);
    if (!out->body)
        return true; /* status 0: the connection is closed */
    memcpy(out->body, a->metadata, a->metadata_len + 1);
    out->len = a->metadata_len;
    out->status = 200;
    out->content_type = "application/json";
    return true;
}

/* ---------------------------------------------------------------- settings */

bool http_auth_wanted(const mcp_options *o)
{
    return o->auth_issuer || o->auth_resource || o->auth_jwks || o->auth_introspect || o->auth_client_id ||
           o->auth_client_secret_file || o->nrequired_scopes;
}

/* Every scope the server table and the options name, once each, in order. */
static size_t scopes_supported(const http_auth *a, const char **out, size_t cap)
{
    size_t n = 0;
#define ADD(list, count) \
    for (size_t i_ = 0; (list) && i_ < (count); i_++) { \
        bool seen_ = false; \
        for (size_t k_ = 0; k_ < n && !seen_; k_++) \
            seen_ = strcmp(out[k_], (list)[i_]) == 0; \
        if (!seen_ && n < cap) \
            out[n++] = (list)[i_]; \
    }
    const mcp_server *s = a->srv;
    ADD(a->o->auth_required_scopes, a->o->nrequired_scopes);
    ADD(s->scopes, s->nscopes);
    for (size_t i = 0; i < s->ntools; i++)
        ADD(s->tools[i].scopes, s->tools[i].nscopes);
    for (size_t i = 0; i < s->nresources; i++)
        ADD(s->resources[i].scopes, s->resources[i].nscopes);
    for (size_t i = 0; i < s->ntemplates; i++)
        ADD(s->templates[i].scopes, s->templates[i].nscopes);
    for (size_t i = 0; i < s->nprompts; i++)
        ADD(s->prompts[i].scopes, s->prompts[i].nscopes);
#undef ADD
    return n;
}

/* The RFC 9728 document. */
static bool metadata_build(http_auth *a)
{
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_puts(&b, "{\"resource\":");
    mcp_json_string(&b, a->resource, strlen(a->resource));
    mcp_buf_puts(&b, ",\"authorization_servers\":[");
    mcp_json_string(&b, a->issuer, strlen(a->issuer));
    mcp_buf_puts(&b, "]");
    const char *sc[MAX_SCOPES_SUPPORTED];
    size_t n = scopes_supported(a, sc, MAX_SCOPES_SUPPORTED);
    if (n) {
        mcp_buf_puts(&b, ",\"scopes_supported\":[");
        for (size_t i = 0; i < n; i++) {
            if (i)
                mcp_buf_putc(&b, ',');
            mcp_json_string(&b, sc[i], strlen(sc[i]));
        }
        mcp_buf_puts(&b, "]");
    }
    mcp_buf_puts(&b, ",\"bearer_methods_supported\":[\"header\"]");
    if (a->srv->name) {
        mcp_buf_puts(&b, ",\"resource_name\":");
        mcp_json_string(&b, a->srv->name, strlen(a->srv->name));
    }
    mcp_buf_puts(&b, "}");
    if (b.oom) {
        mcp_buf_free(&b);
        return false;
    }
    a->metadata = mcp_buf_take(&b, &a->metadata_len);
    return true;
}

/* Whether the items' scopes are all scope-tokens (RFC 6749 section 3.3):
 * they go into a quoted header parameter. */
static const char *bad_scope(const http_auth *a)
{
    const char *sc[MAX_SCOPES_SUPPORTED];
    size_t n = scopes_supported(a, sc, MAX_SCOPES_SUPPORTED);
    for (size_t i = 0; i < n; i++) {
        bool ok = *sc[i] != 0;
        for (const char *p = sc[i]; ok && *p; p++)
            ok = *p > 0x20 && *p < 0x7f && *p != '"' && *p != '\\';
        if (!ok)
            return sc[i];
    }
    return NULL;
}

static char *load_secret(const char *path, char *why, size_t why_len)
{
    size_t len;
    char *s = read_file(path, 4096, &len, why, why_len);
    if (!s)
        return NULL;
    while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
        s[--len] = 0;
    if (len == 0 || strlen(s) != len) {
        snprintf(why, why_len, "--auth-client-secret-file %s: empty, or holds a NUL byte", path);
        free(s);
        return NULL;
    }
    return s;
}

/* The settings' verdict: NULL, or why they cannot serve. */
static const char *settings_check(const mcp_options *o, char *buf, size_t n)
{
    const char *w;
    if (!o->auth_issuer)
        return "--auth-issuer URL is missing: the issuer whose tokens this server takes";
    if (!o->auth_resource)
        return "--auth-resource URL is missing: this server's canonical URI (the tokens' audience)";
    if (!o->auth_jwks && !o->auth_introspect)
        return "neither --auth-jwks nor --auth-introspect is given: tokens could not be verified";
    if ((w = fetch_policy(o->auth_issuer)) != NULL) {
        snprintf(buf, n, "--auth-issuer %s %s", o->auth_issuer, w);
        return buf;
    }
    const char *host, *path;
    size_t hn;
    bool https;
    if (!url_parts(o->auth_resource, &host, &hn, &path, &https) || strchr(o->auth_resource, '#')) {
        snprintf(buf, n, "--auth-resource %s is not an absolute http(s) URI without a fragment", o->auth_resource);
        return buf;
    }
    if (o->auth_jwks && strncasecmp(o->auth_jwks, "http", 4) == 0 && strstr(o->auth_jwks, "://") &&
        (w = fetch_policy(o->auth_jwks)) != NULL) {
        snprintf(buf, n, "--auth-jwks %s %s", o->auth_jwks, w);
        return buf;
    }
    if (o->auth_introspect) {
        if ((w = fetch_policy(o->auth_introspect)) != NULL) {
            snprintf(buf, n, "--auth-introspect %s %s", o->auth_introspect, w);
            return buf;
        }
        if (!o->auth_client_id || !o->auth_client_secret_file)
            return "--auth-introspect needs --auth-client-id and --auth-client-secret-file (this server's "
                   "credentials at the authorization server)";
    }
    return NULL;
}

/* Whether the settings name a URL to fetch (a key set, an introspection
 * endpoint), and libcurl, loaded now, is there to fetch it: a server that
 * will need it refuses to start without it rather than fail every token. */
static bool fetcher_ready(const mcp_options *o, char *why, size_t why_len)
{
    const char *what = o->auth_introspect ? "--auth-introspect" : "--auth-jwks";
    const char *url = o->auth_introspect ? o->auth_introspect : o->auth_jwks;
    if (!o->auth_introspect && !(o->auth_jwks && strstr(o->auth_jwks, "://")))
        return true;
    char lwhy[384];
    if (fetch_load(lwhy, sizeof lwhy))
        return true;
    snprintf(why, why_len, "%s %s needs libcurl to fetch it: %s", what, url, lwhy);
    return false;
}

http_auth *http_auth_new(mcp_runtime *rt, char *why, size_t why_len)
{
    const mcp_options *o = mcp_runtime_options(rt);
    const char *w = settings_check(o, why, why_len);
    if (w) {
        if (w != why)
            snprintf(why, why_len, "%s", w);
        return NULL;
    }
    if (!fetcher_ready(o, why, why_len))
        return NULL;
    http_auth *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    a->rt = rt;
    a->o = o;
    a->srv = mcp_runtime_server(rt);
    a->issuer = o->auth_issuer;
    a->resource = o->auth_resource;
    a->algs = o->auth_algs ? o->auth_algs : JOSE_ALGS_ALL;
    a->leeway = o->auth_leeway;
    a->jwks = o->auth_jwks;
    a->jwks_url = o->auth_jwks && strstr(o->auth_jwks, "://") != NULL;
    a->introspect = o->auth_introspect;
    a->client_id = o->auth_client_id;
    pthread_mutex_init(&a->keys_mu, NULL);
    pthread_mutex_init(&a->fetch_mu, NULL);
    pthread_mutex_init(&a->cache_mu, NULL);
    atomic_init(&a->verified, 0);
    atomic_init(&a->cached, 0);
    a->cache = calloc(CACHE_SLOTS, sizeof *a->cache);

    const char *host, *path;
    size_t hn;
    bool https;
    url_parts(a->resource, &host, &hn, &path, &https);
    a->resource_norm = url_norm(a->resource);
    a->resource_host = host[0] == '[' ? strndup(host + 1, hn - 2) : strndup(host, hn);
    size_t pl = strcspn(path, "?");
    while (pl > 0 && path[pl - 1] == '/')
        pl--;
    a->resource_path = strndup(path, pl);
    /* The metadata's URL: the resource's origin, the well-known path, the
     * resource's path (RFC 9728 section 3.1). */
    if (a->resource_path && asprintf(&a->metadata_url, "%.*s%s%s", (int)(path - a->resource), a->resource,
                                     METADATA_PATH, a->resource_path) < 0)
        a->metadata_url = NULL;
    mcp_buf rs;
    mcp_buf_init(&rs);
    for (size_t i = 0; i < o->nrequired_scopes; i++)
        mcp_buf_printf(&rs, "%s%s", i ? " " : "", o->auth_required_scopes[i]);
    mcp_buf_putc(&rs, 0);
    size_t rl;
    a->required_str = rs.oom ? (mcp_buf_free(&rs), NULL) : mcp_buf_take(&rs, &rl);
    /* What a token needs for the items that name no scopes of their own:
     * the scope a 401 suggests (the specification's scope selection). */
    mcp_buf bs;
    mcp_buf_init(&bs);
    mcp_buf_puts(&bs, a->required_str ? a->required_str : "");
    for (size_t i = 0; i < a->srv->nscopes; i++) {
        bool dup = false;
        for (size_t k = 0; k < o->nrequired_scopes && !dup; k++)
            dup = strcmp(o->auth_required_scopes[k], a->srv->scopes[i]) == 0;
        for (size_t k = 0; k < i && !dup; k++)
            dup = strcmp(a->srv->scopes[k], a->srv->scopes[i]) == 0;
        if (!dup)
            mcp_buf_printf(&bs, "%s%s", bs.len ? " " : "", a->srv->scopes[i]);
    }
    mcp_buf_putc(&bs, 0);
    a->basic_str = bs.oom ? (mcp_buf_free(&bs), NULL) : mcp_buf_take(&bs, &rl);
    if (!a->cache || !a->resource_norm || !a->resource_host || !a->metadata_url || !a->required_str || !a->basic_str ||
        !metadata_build(a)) {
        snprintf(why, why_len, "out of memory");
        goto fail;
    }
    const char *bad = bad_scope(a);
    if (bad) {
        snprintf(why, why_len, "the scope \"%s\" is not a scope token (visible ASCII but '\"' and '\\')", bad);
        goto fail;
    }
    if (o->auth_introspect && !(a->client_secret = load_secret(o->auth_client_secret_file, why, why_len)))
        goto fail;
    if (a->jwks) {
        char kwhy[1024];
        /* The first token naming a key the set lacks may fetch it at once
         * (last_fetch stays 0): a rotation just before start is no outage. */
        if (!keys_load(a, kwhy, sizeof kwhy)) {
            if (!a->jwks_url) {
                snprintf(why, why_len, "--auth-jwks %s: %s", a->jwks, kwhy);
                goto fail;
            }
            mcp_runtime_log(rt, MCP_LOG_WARN,
                            "auth: cannot load the keys from %s (%s): tokens are refused until "
                            "it answers",
                            a->jwks, kwhy);
        }
    }
    return a;
fail:
    http_auth_free(a);
    return NULL;
}

void http_auth_free(http_auth *a)
{
    if (!a)
        return;
    for (size_t i = 0; a->cache && i < CACHE_SLOTS; i++)
        auth_caller_unref(a->cache[i].c);
    free(a->cache);
    jose_keyset_free(a->keys);
    free(a->resource_norm);
    free(a->resource_host);
    free(a->resource_path);
    free(a->metadata_url);
    free(a->metadata);
    free(a->required_str);
    free(a->basic_str);
    if (a->client_secret) {
        memset(a->client_secret, 0, strlen(a->client_secret));
        free(a->client_secret);
    }
    pthread_mutex_destroy(&a->keys_mu);
    pthread_mutex_destroy(&a->fetch_mu);
    pthread_mutex_destroy(&a->cache_mu);
    free(a);
}
