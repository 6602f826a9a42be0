/* auth.c (bench-auth): what a bearer token costs a request, in process.
 *
 *   jose/ALG   parse and signature check of one compact JWT (jose.c), per algorithm
 *   first/ALG  the token check of the HTTP core for a token not seen before: parse, verify,
 *              claims, the caller built, the cache filled (http_auth_check, auth.c)
 *   cached     the same token again: its SHA-256 and a lookup
 *
 * Tokens and keys come from the unit tests' minter (tests/unit/jwt_mint.h). Prints one line per
 * figure: the median of 5 runs, in microseconds per token. Uses internal headers of lib/. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "internal/auth.h"
#include "internal/jose.h"
#include "jwt_mint.h"
#include "mcpidl/mcpidl.h"

enum { RUNS = 5 };

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v)
{
    qsort(v, RUNS, sizeof *v, cmp);
    return v[RUNS / 2];
}

static const char *header_value;
static const char *req_header(void *conn, const char *name)
{
    (void)conn;
    return strcasecmp(name, "Authorization") == 0 ? header_value : NULL;
}

int main(void)
{
    static mint_keys k;
    mint_keys_init(&k, 7);
    static char jwks[8192];
    mint_jwks(&k, "", jwks);
    char why[256];
    jose_keyset *ks = jose_keyset_parse(jwks, strlen(jwks), NULL, why, sizeof why);
    static const char *const ALGS[][2] = {{"RS256", "rsa"}, {"PS256", "rsa"}, {"ES256", "ec"}, {"EdDSA", "ed"}};
    enum { N = 2000 };

    char path[] = "/tmp/bench-jwks-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, jwks, strlen(jwks)) != (ssize_t)strlen(jwks))
        return 1;
    close(fd);
    mcp_options o;
    mcp_options_default(&o);
    o.workers = 0;
    o.auth_issuer = "https://as.example";
    o.auth_resource = "http://localhost/mcp";
    o.auth_jwks = path;
    static const mcp_server srv = {.abi = MCPIDL_ABI, .name = "bench"};
    mcp_runtime *rt = mcp_runtime_new(&srv, &o);
    char awhy[512];
    http_auth *a = rt ? http_auth_new(rt, awhy, sizeof awhy) : NULL;
    unlink(path);
    if (!a) {
        fprintf(stderr, "bench-auth: %s\n", awhy);
        return 1;
    }

    for (size_t i = 0; i < 4; i++) {
        char claims[512];
        snprintf(claims, sizeof claims,
                 "{\"iss\":\"https://as.example\",\"sub\":\"u\",\"aud\":\"http://localhost/mcp\","
                 "\"exp\":4102444800,\"scope\":\"a b c\"}");
        char *t = mint_jwt(&k, ALGS[i][0], ALGS[i][1], NULL, claims, NULL);
        double v[RUNS];
        for (int r = 0; r < RUNS; r++) {
            double t0 = now_us();
            for (int n = 0; n < N; n++) {
                mcp_arena ar;
                mcp_arena_init(&ar);
                jose_jwt j;
                if (jose_jwt_parse(&ar, t, strlen(t), JOSE_ALGS_ALL, &j) != JOSE_OK ||
                    jose_jwt_verify(&j, ks) != JOSE_OK)
                    return 1;
                mcp_arena_free(&ar);
            }
            v[r] = (now_us() - t0) / N;
        }
        printf("jose/%-6s %8.2f us\n", ALGS[i][0], median(v));
        free(t);

        /* Distinct tokens (each its own jti), each checked once: never a cache hit. */
        enum { M = 400 };
        char **lines = calloc(RUNS * M, sizeof *lines);
        for (int n = 0; n < RUNS * M; n++) {
            snprintf(claims, sizeof claims,
                     "{\"iss\":\"https://as.example\",\"sub\":\"u\",\"aud\":\"http://localhost/mcp\","
                     "\"exp\":4102444800,\"scope\":\"a b c\",\"jti\":\"%s-%d\"}",
                     ALGS[i][0], n);
            char *tok = mint_jwt(&k, ALGS[i][0], ALGS[i][1], NULL, claims, NULL);
            if (asprintf(&lines[n], "Bearer %s", tok) < 0)
                return 1;
            free(tok);
        }
        for (int r = 0; r < RUNS; r++) {
            double t0 = now_us();
            for (int n = 0; n < M; n++) {
                header_value = lines[r * M + n];
                http_req rq = {.method = "POST", .url = "/mcp", .header = req_header};
                http_resp out = {0};
                auth_caller *who;
                if (!http_auth_check(a, &rq, &out, &who))
                    return 1;
                auth_caller_unref(who);
            }
            v[r] = (now_us() - t0) / M;
        }
        printf("first/%-5s %8.2f us\n", ALGS[i][0], median(v));
        for (int n = 0; n < RUNS * M; n++)
            free(lines[n]);
        free(lines);
    }
    /* One token, again and again. */
    char *t = mint_jwt(
        &k, "RS256", "rsa", NULL,
        "{\"iss\":\"https://as.example\",\"sub\":\"u\",\"aud\":\"http://localhost/mcp\",\"exp\":4102444800}", NULL);
    char *line;
    if (asprintf(&line, "Bearer %s", t) < 0)
        return 1;
    header_value = line;
    double v[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_us();
        for (int n = 0; n < 100000; n++) {
            http_req rq = {.method = "POST", .url = "/mcp", .header = req_header};
            http_resp out = {0};
            auth_caller *who;
            if (!http_auth_check(a, &rq, &out, &who))
                return 1;
            auth_caller_unref(who);
        }
        v[r] = (now_us() - t0) / 100000;
    }
    printf("cached       %8.2f us\n", median(v));
    unsigned long verified, cached;
    http_auth_counters(a, &verified, &cached);
    printf("(%lu verifications, %lu cache hits)\n", verified, cached);
    free(line);
    free(t);
    http_auth_free(a);
    mcp_runtime_free(rt);
    jose_keyset_free(ks);
    mint_keys_clear(&k);
    return 0;
}
