/* jose.c: JWT / JWS parsing and JWKS keys on nettle and hogweed (jose.h).
 *
 * What this file does by itself is the framing: base64url, the three
 * parts, the header's rules, JWK members to numbers. Hashes and signature
 * checks are nettle's and hogweed's calls, named where they are made;
 * hogweed's (and GMP's) through the table of pklibs.h, loaded when the first
 * key set is read.
 */
#include "internal/jose.h"

#include "internal/pklibs.h"

#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- names */

static const struct {
    const char *name;
    unsigned bit;
} ALGS[] = {
    {"RS256", JOSE_RS256},
    {"PS256", JOSE_PS256},
    {"ES256", JOSE_ES256},
    {"EdDSA", JOSE_EDDSA},
};

unsigned jose_alg_from_name(const char *name)
{
    for (size_t i = 0; name && i < sizeof ALGS / sizeof *ALGS; i++)
        if (strcmp(name, ALGS[i].name) == 0)
            return ALGS[i].bit;
    return 0;
}

const char *jose_alg_name(unsigned alg)
{
    for (size_t i = 0; i < sizeof ALGS / sizeof *ALGS; i++)
        if (ALGS[i].bit == alg)
            return ALGS[i].name;
    return "?";
}

const char *jose_error_str(jose_err err)
{
    switch (err) {
    case JOSE_OK:
        return "ok";
    case JOSE_E_FORM:
        return "not a JWT: three base64url parts separated by dots";
    case JOSE_E_BASE64:
        return "malformed base64url";
    case JOSE_E_HEADER:
        return "the token's header is not a JSON object with an alg";
    case JOSE_E_PAYLOAD:
        return "the token's payload is not a JSON object";
    case JOSE_E_ALG:
        return "the token's algorithm is not allowed";
    case JOSE_E_CRIT:
        return "the token has critical header extensions";
    case JOSE_E_TYP:
        return "the token's typ is not JWT or at+jwt";
    case JOSE_E_KID:
        return "no known key has the token's kid";
    case JOSE_E_NO_KEY:
        return "no known key serves the token's algorithm";
    case JOSE_E_SIGNATURE:
        return "the token's signature does not verify";
    case JOSE_E_NOMEM:
        return "out of memory";
    }
    return "unknown error";
}

/* ---------------------------------------------------------------- base64url */

static int b64url_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '-')
        return 62;
    if (c == '_')
        return 63;
    return -1;
}

bool jose_b64url_decode(const char *text, size_t len, uint8_t *out, size_t *out_len)
{
    if (len % 4 == 1)
        return false;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64url_value((unsigned char)text[i]);
        if (v < 0)
            return false;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    if (acc != 0) /* the unused bits of the last character: a canonical encoding has zeros */
        return false;
    *out_len = o;
    return true;
}

/* A base64url part decoded into the arena (NUL-terminated, for JSON). */
static uint8_t *b64url_part(mcp_arena *a, const char *text, size_t len, size_t *out_len, jose_err *err)
{
    uint8_t *buf = mcp_arena_alloc(a, len / 4 * 3 + 3);
    if (!buf) {
        *err = JOSE_E_NOMEM;
        return NULL;
    }
    if (!jose_b64url_decode(text, len, buf, out_len)) {
        *err = JOSE_E_BASE64;
        return NULL;
    }
    buf[*out_len] = 0;
    return buf;
}

/* ---------------------------------------------------------------- tokens */

/* The limits a token's header and payload are parsed under: small
 * documents, never deep. */
static const mcp_json_limits TOKEN_JSON = {.max_depth = 16, .max_string = 8192, .max_array = 256, .max_values = 2048};

static const mcp_json *json_object(mcp_arena *a, const uint8_t *text, size_t len)
{
    const mcp_json *v = mcp_json_parse(a, (const char *)text, len, &TOKEN_JSON, NULL, NULL);
    return v && v->kind == MCP_JOBJECT ? v : NULL;
}

static const char *member_str(const mcp_json *o, const char *key)
{
    const mcp_json *v = mcp_json_get(o, key);
    return v && v->kind == MCP_JSTRING && !v->has_nul ? v->s : NULL;
}

/* The media types an access token may declare (RFC 9068 section 2.1; RFC
 * 7519 section 5.1 for "JWT"), compared without case. */
static bool typ_ok(const char *typ)
{
    static const char *const OK[] = {"JWT", "at+jwt", "application/at+jwt", "application/jwt"};
    for (size_t i = 0; i < sizeof OK / sizeof *OK; i++)
        if (strcasecmp(typ, OK[i]) == 0)
            return true;
    return false;
}

jose_err jose_jwt_parse(mcp_arena *a, const char *token, size_t len, unsigned allowed, jose_jwt *out)
{
    memset(out, 0, sizeof *out);
    const char *d1 = memchr(token, '.', len);
    const char *d2 = d1 ? memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - token)) : NULL;
    if (!d1 || !d2 || memchr(d2 + 1, '.', len - (size_t)(d2 + 1 - token)) || d1 == token || d2 == d1 + 1)
        return JOSE_E_FORM;
    jose_err err = JOSE_OK;
    size_t n;
    const uint8_t *h = b64url_part(a, token, (size_t)(d1 - token), &n, &err);
    if (!h)
        return err;
    out->header = json_object(a, h, n);
    if (!out->header)
        return JOSE_E_HEADER;
    const char *alg = member_str(out->header, "alg");
    if (!alg)
        return JOSE_E_HEADER;
    out->alg = jose_alg_from_name(alg);
    if (!(out->alg & allowed))
        return JOSE_E_ALG;
    if (mcp_json_get(out->header, "crit"))
        return JOSE_E_CRIT;
    const mcp_json *typ = mcp_json_get(out->header, "typ");
    if (typ && (typ->kind != MCP_JSTRING || typ->has_nul || !typ_ok(typ->s)))
        return JOSE_E_TYP;
    const mcp_json *kid = mcp_json_get(out->header, "kid");
    if (kid && (kid->kind != MCP_JSTRING || kid->has_nul))
        return JOSE_E_HEADER;
    out->kid = kid ? kid->s : NULL;
    const uint8_t *p = b64url_part(a, d1 + 1, (size_t)(d2 - d1 - 1), &n, &err);
    if (!p)
        return err;
    out->payload = json_object(a, p, n);
    if (!out->payload)
        return JOSE_E_PAYLOAD;
    size_t slen = len - (size_t)(d2 + 1 - token);
    uint8_t *sig = b64url_part(a, d2 + 1, slen, &out->sig_len, &err);
    if (!sig)
        return err;
    out->sig = sig;
    out->signed_part = token;
    out->signed_len = (size_t)(d2 - token);
    return JOSE_OK;
}

/* ---------------------------------------------------------------- keys */

typedef enum { KTY_RSA, KTY_EC, KTY_OKP } kty;

typedef struct jose_key {
    kty type;
    char *kid;     /* NULL when absent */
    unsigned algs; /* the algorithms this key may verify */
    struct rsa_public_key rsa;
    struct ecc_point ec;
    uint8_t ed[ED25519_KEY_SIZE];
} jose_key;

struct jose_keyset {
    size_t n;
    jose_key keys[];
};

static void key_clear(jose_key *k)
{
    if (k->type == KTY_RSA)
        rsa_public_key_clear(&k->rsa);
    else if (k->type == KTY_EC)
        ecc_point_clear(&k->ec);
    free(k->kid);
}

void jose_keyset_free(jose_keyset *ks)
{
    if (!ks)
        return;
    for (size_t i = 0; i < ks->n; i++)
        key_clear(&ks->keys[i]);
    free(ks);
}

size_t jose_keyset_count(const jose_keyset *ks) { return ks ? ks->n : 0; }

bool jose_keyset_has_kid(const jose_keyset *ks, const char *kid)
{
    for (size_t i = 0; ks && kid && i < ks->n; i++)
        if (ks->keys[i].kid && strcmp(ks->keys[i].kid, kid) == 0)
            return true;
    return false;
}

/* A JWK member holding a base64url number or point coordinate, into buf
 * (room for cap bytes): its length, or 0 when absent or malformed. */
static size_t key_bytes(const mcp_json *k, const char *name, uint8_t *buf, size_t cap)
{
    const mcp_json *v = mcp_json_get(k, name);
    if (!v || v->kind != MCP_JSTRING || v->len == 0 || v->len / 4 * 3 + 3 > cap)
        return 0;
    size_t n;
    return jose_b64url_decode(v->s, v->len, buf, &n) ? n : 0;
}

#define RSA_MIN_BITS 2048
#define RSA_MAX_BYTES 1024 /* 8192-bit moduli at most: the cost of a check stays small */

static const char *load_rsa(jose_key *k, const mcp_json *jwk)
{
    uint8_t n[RSA_MAX_BYTES + 8], e[16];
    size_t nl = key_bytes(jwk, "n", n, sizeof n), el = key_bytes(jwk, "e", e, sizeof e);
    if (!nl || !el)
        return "an RSA key without a valid n and e (or larger than 8192 bits)";
    if (el > 8)
        return "an RSA key with a public exponent longer than 64 bits";
    rsa_public_key_init(&k->rsa);
    k->type = KTY_RSA;
    nettle_mpz_set_str_256_u(k->rsa.n, nl, n);
    nettle_mpz_set_str_256_u(k->rsa.e, el, e);
    if (mpz_sizeinbase(k->rsa.n, 2) < RSA_MIN_BITS)
        return "an RSA key shorter than 2048 bits";
    if (!rsa_public_key_prepare(&k->rsa))
        return "an RSA key that nettle refuses";
    k->algs = JOSE_RS256 | JOSE_PS256;
    return NULL;
}

static const char *load_ec(jose_key *k, const mcp_json *jwk)
{
    const char *crv = member_str(jwk, "crv");
    if (!crv || strcmp(crv, "P-256") != 0)
        return "an EC key on a curve other than P-256";
    uint8_t x[40], y[40];
    if (key_bytes(jwk, "x", x, sizeof x) != 32 || key_bytes(jwk, "y", y, sizeof y) != 32)
        return "a P-256 key whose x or y is not 32 bytes";
    mpz_t mx, my;
    mpz_init(mx);
    mpz_init(my);
    nettle_mpz_set_str_256_u(mx, 32, x);
    nettle_mpz_set_str_256_u(my, 32, y);
    ecc_point_init(&k->ec, nettle_get_secp_256r1());
    k->type = KTY_EC;
    int on_curve = ecc_point_set(&k->ec, mx, my);
    mpz_clear(mx);
    mpz_clear(my);
    if (!on_curve)
        return "a P-256 key whose point is not on the curve";
    k->algs = JOSE_ES256;
    return NULL;
}

static const char *load_okp(jose_key *k, const mcp_json *jwk)
{
    const char *crv = member_str(jwk, "crv");
    if (!crv || strcmp(crv, "Ed25519") != 0)
        return "an OKP key on a curve other than Ed25519";
    uint8_t x[40];
    if (key_bytes(jwk, "x", x, sizeof x) != ED25519_KEY_SIZE)
        return "an Ed25519 key whose x is not 32 bytes";
    memcpy(k->ed, x, ED25519_KEY_SIZE);
    k->type = KTY_OKP;
    k->algs = JOSE_EDDSA;
    return NULL;
}

/* One JWK into k: NULL, or why it cannot be used (k then holds nothing). */
static const char *load_key(jose_key *k, const mcp_json *jwk)
{
    memset(k, 0, sizeof *k);
    k->type = KTY_OKP; /* holds nothing to clear until a loader sets its type */
    if (!jwk || jwk->kind != MCP_JOBJECT)
        return "a key that is not a JSON object";
    const char *use = member_str(jwk, "use");
    if (mcp_json_get(jwk, "use") && (!use || strcmp(use, "sig") != 0))
        return "a key whose use is not sig";
    const char *kty = member_str(jwk, "kty");
    const char *why;
    if (!kty)
        why = "a key without kty";
    else if (strcmp(kty, "RSA") == 0)
        why = load_rsa(k, jwk);
    else if (strcmp(kty, "EC") == 0)
        why = load_ec(k, jwk);
    else if (strcmp(kty, "OKP") == 0)
        why = load_okp(k, jwk);
    else
        why = "a key of a type other than RSA, EC or OKP (symmetric keys are never used)";
    if (!why) {
        const mcp_json *alg = mcp_json_get(jwk, "alg");
        if (alg) {
            unsigned a = alg->kind == MCP_JSTRING ? jose_alg_from_name(alg->s) : 0;
            if (!(a & k->algs))
                why = "a key whose alg is not RS256, PS256, ES256 or EdDSA, or does not fit its kty";
            else
                k->algs = a;
        }
    }
    const mcp_json *kid = mcp_json_get(jwk, "kid");
    if (!why && kid && (kid->kind != MCP_JSTRING || kid->has_nul))
        why = "a key whose kid is not a string";
    if (!why && kid && !(k->kid = strdup(kid->s)))
        why = "out of memory";
    if (why) {
        key_clear(k);
        memset(k, 0, sizeof *k);
    }
    return why;
}

jose_keyset *jose_keyset_parse(const char *text, size_t len, size_t *skipped, char *why, size_t why_len)
{
    size_t dummy;
    if (!skipped)
        skipped = &dummy;
    *skipped = 0;
    if (why_len)
        why[0] = 0;
    if (!pk_libs_load(why, why_len))
        return NULL;
    mcp_arena a;
    mcp_arena_init(&a);
    mcp_json_limits lim = {.max_depth = 8, .max_string = 1 << 16, .max_array = 1024, .max_values = 1 << 16};
    mcp_json_err jerr = MCP_JSON_OK;
    size_t off = 0;
    const mcp_json *doc = mcp_json_parse(&a, text, len, &lim, &jerr, &off);
    const mcp_json *keys = doc && doc->kind == MCP_JOBJECT ? mcp_json_get(doc, "keys") : NULL;
    jose_keyset *ks = NULL;
    if (!doc) {
        snprintf(why, why_len, "not JSON: %s at byte %zu", mcp_json_error_str(jerr), off);
        goto done;
    }
    if (!keys || keys->kind != MCP_JARRAY) {
        snprintf(why, why_len, "not a JWKS document: no \"keys\" array");
        goto done;
    }
    if (keys->n > JOSE_MAX_KEYS) {
        snprintf(why, why_len, "%zu keys: at most %d are taken", keys->n, JOSE_MAX_KEYS);
        goto done;
    }
    ks = malloc(sizeof *ks + keys->n * sizeof ks->keys[0]);
    if (!ks) {
        snprintf(why, why_len, "out of memory");
        goto done;
    }
    ks->n = 0;
    for (size_t i = 0; i < keys->n; i++) {
        const char *w = load_key(&ks->keys[ks->n], keys->items[i]);
        if (!w) {
            ks->n++;
        } else {
            if (*skipped == 0)
                snprintf(why, why_len, "key %zu skipped: %s", i, w);
            ++*skipped;
        }
    }
    if (ks->n == 0) {
        if (*skipped == 0)
            snprintf(why, why_len, "no keys");
        jose_keyset_free(ks);
        ks = NULL;
    }
done:
    mcp_arena_free(&a);
    return ks;
}

/* ---------------------------------------------------------------- verification */

static bool verify_rsa(const jose_key *k, unsigned alg, const uint8_t digest[SHA256_DIGEST_SIZE], const uint8_t *sig,
                       size_t sig_len)
{
    /* RFC 7518 section 3.3: the signature is exactly as long as the modulus. */
    if (sig_len != k->rsa.size)
        return false;
    mpz_t s;
    mpz_init(s);
    nettle_mpz_set_str_256_u(s, sig_len, sig);
    int ok = alg == JOSE_RS256 ? rsa_sha256_verify_digest(&k->rsa, digest, s)
                               : rsa_pss_sha256_verify_digest(&k->rsa, SHA256_DIGEST_SIZE, digest, s);
    mpz_clear(s);
    return ok == 1;
}

static bool verify_ec(const jose_key *k, const uint8_t digest[SHA256_DIGEST_SIZE], const uint8_t *sig, size_t sig_len)
{
    /* RFC 7518 section 3.4: R and S, 32 bytes each, not DER. */
    if (sig_len != 64)
        return false;
    struct dsa_signature rs;
    dsa_signature_init(&rs);
    nettle_mpz_set_str_256_u(rs.r, 32, sig);
    nettle_mpz_set_str_256_u(rs.s, 32, sig + 32);
    int ok = ecdsa_verify(&k->ec, SHA256_DIGEST_SIZE, digest, &rs);
    dsa_signature_clear(&rs);
    return ok == 1;
}

static bool verify_with(const jose_key *k, const jose_jwt *t, const uint8_t digest[SHA256_DIGEST_SIZE])
{
    switch (t->alg) {
    case JOSE_RS256:
    case JOSE_PS256:
        return verify_rsa(k, t->alg, digest, t->sig, t->sig_len);
    case JOSE_ES256:
        return verify_ec(k, digest, t->sig, t->sig_len);
    case JOSE_EDDSA:
        return t->sig_len == ED25519_SIGNATURE_SIZE &&
               ed25519_sha512_verify(k->ed, t->signed_len, (const uint8_t *)t->signed_part, t->sig) == 1;
    }
    return false;
}

jose_err jose_jwt_verify(const jose_jwt *t, const jose_keyset *ks)
{
    uint8_t digest[SHA256_DIGEST_SIZE];
    if (t->alg != JOSE_EDDSA) {
        struct sha256_ctx h;
        sha256_init(&h);
        sha256_update(&h, t->signed_len, (const uint8_t *)t->signed_part);
        sha256_digest(&h, sizeof digest, digest);
    }
    bool kid_seen = false, fitting = false;
    for (size_t i = 0; ks && i < ks->n; i++) {
        const jose_key *k = &ks->keys[i];
        if (t->kid) {
            if (!k->kid || strcmp(k->kid, t->kid) != 0)
                continue;
            kid_seen = true;
        }
        if (!(k->algs & t->alg))
            continue;
        fitting = true;
        if (verify_with(k, t, digest))
            return JOSE_OK;
    }
    if (t->kid && !kid_seen)
        return JOSE_E_KID;
    return fitting ? JOSE_E_SIGNATURE : JOSE_E_NO_KEY;
}
