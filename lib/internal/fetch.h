/* fetch.h (internal): outgoing HTTP(S) requests of the HTTP transport, with
 * libcurl loaded on first use.
 *
 * Only authorization fetches anything (a JWKS URL, an introspection
 * endpoint), and most servers never do: libcurl, with the two dozen
 * libraries it brings (Kerberos, LDAP, SSH, ...), costs a server that links
 * it several milliseconds of start-up in loading and constructors. So the
 * transport does not link it: fetch_load() opens it with dlopen() the first
 * time it is needed, and a server that never fetches never maps it.
 *
 * The file opened is libcurl's SONAME, found by the build from the libcurl
 * it was compiled against (MCPIDL_LIBCURL_SONAME); the environment variable
 * MCPIDL_TEST_LIBCURL replaces it, for the tests of a library that cannot be
 * loaded (docs/build.md).
 */
#ifndef MCPIDL_INTERNAL_FETCH_H
#define MCPIDL_INTERNAL_FETCH_H

#include <stdbool.h>
#include <stddef.h>

/* Load libcurl and initialise it, once per process (thread-safe): true when
 * it is there, else false with why filled (a sentence naming the file tried
 * and the loader's reason). Every later call gives the same verdict. */
bool fetch_load(char *why, size_t why_len);

/* The bounds of every request of fetch_url. */
typedef struct fetch_limits {
    long timeout_seconds; /* to connect, and for the whole transfer */
    size_t max_bytes;     /* a longer answer is an error */
} fetch_limits;

/* GET url, or POST the form `form` to it with HTTP Basic credentials
 * user:pass (form NULL: GET): the body of a 200 answer, malloc'd and
 * NUL-terminated, its length in *len; or NULL with why filled. Needs a
 * successful fetch_load(). No redirects; http and https only. */
char *fetch_url(const char *url, const char *form, const char *user, const char *pass, const fetch_limits *lim,
                size_t *len, char *why, size_t why_len);

/* s percent-encoded for a form value (RFC 3986 unreserved characters kept),
 * malloc'd; NULL when out of memory. Needs a successful fetch_load(). */
char *fetch_escape(const char *s);

#endif
