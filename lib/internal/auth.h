/* auth.h (internal): the HTTP transport as an OAuth 2.1 resource server
 * (docs/auth.md).
 *
 * Every request to the MCP endpoint carries `Authorization: Bearer TOKEN`.
 * The token is a JWT verified with the keys of a JWKS document (a file, or
 * a URL fetched with libcurl and fetched again, at most once per
 * auth_jwks_refresh seconds, when a token names an unknown key), or an
 * opaque token checked by RFC 7662 introspection. Its claims must name the
 * configured issuer, this server's resource URI among the audiences, and a
 * time window that holds now (with a leeway). What the token proves becomes
 * an mcp_caller that the session hands to handlers.
 *
 * Answers (RFC 6750 section 3, RFC 9728 section 5.1): no bearer token, 401
 * with a challenge naming the resource metadata; a malformed header, 400
 * invalid_request; a token that does not verify, 401 invalid_token; a valid
 * token without a scope the request needs, 403 insufficient_scope with the
 * scopes it needs. The metadata document (RFC 9728) is served at
 * /.well-known/oauth-protected-resource and at that path followed by the
 * resource's path.
 *
 * Tokens are never logged and never appear in an answer. Verified tokens
 * are cached by their SHA-256 until they expire, so that a client's next
 * requests cost a hash and a lookup.
 */
#ifndef MCPIDL_INTERNAL_AUTH_H
#define MCPIDL_INTERNAL_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "internal/http_route.h"
#include "mcpidl/json.h"
#include "mcpidl/runtime.h"
#include "mcpidl/transport.h"

/* The longest token taken; a longer one is answered 401 invalid_token. */
#define AUTH_MAX_TOKEN 8192

typedef struct http_auth http_auth;

/* What a verified token proves, shared by the token cache and the requests
 * that use it (counted references). */
typedef struct auth_caller auth_caller;

/* Whether the options ask for authorization (an --auth-* option is set). */
bool http_auth_wanted(const mcp_options *o);

/* The resource server of rt's options: NULL, with why filled (a sentence),
 * when the settings are incomplete or inconsistent, or a key set or secret
 * cannot be loaded. A JWKS URL that cannot be fetched now is not an error:
 * it is logged, and fetched again when a token needs it. */
http_auth *http_auth_new(mcp_runtime *rt, char *why, size_t why_len);
void http_auth_free(http_auth *a);

/* Load the key set (a JWKS file or URL) again, now: for SIGHUP. Keeps the
 * keys it has when that fails (and logs why). */
void http_auth_reload(http_auth *a);

/* Whether the Host name (name[0..n), without port) is the resource URI's
 * host: a server reached under the name its resource URI says needs no
 * --allow-host for it. */
bool http_auth_host_ok(const http_auth *a, const char *name, size_t n);

/* A GET of the resource metadata document: true when rq's URL is one of its
 * paths, *out then holding the answer (the document, or 405). */
bool http_auth_metadata(const http_auth *a, const http_req *rq, http_resp *out);

/* The checks of the Authorization header that need no verification, for
 * the glue to run on the headers alone (a request without a token costs no
 * body): false when *out holds the answer (400 or 401). */
bool http_auth_precheck(const http_auth *a, const http_req *rq, http_resp *out);

/* Verify rq's bearer token: true with *who (a reference for the caller to
 * release with auth_caller_unref) when it is valid and holds every required
 * scope; false when *out holds the answer (400, 401, 403). */
bool http_auth_check(http_auth *a, const http_req *rq, http_resp *out, auth_caller **who);

/* Whether a parsed message needs a scope who does not hold (the IDL's
 * scopes of the items it names, mcp_message_scopes): true with *scopes
 * every scope the operation needs with the required ones, space separated
 * (malloc'd; NULL when out of memory, the refusal standing), for
 * http_auth_forbid; false, *scopes NULL, when who holds them all. */
bool http_auth_missing(const http_auth *a, const mcp_json *msg, const auth_caller *who, char **scopes);

/* *out becomes 403 insufficient_scope for `scopes` (space separated). */
void http_auth_forbid(const http_auth *a, http_resp *out, const char *scopes);

/* The mcp_caller a session hands to handlers. */
const mcp_caller *auth_caller_view(const auth_caller *c);
/* Who owns a session this caller starts: "iss sub" (empty without sub). */
const char *auth_caller_owner(const auth_caller *c);
auth_caller *auth_caller_ref(auth_caller *c);
/* NULL is a no-op. */
void auth_caller_unref(auth_caller *c);

/* The number of verifications done and of cache hits (tests, figures). */
void http_auth_counters(const http_auth *a, unsigned long *verified, unsigned long *cached);

#endif
