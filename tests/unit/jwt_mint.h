/* jwt_mint.h: the authorization server's side of the token tests: key pairs
 * (RSA 2048, P-256, Ed25519) made with hogweed from a seeded generator, their
 * JWKS text, and signed compact JWTs, all with nettle's own primitives.
 * Tests only: the generator (knuth-lfib) is deterministic, not a source of
 * secrets. */
#ifndef MCPIDL_TESTS_JWT_MINT_H
#define MCPIDL_TESTS_JWT_MINT_H

#include <gmp.h>
#include <nettle/bignum.h>
#include <nettle/dsa.h>
#include <nettle/ecc-curve.h>
#include <nettle/ecc.h>
#include <nettle/ecdsa.h>
#include <nettle/eddsa.h>
#include <nettle/hmac.h>
#include <nettle/knuth-lfib.h>
#include <nettle/rsa.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mint_keys {
    struct knuth_lfib_ctx rnd;
    struct rsa_public_key rsa_pub;
    struct rsa_private_key rsa_priv;
    struct ecc_point ec_pub;
    struct ecc_scalar ec_priv;
    uint8_t ed_priv[32], ed_pub[32];
} mint_keys;

static void mint_random(void *ctx, size_t n, uint8_t *dst) { knuth_lfib_random(ctx, n, dst); }

static inline void mint_keys_init(mint_keys *k, uint32_t seed)
{
    knuth_lfib_init(&k->rnd, seed);
    rsa_public_key_init(&k->rsa_pub);
    rsa_private_key_init(&k->rsa_priv);
    mpz_set_ui(k->rsa_pub.e, 65537);
    if (!rsa_generate_keypair(&k->rsa_pub, &k->rsa_priv, &k->rnd, mint_random, NULL, NULL, 2048, 0))
        abort();
    ecc_point_init(&k->ec_pub, nettle_get_secp_256r1());
    ecc_scalar_init(&k->ec_priv, nettle_get_secp_256r1());
    ecdsa_generate_keypair(&k->ec_pub, &k->ec_priv, &k->rnd, mint_random);
    knuth_lfib_random(&k->rnd, 32, k->ed_priv);
    ed25519_sha512_public_key(k->ed_pub, k->ed_priv);
}

static inline void mint_keys_clear(mint_keys *k)
{
    rsa_public_key_clear(&k->rsa_pub);
    rsa_private_key_clear(&k->rsa_priv);
    ecc_point_clear(&k->ec_pub);
    ecc_scalar_clear(&k->ec_priv);
}

/* base64url without padding of n bytes, appended to out (room enough). */
static inline void mint_b64(char *out, const uint8_t *p, size_t n)
{
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char *o = out + strlen(out);
    size_t i = 0;
    for (; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *o++ = A[v >> 18];
        *o++ = A[(v >> 12) & 63];
        *o++ = A[(v >> 6) & 63];
        *o++ = A[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        *o++ = A[v >> 18];
        *o++ = A[(v >> 12) & 63];
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        *o++ = A[v >> 18];
        *o++ = A[(v >> 12) & 63];
        *o++ = A[(v >> 6) & 63];
    }
    *o = 0;
}

static inline void mint_b64_mpz(char *out, const mpz_t x, size_t len)
{
    uint8_t buf[512];
    if (!len)
        len = nettle_mpz_sizeinbase_256_u(x);
    nettle_mpz_get_str_256(len, buf, x);
    mint_b64(out, buf, len);
}

/* The JWKS of the three public keys, with kids "rsa", "ec", "ed" (each
 * name prefixed with `prefix`), into out (8 KiB). */
static inline void mint_jwks(const mint_keys *k, const char *prefix, char *out)
{
    char n[600] = "", e[16] = "", x[64] = "", y[64] = "", ed[64] = "";
    mint_b64_mpz(n, k->rsa_pub.n, 0);
    mint_b64_mpz(e, k->rsa_pub.e, 0);
    mpz_t mx, my;
    mpz_init(mx);
    mpz_init(my);
    ecc_point_get(&k->ec_pub, mx, my);
    mint_b64_mpz(x, mx, 32);
    mint_b64_mpz(y, my, 32);
    mpz_clear(mx);
    mpz_clear(my);
    mint_b64(ed, k->ed_pub, 32);
    snprintf(out, 8192,
             "{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"%srsa\",\"use\":\"sig\",\"n\":\"%s\",\"e\":\"%s\"},"
             "{\"kty\":\"EC\",\"kid\":\"%sec\",\"crv\":\"P-256\",\"x\":\"%s\",\"y\":\"%s\"},"
             "{\"kty\":\"OKP\",\"kid\":\"%sed\",\"crv\":\"Ed25519\",\"x\":\"%s\"}]}",
             prefix, n, e, prefix, x, y, prefix, ed);
}

/* A compact JWT: header {"alg":ALG,"typ":"JWT"[,"kid":KID]} (or `header`
 * itself when not NULL), payload `claims`, signed with the key for ALG
 * ("RS256", "PS256", "ES256", "EdDSA"; "HS256" with hmac_key; "none":
 * no signature). malloc'd. */
static inline char *mint_jwt(mint_keys *k, const char *alg, const char *kid, const char *header, const char *claims,
                             const char *hmac_key)
{
    char hdr[512];
    if (header)
        snprintf(hdr, sizeof hdr, "%s", header);
    else if (kid)
        snprintf(hdr, sizeof hdr, "{\"alg\":\"%s\",\"typ\":\"JWT\",\"kid\":\"%s\"}", alg, kid);
    else
        snprintf(hdr, sizeof hdr, "{\"alg\":\"%s\",\"typ\":\"JWT\"}", alg);
    size_t cl = strlen(claims);
    char *t = calloc(1, (strlen(hdr) + cl) * 2 + 1024);
    mint_b64(t, (const uint8_t *)hdr, strlen(hdr));
    strcat(t, ".");
    mint_b64(t, (const uint8_t *)claims, cl);
    size_t signed_len = strlen(t);
    uint8_t digest[SHA256_DIGEST_SIZE];
    struct sha256_ctx h;
    sha256_init(&h);
    sha256_update(&h, signed_len, (const uint8_t *)t);
    sha256_digest(&h, sizeof digest, digest);
    uint8_t sig[512];
    size_t sl = 0;
    if (strcmp(alg, "RS256") == 0 || strcmp(alg, "PS256") == 0) {
        mpz_t s;
        mpz_init(s);
        int ok = strcmp(alg, "RS256") == 0
                     ? rsa_sha256_sign_digest_tr(&k->rsa_pub, &k->rsa_priv, &k->rnd, mint_random, digest, s)
                     : rsa_pss_sha256_sign_digest_tr(&k->rsa_pub, &k->rsa_priv, &k->rnd, mint_random, 32,
                                                     (const uint8_t *)"0123456789abcdef0123456789abcdef", digest, s);
        if (!ok)
            abort();
        sl = k->rsa_pub.size;
        nettle_mpz_get_str_256(sl, sig, s);
        mpz_clear(s);
    } else if (strcmp(alg, "ES256") == 0) {
        struct dsa_signature rs;
        dsa_signature_init(&rs);
        ecdsa_sign(&k->ec_priv, &k->rnd, mint_random, sizeof digest, digest, &rs);
        nettle_mpz_get_str_256(32, sig, rs.r);
        nettle_mpz_get_str_256(32, sig + 32, rs.s);
        dsa_signature_clear(&rs);
        sl = 64;
    } else if (strcmp(alg, "EdDSA") == 0) {
        ed25519_sha512_sign(k->ed_pub, k->ed_priv, signed_len, (const uint8_t *)t, sig);
        sl = 64;
    } else if (strcmp(alg, "HS256") == 0) {
        struct hmac_sha256_ctx m;
        hmac_sha256_set_key(&m, strlen(hmac_key), (const uint8_t *)hmac_key);
        hmac_sha256_update(&m, signed_len, (const uint8_t *)t);
        hmac_sha256_digest(&m, SHA256_DIGEST_SIZE, sig);
        sl = SHA256_DIGEST_SIZE;
    }
    strcat(t, ".");
    mint_b64(t, sig, sl);
    return t;
}

#endif
