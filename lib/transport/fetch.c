/* fetch.c: outgoing HTTP(S) requests with libcurl, loaded on first use
 * (fetch.h says why).
 *
 * The program is compiled against curl's headers, for the types and the
 * constants, but not linked with libcurl: the functions it calls are looked
 * up with dlsym() into a table (curl_fns) filled once (dyn_load), by
 * the first caller of fetch_load(). libcurl stays loaded and initialised for
 * the rest of the process: curl_global_cleanup() and dlclose() would race
 * with a fetch on another thread, and the memory they would give back is
 * small.
 */
#define _GNU_SOURCE
#include "internal/fetch.h"

#include "internal/dynlib.h"

#include <curl/curl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpidl/mcpidl.h"

#ifndef MCPIDL_LIBCURL_SONAME
#error "MCPIDL_LIBCURL_SONAME (the file name of libcurl to load) comes from the build"
#endif

/* Every libcurl function used. The fields have names of their own because
 * curl.h defines some of the symbols as function-like macros too (its type
 * checks); __typeof__ keeps their types those of curl.h's declarations. */
typedef struct curl_fns {
    __typeof__(curl_global_init) *global_init;
    __typeof__(curl_easy_init) *easy_init;
    __typeof__(curl_easy_setopt) *easy_setopt;
    __typeof__(curl_easy_perform) *easy_perform;
    __typeof__(curl_easy_getinfo) *easy_getinfo;
    __typeof__(curl_easy_cleanup) *easy_cleanup;
    __typeof__(curl_easy_strerror) *easy_strerror;
    __typeof__(curl_easy_escape) *easy_escape;
    __typeof__(curl_free) *free;
    __typeof__(curl_slist_append) *slist_append;
    __typeof__(curl_slist_free_all) *slist_free_all;
} curl_fns;

/* Where load() puts each symbol dlsym() finds. */
static const dyn_symbol CURL_SYMBOLS[] = {
    {"curl_global_init", offsetof(curl_fns, global_init)},
    {"curl_easy_init", offsetof(curl_fns, easy_init)},
    {"curl_easy_setopt", offsetof(curl_fns, easy_setopt)},
    {"curl_easy_perform", offsetof(curl_fns, easy_perform)},
    {"curl_easy_getinfo", offsetof(curl_fns, easy_getinfo)},
    {"curl_easy_cleanup", offsetof(curl_fns, easy_cleanup)},
    {"curl_easy_strerror", offsetof(curl_fns, easy_strerror)},
    {"curl_easy_escape", offsetof(curl_fns, easy_escape)},
    {"curl_free", offsetof(curl_fns, free)},
    {"curl_slist_append", offsetof(curl_fns, slist_append)},
    {"curl_slist_free_all", offsetof(curl_fns, slist_free_all)},
};

static curl_fns curl;

/* libcurl's global start, once, after its functions are found. */
static bool curl_ready(dyn_library *l)
{
    CURLcode rc = curl.global_init(CURL_GLOBAL_DEFAULT);
    if (rc == CURLE_OK)
        return true;
    const char *f = secure_getenv(l->env);
    snprintf(l->error, sizeof l->error, "libcurl (%s) cannot start: %s", f && *f ? f : l->soname,
             curl.easy_strerror(rc));
    return false;
}

static dyn_library curl_lib = {.what = "libcurl",
                               .env = "MCPIDL_TEST_LIBCURL",
                               .soname = MCPIDL_LIBCURL_SONAME,
                               .install = "install it",
                               .symbols = CURL_SYMBOLS,
                               .nsymbols = sizeof CURL_SYMBOLS / sizeof CURL_SYMBOLS[0],
                               .table = &curl,
                               .ready = curl_ready};

bool fetch_load(char *why, size_t why_len) { return dyn_load(&curl_lib, why, why_len); }

typedef struct fetched {
    char *p;
    size_t n, cap, max;
    bool over;
} fetched;

static size_t on_fetch_data(char *ptr, size_t size, size_t nmemb, void *ud)
{
    fetched *f = ud;
    size_t n = size * nmemb;
    if (f->over || n > f->max - f->n) {
        f->over = true;
        return 0; /* ends the transfer */
    }
    if (f->n + n + 1 > f->cap) {
        size_t cap = f->cap ? f->cap : 4096;
        while (cap < f->n + n + 1)
            cap *= 2;
        char *p = realloc(f->p, cap);
        if (!p) {
            f->over = true;
            return 0;
        }
        f->p = p;
        f->cap = cap;
    }
    memcpy(f->p + f->n, ptr, n);
    f->n += n;
    f->p[f->n] = 0;
    return n;
}

char *fetch_url(const char *url, const char *form, const char *user, const char *pass, const fetch_limits *lim,
                size_t *len, char *why, size_t why_len)
{
    CURL *c = curl.easy_init();
    if (!c) {
        snprintf(why, why_len, "libcurl cannot start");
        return NULL;
    }
    fetched f = {.max = lim->max_bytes};
    curl.easy_setopt(c, CURLOPT_URL, url);
    curl.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(c, CURLOPT_TIMEOUT, lim->timeout_seconds);
    curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT, lim->timeout_seconds);
    curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_fetch_data);
    curl.easy_setopt(c, CURLOPT_WRITEDATA, &f);
    curl.easy_setopt(c, CURLOPT_USERAGENT, "mcpidl/" MCPIDL_VERSION);
    struct curl_slist *hdr = curl.slist_append(NULL, "Accept: application/json");
    curl.easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    if (form) {
        curl.easy_setopt(c, CURLOPT_POSTFIELDS, form);
        curl.easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl.easy_setopt(c, CURLOPT_USERNAME, user);
        curl.easy_setopt(c, CURLOPT_PASSWORD, pass);
    }
    CURLcode rc = curl.easy_perform(c);
    long status = 0;
    curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl.slist_free_all(hdr);
    curl.easy_cleanup(c);
    if (f.over)
        snprintf(why, why_len, "the answer is larger than %zu bytes", lim->max_bytes);
    else if (rc != CURLE_OK)
        snprintf(why, why_len, "%s", curl.easy_strerror(rc));
    else if (status != 200)
        snprintf(why, why_len, "HTTP status %ld", status);
    else {
        *len = f.n;
        if (!f.p)
            f.p = calloc(1, 1);
        return f.p;
    }
    free(f.p);
    return NULL;
}

char *fetch_escape(const char *s)
{
    CURL *e = curl.easy_init();
    char *esc = e ? curl.easy_escape(e, s, 0) : NULL;
    char *out = esc ? strdup(esc) : NULL;
    curl.free(esc);
    if (e)
        curl.easy_cleanup(e);
    return out;
}
