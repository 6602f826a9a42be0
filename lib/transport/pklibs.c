/* pklibs.c: hogweed and GMP, loaded with dlopen() when a key set is first
 * read (pklibs.h says why).
 *
 * The table is filled once, by the first caller (dyn_load), and the
 * library stays loaded for the rest of the process: the keys of a set hold
 * its numbers. hogweed links GMP, so opening hogweed maps both, and dlsym()
 * on hogweed's handle finds GMP's functions too (it searches the library's
 * dependencies).
 */
#define MCPIDL_PKLIBS_TABLE
#include "internal/pklibs.h"

#include "internal/dynlib.h"


#ifndef MCPIDL_HOGWEED_SONAME
#error "MCPIDL_HOGWEED_SONAME (the file name of hogweed to load) comes from the build"
#endif
#ifndef MCPIDL_HOGWEED_INSTALL
#define MCPIDL_HOGWEED_INSTALL "install it"
#endif

pk_fns pk_hogweed;

static const dyn_symbol PK_SYMBOLS[] = {
    {"nettle_rsa_public_key_init", offsetof(pk_fns, rsa_public_key_init)},
    {"nettle_rsa_public_key_clear", offsetof(pk_fns, rsa_public_key_clear)},
    {"nettle_rsa_public_key_prepare", offsetof(pk_fns, rsa_public_key_prepare)},
    {"nettle_rsa_sha256_verify_digest", offsetof(pk_fns, rsa_sha256_verify_digest)},
    {"nettle_rsa_pss_sha256_verify_digest", offsetof(pk_fns, rsa_pss_sha256_verify_digest)},
    {"nettle_mpz_set_str_256_u", offsetof(pk_fns, mpz_set_str_256_u)},
    {"nettle_ecc_point_init", offsetof(pk_fns, ecc_point_init)},
    {"nettle_ecc_point_set", offsetof(pk_fns, ecc_point_set)},
    {"nettle_ecc_point_clear", offsetof(pk_fns, ecc_point_clear)},
    {"nettle_get_secp_256r1", offsetof(pk_fns, get_secp_256r1)},
    {"nettle_ecdsa_verify", offsetof(pk_fns, ecdsa_verify)},
    {"nettle_dsa_signature_init", offsetof(pk_fns, dsa_signature_init)},
    {"nettle_dsa_signature_clear", offsetof(pk_fns, dsa_signature_clear)},
    {"nettle_ed25519_sha512_verify", offsetof(pk_fns, ed25519_sha512_verify)},
    {"__gmpz_init", offsetof(pk_fns, gmpz_init)},
    {"__gmpz_clear", offsetof(pk_fns, gmpz_clear)},
    {"__gmpz_sizeinbase", offsetof(pk_fns, gmpz_sizeinbase)},
};

static dyn_library hogweed_lib = {.what = "hogweed",
                                  .env = "MCPIDL_TEST_HOGWEED",
                                  .soname = MCPIDL_HOGWEED_SONAME,
                                  .install = MCPIDL_HOGWEED_INSTALL,
                                  .symbols = PK_SYMBOLS,
                                  .nsymbols = sizeof PK_SYMBOLS / sizeof PK_SYMBOLS[0],
                                  .table = &pk_hogweed};

bool pk_libs_load(char *why, size_t why_len) { return dyn_load(&hogweed_lib, why, why_len); }
