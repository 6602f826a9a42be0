/* fuzz_jwt: access tokens and the Authorization header (lib/transport/jose.c,
 * auth.c), in process.
 *
 * The first byte of the input picks what the rest is:
 *   0  a compact JWT: parsed, and when it parses, verified with a fixed key
 *      set (RSA, P-256 and Ed25519 keys made at start by jwt_mint.h with a
 *      fixed seed, so that seeds signed with them verify);
 *   1  a JWKS document: parsed, and when it loads, used to verify a token;
 *   2  the value of an Authorization header (cut at the first NUL, CR or LF,
 *      as no HTTP parser passes those) on a POST of initialize to a server
 *      whose authorization takes that key set (the weather example, no
 *      workers: everything happens inside http_route()).
 *
 * Properties: no crash, no leak; a token that verifies has the algorithm
 * its key allows; every answer to (2) is 200 (then the session is deleted
 * again), 400, 401 or 403, and every 400, 401 and 403 carries a Bearer
 * challenge naming the resource metadata, whose error_description is one of
 * the server's fixed sentences (so no answer holds the token).
 *
 * FUZZ_JWT_TRACE=1 in the environment prints each header's status (to see
 * what a seed reaches).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "internal/auth.h"
#include "internal/http_route.h"
#include "internal/jose.h"
#include "jwt_mint.h"

extern const mcp_server weather_server;

static jose_keyset *keys;
static mcp_http *server;
static char jwks[8192];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static mint_keys k;
    mint_keys_init(&k, 99);
    mint_jwks(&k, "", jwks);
    char why[256];
    keys = jose_keyset_parse(jwks, strlen(jwks), NULL, why, sizeof why);
    FUZZ_CHECK(keys != NULL);
    static char path[] = "/tmp/fuzz-jwks-XXXXXX";
    int fd = mkstemp(path);
    FUZZ_CHECK(fd >= 0);
    FUZZ_CHECK(write(fd, jwks, strlen(jwks)) == (ssize_t)strlen(jwks));
    close(fd);
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 0;
    set.log_level = MCP_LOG_QUIET;
    set.auth_issuer = "https://as.example";
    set.auth_resource = "http://localhost/mcp";
    set.auth_jwks = path;
    set.auth_required_scopes[set.nrequired_scopes++] = "mcp";
    mcp_runtime *rt = mcp_runtime_new(&weather_server, &set); /* lives as long as the process */
    FUZZ_CHECK(rt != NULL);
    server = http_core_new(rt);
    FUZZ_CHECK(server != NULL);
    unlink(path); /* read at start: the keys are in memory */
    mint_keys_clear(&k);
    return 0;
}

static void check_token(const char *text, size_t len, const jose_keyset *ks)
{
    mcp_arena a;
    mcp_arena_init(&a);
    jose_jwt t;
    if (jose_jwt_parse(&a, text, len, JOSE_ALGS_ALL, &t) == JOSE_OK) {
        FUZZ_CHECK(t.header && t.header->kind == MCP_JOBJECT && t.payload && t.payload->kind == MCP_JOBJECT);
        FUZZ_CHECK(t.alg & JOSE_ALGS_ALL);
        jose_err e = jose_jwt_verify(&t, ks);
        FUZZ_CHECK(e == JOSE_OK || e == JOSE_E_KID || e == JOSE_E_NO_KEY || e == JOSE_E_SIGNATURE);
        FUZZ_CHECK(jose_error_str(e) != NULL);
    }
    mcp_arena_free(&a);
}

typedef struct req_hdrs {
    const char *auth;
    const char *sid;
} req_hdrs;

static const char *req_header(void *conn, const char *name)
{
    const req_hdrs *h = conn;
    if (strcasecmp(name, "Authorization") == 0)
        return h->auth;
    if (strcasecmp(name, "Mcp-Session-Id") == 0)
        return h->sid;
    if (strcasecmp(name, "Host") == 0)
        return "localhost";
    if (strcasecmp(name, "Content-Type") == 0)
        return "application/json";
    if (strcasecmp(name, "Accept") == 0)
        return "application/json";
    return NULL;
}

/* What an error_description may say: a fixed sentence, never the input. */
static bool known_description(const char *d, size_t n)
{
    static const char *const AUTH[] = {
        "this server needs a bearer token",
        "the bearer token is empty",
        "the Authorization header is not Bearer followed by one token",
        "access tokens are taken in the Authorization header only",
        "the token is longer than 8192 bytes",
        "the token lacks a scope this request needs",
        "the token has expired",
        "the token has no audience",
        "the token has no expiry time",
        "the token has no issuer",
        "the token is for another resource",
        "the token is from another issuer",
        "the token is not valid yet",
        "the token was issued in the future",
        "the token's iat is not a number",
        "the token's nbf is not a number",
        "out of memory",
    };
    for (size_t i = 0; i < sizeof AUTH / sizeof *AUTH; i++)
        if (strlen(AUTH[i]) == n && memcmp(AUTH[i], d, n) == 0)
            return true;
    for (int e = JOSE_OK; e <= JOSE_E_NOMEM; e++)
        if (strlen(jose_error_str((jose_err)e)) == n && memcmp(jose_error_str((jose_err)e), d, n) == 0)
            return true;
    return false;
}

static void check_challenge(const http_resp *a)
{
    if (a->status != 400 && a->status != 401 && a->status != 403)
        return;
    const char *w = a->www_authenticate;
    FUZZ_CHECK(w != NULL);
    FUZZ_CHECK(strncmp(w, "Bearer ", 7) == 0);
    FUZZ_CHECK(strstr(w, "resource_metadata=\"http://localhost/.well-known/oauth-protected-resource/mcp\"") != NULL);
    const char *d = strstr(w, "error_description=\"");
    if (d) {
        d += 19;
        const char *e = strchr(d, '"');
        FUZZ_CHECK(e != NULL);
        FUZZ_CHECK(known_description(d, (size_t)(e - d)));
    } else {
        FUZZ_CHECK(a->status == 401 && !strstr(w, "error="));
    }
}

static void check_header(const char *value)
{
    static const char INIT[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
        "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"f\",\"version\":\"1\"}}}";
    req_hdrs h = {.auth = value};
    http_req rq =
        {.method = "POST", .url = "/mcp", .header = req_header, .conn = &h, .body = INIT, .len = sizeof INIT - 1};
    http_resp a;
    http_route(server, &rq, &a);
    if (getenv("FUZZ_JWT_TRACE"))
        fprintf(stderr, "fuzz_jwt: %u %s\n", a.status, a.www_authenticate ? a.www_authenticate : "");
    FUZZ_CHECK(a.status == 200 || a.status == 400 || a.status == 401 || a.status == 403);
    check_challenge(&a);
    char sid[sizeof a.session_id];
    snprintf(sid, sizeof sid, "%s", a.session_id);
    http_resp_free(&a);
    if (sid[0]) { /* it verified: end the session it opened */
        h.sid = sid;
        http_req del = {.method = "DELETE", .url = "/mcp", .header = req_header, .conn = &h};
        http_route(server, &del, &a);
        FUZZ_CHECK(a.status == 200);
        http_resp_free(&a);
        FUZZ_CHECK(http_core_sessions(server) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 32768)
        return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    switch (data[0] % 3) {
    case 0:
        check_token(text, len, keys);
        break;
    case 1: {
        jose_keyset *ks = jose_keyset_parse(text, len, NULL, (char[256]){0}, 256);
        if (ks) {
            FUZZ_CHECK(jose_keyset_count(ks) > 0 && jose_keyset_count(ks) <= JOSE_MAX_KEYS);
            static const char T[] = "eyJhbGciOiJFUzI1NiIsImtpZCI6ImVjIn0.e30.AAAA";
            check_token(T, sizeof T - 1, ks);
        }
        jose_keyset_free(ks);
        break;
    }
    default: {
        char *v = malloc(len + 1);
        FUZZ_CHECK(v != NULL);
        memcpy(v, text, len);
        v[len] = 0;
        v[strcspn(v, "\r\n")] = 0;
        check_header(v);
        free(v);
    }
    }
    return 0;
}
