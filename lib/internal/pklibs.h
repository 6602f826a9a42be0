/* pklibs.h (internal): hogweed and GMP, the public-key libraries with
 * which jose.c checks JWT signatures, loaded when a key set is first read.
 *
 * libmcpidl-http does not link them: only a server that verifies JWTs
 * (--auth-jwks) calls them, and mapping two more libraries would cost every
 * start of a server linked with the HTTP transport their loading and
 * relocation, a stdio server's above all (over HTTP, GnuTLS, which
 * libmicrohttpd links, maps them anyway). pk_libs_load() opens hogweed with
 * dlopen() (GMP comes with it, as its dependency) and looks up each function
 * called into a table.
 *
 * This header is what jose.c includes instead of <gmp.h> and hogweed's
 * headers: after them (for the types and the constants), it maps each
 * function called to a pointer of the table, so that the call sites read as
 * calls of the libraries' functions. Only after a successful load may they be
 * called. nettle itself (SHA-256) stays linked: libmcpidl uses it too.
 *
 * The file opened is the SONAME the build found (MCPIDL_HOGWEED_SONAME); the
 * environment variable MCPIDL_TEST_HOGWEED replaces it, for the tests of a
 * library that cannot be loaded (docs/build.md).
 */
#ifndef MCPIDL_INTERNAL_PKLIBS_H
#define MCPIDL_INTERNAL_PKLIBS_H

#include <stdbool.h>
#include <stddef.h>

#include <gmp.h>
#include <nettle/bignum.h>
#include <nettle/dsa.h>
#include <nettle/ecc-curve.h>
#include <nettle/ecc.h>
#include <nettle/ecdsa.h>
#include <nettle/eddsa.h>
#include <nettle/rsa.h>

/* Load hogweed, once per process (thread-safe): true when it is there,
 * else false with why filled (a sentence naming the file tried, the
 * loader's reason and the package to install). Later calls give the same
 * verdict. */
bool pk_libs_load(char *why, size_t why_len);

/* nettle's and GMP's headers name their functions by macros (rsa_public_key_init
 * is nettle_rsa_public_key_init): those go, so that the table's members and the
 * call sites below can use the short names. */
#undef rsa_public_key_init
#undef rsa_public_key_clear
#undef rsa_public_key_prepare
#undef rsa_sha256_verify_digest
#undef rsa_pss_sha256_verify_digest
#undef ecc_point_init
#undef ecc_point_set
#undef ecc_point_clear
#undef ecdsa_verify
#undef dsa_signature_init
#undef dsa_signature_clear
#undef ed25519_sha512_verify
#undef mpz_init
#undef mpz_clear
#undef mpz_sizeinbase

/* Every function of hogweed and GMP called, by its exported name. */
typedef struct pk_fns {
    __typeof__(nettle_rsa_public_key_init) *rsa_public_key_init;
    __typeof__(nettle_rsa_public_key_clear) *rsa_public_key_clear;
    __typeof__(nettle_rsa_public_key_prepare) *rsa_public_key_prepare;
    __typeof__(nettle_rsa_sha256_verify_digest) *rsa_sha256_verify_digest;
    __typeof__(nettle_rsa_pss_sha256_verify_digest) *rsa_pss_sha256_verify_digest;
    __typeof__(nettle_mpz_set_str_256_u) *mpz_set_str_256_u;
    __typeof__(nettle_ecc_point_init) *ecc_point_init;
    __typeof__(nettle_ecc_point_set) *ecc_point_set;
    __typeof__(nettle_ecc_point_clear) *ecc_point_clear;
    __typeof__(nettle_get_secp_256r1) *get_secp_256r1;
    __typeof__(nettle_ecdsa_verify) *ecdsa_verify;
    __typeof__(nettle_dsa_signature_init) *dsa_signature_init;
    __typeof__(nettle_dsa_signature_clear) *dsa_signature_clear;
    __typeof__(nettle_ed25519_sha512_verify) *ed25519_sha512_verify;
    __typeof__(__gmpz_init) *gmpz_init;
    __typeof__(__gmpz_clear) *gmpz_clear;
    __typeof__(__gmpz_sizeinbase) *gmpz_sizeinbase;
} pk_fns;

extern pk_fns pk_hogweed;

/* Each name becomes its pointer, except in pklibs.c, which fills the table
 * (offsetof needs the members' own names). */
#ifndef MCPIDL_PKLIBS_TABLE
/* NOLINTBEGIN(bugprone-macro-parentheses) */
#define rsa_public_key_init (*pk_hogweed.rsa_public_key_init)
#define rsa_public_key_clear (*pk_hogweed.rsa_public_key_clear)
#define rsa_public_key_prepare (*pk_hogweed.rsa_public_key_prepare)
#define rsa_sha256_verify_digest (*pk_hogweed.rsa_sha256_verify_digest)
#define rsa_pss_sha256_verify_digest (*pk_hogweed.rsa_pss_sha256_verify_digest)
#define nettle_mpz_set_str_256_u (*pk_hogweed.mpz_set_str_256_u)
#define ecc_point_init (*pk_hogweed.ecc_point_init)
#define ecc_point_set (*pk_hogweed.ecc_point_set)
#define ecc_point_clear (*pk_hogweed.ecc_point_clear)
#define nettle_get_secp_256r1 (*pk_hogweed.get_secp_256r1)
#define ecdsa_verify (*pk_hogweed.ecdsa_verify)
#define dsa_signature_init (*pk_hogweed.dsa_signature_init)
#define dsa_signature_clear (*pk_hogweed.dsa_signature_clear)
#define ed25519_sha512_verify (*pk_hogweed.ed25519_sha512_verify)
#define mpz_init (*pk_hogweed.gmpz_init)
#define mpz_clear (*pk_hogweed.gmpz_clear)
#define mpz_sizeinbase (*pk_hogweed.gmpz_sizeinbase)
/* NOLINTEND(bugprone-macro-parentheses) */
#endif

#endif
