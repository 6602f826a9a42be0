/* jose.h (internal): JSON Web Tokens signed with JWS, and the JSON Web Key
 * sets that verify them (RFC 7519, 7515, 7517, 7518, 8037), as an OAuth
 * resource server needs them: public keys only, asymmetric algorithms only.
 *
 * Parsing and verifying are two steps: jose_jwt_parse() splits a compact
 * token, decodes its parts strictly (base64url without padding, JSON per
 * RFC 8259 with duplicate keys refused) and checks the header (an allowed
 * algorithm, no `crit` extension, a known `typ`); jose_jwt_verify() finds
 * the key and checks the signature. Neither looks at the claims: that is
 * the caller's policy (lib/transport/auth.c).
 *
 * The cryptography is nettle's and hogweed's (SHA-256, RSA PKCS #1 v1.5 and
 * PSS, ECDSA on P-256, Ed25519): nothing here computes a signature itself.
 * A key is usable for one family only (RSA keys for RS256 and PS256, P-256
 * keys for ES256, Ed25519 keys for EdDSA), and symmetric keys (`oct`) are
 * never loaded, so no token can make a public key serve as an HMAC secret.
 */
#ifndef MCPIDL_INTERNAL_JOSE_H
#define MCPIDL_INTERNAL_JOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcpidl/arena.h"
#include "mcpidl/json.h"

/* The signature algorithms, as a bit set (an allow-list). */
typedef enum jose_alg {
    JOSE_RS256 = 1 << 0, /* RSASSA-PKCS1-v1_5 with SHA-256 */
    JOSE_PS256 = 1 << 1, /* RSASSA-PSS with SHA-256, MGF1 SHA-256, 32-byte salt */
    JOSE_ES256 = 1 << 2, /* ECDSA on P-256 with SHA-256 */
    JOSE_EDDSA = 1 << 3, /* Ed25519 (RFC 8037) */
} jose_alg;

#define JOSE_ALGS_ALL (JOSE_RS256 | JOSE_PS256 | JOSE_ES256 | JOSE_EDDSA)

/* "RS256" and so on: the bit, or 0 for any other name ("none", "HS256"). */
unsigned jose_alg_from_name(const char *name);
const char *jose_alg_name(unsigned alg);

typedef enum jose_err {
    JOSE_OK = 0,
    JOSE_E_FORM,      /* not three base64url parts separated by dots */
    JOSE_E_BASE64,    /* a part is not base64url (padding, another alphabet, stray bits) */
    JOSE_E_HEADER,    /* the header is not a JSON object, or `alg` is missing */
    JOSE_E_PAYLOAD,   /* the payload is not a JSON object */
    JOSE_E_ALG,       /* the algorithm is not on the allow-list ("none", HMAC, ...) */
    JOSE_E_CRIT,      /* a `crit` header: extensions are not understood */
    JOSE_E_TYP,       /* a `typ` other than JWT or at+jwt */
    JOSE_E_KID,       /* no key has the token's `kid` */
    JOSE_E_NO_KEY,    /* no key of the set serves the token's algorithm */
    JOSE_E_SIGNATURE, /* the signature does not verify */
    JOSE_E_NOMEM,
} jose_err;

/* "the signature does not verify", ...; never NULL. */
const char *jose_error_str(jose_err err);

/* A parsed token; every pointer is into the arena or the token's text. */
typedef struct jose_jwt {
    const mcp_json *header;  /* an object */
    const mcp_json *payload; /* an object: the claims */
    unsigned alg;            /* one jose_alg bit */
    const char *kid;         /* NULL when absent */
    const char *signed_part; /* BASE64URL(header) "." BASE64URL(payload) */
    size_t signed_len;
    const uint8_t *sig;
    size_t sig_len;
} jose_jwt;

/* Split and decode a compact JWS of len bytes; the header's algorithm must
 * be in `allowed` (a set of jose_alg). Nothing is kept of the text but
 * pointers into it: it must outlive *out. */
jose_err jose_jwt_parse(mcp_arena *a, const char *token, size_t len, unsigned allowed, jose_jwt *out);

/* A set of public keys (a JWKS document). */
typedef struct jose_keyset jose_keyset;

/* Parse a JWKS document ({"keys": [...]}, at most JOSE_MAX_KEYS keys).
 * Keys that cannot be used (another `kty` or curve, `use` other than
 * "sig", an RSA modulus under 2048 bits, a point off the curve, an `alg`
 * this module does not verify) are skipped and counted in *skipped (may be
 * NULL), the first reason in why. NULL when the text is not a JWKS, no
 * key is usable, or hogweed cannot be loaded (pklibs.h): why (at least 160
 * bytes; 512 holds the loader's sentence whole) says what is wrong. */
#define JOSE_MAX_KEYS 64
jose_keyset *jose_keyset_parse(const char *text, size_t len, size_t *skipped, char *why, size_t why_len);
void jose_keyset_free(jose_keyset *ks);
size_t jose_keyset_count(const jose_keyset *ks);
/* Whether some key has this kid. */
bool jose_keyset_has_kid(const jose_keyset *ks, const char *kid);

/* Check t's signature with the key its `kid` names (or, without a kid,
 * with each key of the right type in turn). */
jose_err jose_jwt_verify(const jose_jwt *t, const jose_keyset *ks);

/* base64url without padding (RFC 7515 section 2), strict: no '=', no
 * whitespace, unused bits zero. The decoded bytes go to `out` (room for
 * len * 3 / 4 bytes); false when the text is not base64url. */
bool jose_b64url_decode(const char *text, size_t len, uint8_t *out, size_t *out_len);

#endif
