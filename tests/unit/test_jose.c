/* test_jose.c: JWT / JWS parsing and verification, and JWKS documents
 * (lib/transport/jose.c), with keys and tokens made by jwt_mint.h. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "internal/jose.h"
#include "jwt_mint.h"

static mint_keys K;
static char JWKS[8192];
static jose_keyset *KS;

static const char CLAIMS[] = "{\"iss\":\"https://as.example\",\"sub\":\"alice\",\"aud\":\"https://rs.example/mcp\","
                             "\"exp\":4102444800,\"scope\":\"a b\"}";

static void setup(void)
{
    static bool made;
    if (!made) {
        mint_keys_init(&K, 13);
        mint_jwks(&K, "", JWKS);
        made = true;
    }
    size_t skipped = 9;
    char why[256];
    KS = jose_keyset_parse(JWKS, strlen(JWKS), &skipped, why, sizeof why);
    ck_assert_msg(KS != NULL, "%s", why);
    ck_assert_msg(skipped == 0, "%s", why);
}

static void teardown(void) { jose_keyset_free(KS); }

/* Parse and verify a token: the first error. */
static jose_err check_token(const char *tok, unsigned allowed)
{
    mcp_arena a;
    mcp_arena_init(&a);
    jose_jwt t;
    jose_err e = jose_jwt_parse(&a, tok, strlen(tok), allowed, &t);
    if (e == JOSE_OK)
        e = jose_jwt_verify(&t, KS);
    mcp_arena_free(&a);
    return e;
}

START_TEST(b64url_strict)
{
    uint8_t out[16];
    size_t n;
    ck_assert(jose_b64url_decode("YWJj", 4, out, &n) && n == 3 && memcmp(out, "abc", 3) == 0);
    ck_assert(jose_b64url_decode("YWI", 3, out, &n) && n == 2);
    ck_assert(jose_b64url_decode("", 0, out, &n) && n == 0);
    ck_assert(!jose_b64url_decode("YWI=", 4, out, &n)); /* padding */
    ck_assert(!jose_b64url_decode("Y+I", 3, out, &n));  /* the other alphabet */
    ck_assert(!jose_b64url_decode("YWJ", 3, out, &n));  /* stray bits: 'J' leaves 01 unused */
    ck_assert(!jose_b64url_decode("Y", 1, out, &n));    /* no length is 1 mod 4 */
    ck_assert(!jose_b64url_decode("YW I", 4, out, &n)); /* whitespace */
}
END_TEST

START_TEST(every_algorithm_verifies)
{
    static const struct {
        const char *alg, *kid;
    } CASES[] = {{"RS256", "rsa"}, {"PS256", "rsa"}, {"ES256", "ec"}, {"EdDSA", "ed"},
                 {"RS256", NULL},  {"ES256", NULL},  {"EdDSA", NULL}};
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        char *t = mint_jwt(&K, CASES[i].alg, CASES[i].kid, NULL, CLAIMS, NULL);
        ck_assert_msg(check_token(t, JOSE_ALGS_ALL) == JOSE_OK, "%s kid %s", CASES[i].alg,
                      CASES[i].kid ? CASES[i].kid : "(none)");
        /* Each algorithm can be left out of the allow-list. */
        unsigned bit = jose_alg_from_name(CASES[i].alg);
        ck_assert_int_eq(check_token(t, JOSE_ALGS_ALL & ~bit), JOSE_E_ALG);
        /* One flipped bit of the signature, or of the claims. */
        char *dot = strrchr(t, '.');
        dot[3] = dot[3] == 'A' ? 'B' : 'A';
        ck_assert_int_eq(check_token(t, JOSE_ALGS_ALL), JOSE_E_SIGNATURE);
        free(t);
    }
}
END_TEST

START_TEST(algorithms_refused)
{
    /* none, and HMAC keyed with the public key's JWKS text: never verified. */
    char *none = mint_jwt(&K, "none", "rsa", NULL, CLAIMS, NULL);
    ck_assert_int_eq(check_token(none, JOSE_ALGS_ALL), JOSE_E_ALG);
    char *hs = mint_jwt(&K, "HS256", "rsa", NULL, CLAIMS, JWKS);
    ck_assert_int_eq(check_token(hs, JOSE_ALGS_ALL), JOSE_E_ALG);
    /* A token whose alg names a family its kid's key is not of. */
    char *mixed = mint_jwt(&K, "RS256", "ec", NULL, CLAIMS, NULL);
    ck_assert_int_eq(check_token(mixed, JOSE_ALGS_ALL), JOSE_E_NO_KEY);
    char *unknown = mint_jwt(&K, "RS256", "nope", NULL, CLAIMS, NULL);
    ck_assert_int_eq(check_token(unknown, JOSE_ALGS_ALL), JOSE_E_KID);
    free(none);
    free(hs);
    free(mixed);
    free(unknown);
}
END_TEST

START_TEST(header_rules)
{
    char *crit = mint_jwt(&K, "RS256", NULL, "{\"alg\":\"RS256\",\"crit\":[\"b64\"],\"b64\":false}", CLAIMS, NULL);
    ck_assert_int_eq(check_token(crit, JOSE_ALGS_ALL), JOSE_E_CRIT);
    char *typ = mint_jwt(&K, "RS256", NULL, "{\"alg\":\"RS256\",\"typ\":\"dpop+jwt\"}", CLAIMS, NULL);
    ck_assert_int_eq(check_token(typ, JOSE_ALGS_ALL), JOSE_E_TYP);
    char *at = mint_jwt(&K, "RS256", NULL, "{\"alg\":\"RS256\",\"typ\":\"at+jwt\"}", CLAIMS, NULL);
    ck_assert_int_eq(check_token(at, JOSE_ALGS_ALL), JOSE_OK);
    char *dup = mint_jwt(&K, "RS256", NULL, "{\"alg\":\"none\",\"alg\":\"RS256\"}", CLAIMS, NULL);
    ck_assert_int_eq(check_token(dup, JOSE_ALGS_ALL), JOSE_E_HEADER);
    char *noalg = mint_jwt(&K, "RS256", NULL, "{\"typ\":\"JWT\"}", CLAIMS, NULL);
    ck_assert_int_eq(check_token(noalg, JOSE_ALGS_ALL), JOSE_E_HEADER);
    char *arr = mint_jwt(&K, "RS256", NULL, "[\"RS256\"]", CLAIMS, NULL);
    ck_assert_int_eq(check_token(arr, JOSE_ALGS_ALL), JOSE_E_HEADER);
    char *payload = mint_jwt(&K, "RS256", NULL, NULL, "[1]", NULL);
    ck_assert_int_eq(check_token(payload, JOSE_ALGS_ALL), JOSE_E_PAYLOAD);
    free(crit);
    free(typ);
    free(at);
    free(dup);
    free(noalg);
    free(arr);
    free(payload);
}
END_TEST

START_TEST(forms_refused)
{
    static const char *const BAD[] = {"",
                                      ".",
                                      "..",
                                      "a.b",
                                      "a.b.c.d",
                                      ".eyJ9.x",
                                      "eyJhbGciOiJSUzI1NiJ9..x",
                                      "eyJhbGciOiJSUzI1NiJ9.e30.x=",
                                      "eyJhbGciOiJSUzI1NiJ9.e30.x y"};
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        jose_err e = check_token(BAD[i], JOSE_ALGS_ALL);
        ck_assert_msg(e == JOSE_E_FORM || e == JOSE_E_BASE64, "'%s': %s", BAD[i], jose_error_str(e));
    }
    /* An ES256 signature in DER, and an RSA signature one byte short. */
    char *es = mint_jwt(&K, "ES256", "ec", NULL, CLAIMS, NULL);
    char *cut = strrchr(es, '.') + 1;
    strcpy(cut, "MEUCIQ"); /* not 64 bytes */
    ck_assert_int_eq(check_token(es, JOSE_ALGS_ALL), JOSE_E_SIGNATURE);
    free(es);
    char *rs = mint_jwt(&K, "RS256", "rsa", NULL, CLAIMS, NULL);
    char *sig = strrchr(rs, '.') + 1;
    sig[strlen(sig) / 4 * 4] = 0; /* 255 of 256 bytes: 342 characters cut to 340 */
    ck_assert_int_eq(check_token(rs, JOSE_ALGS_ALL), JOSE_E_SIGNATURE);
    free(rs);
}
END_TEST

START_TEST(jwks_documents)
{
    char why[256];
    size_t skipped;
    static const struct {
        const char *doc;
        size_t skipped; /* with one good key after the bad one; (size_t)-1: refused whole */
    } CASES[] = {
        {"{\"keys\":[{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"}]}", (size_t)-1},
        {"{\"keys\":[]}", (size_t)-1},
        {"{\"kes\":[]}", (size_t)-1},
        {"[]", (size_t)-1},
        {"{\"keys\":[{\"kty\":\"RSA\",\"n\":\"AQAB\",\"e\":\"AQAB\"}]}", (size_t)-1}, /* 17 bits */
        {"{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\","
         "\"y\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}]}",
         (size_t)-1}, /* off the curve */
        {"{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-384\",\"x\":\"AA\",\"y\":\"AA\"}]}", (size_t)-1},
        {"{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed448\",\"x\":\"AA\"}]}", (size_t)-1},
        {"{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"use\":\"enc\",\"x\":\"AA\"}]}", (size_t)-1},
        {"{\"keys\":[1]}", (size_t)-1},
        {"not json", (size_t)-1},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        jose_keyset *ks = jose_keyset_parse(CASES[i].doc, strlen(CASES[i].doc), &skipped, why, sizeof why);
        ck_assert_msg(ks == NULL, "case %zu was taken", i);
        ck_assert_msg(why[0] != 0, "case %zu has no reason", i);
    }
    /* A bad key beside good ones is skipped, with the reason. */
    char doc[9000];
    snprintf(doc, sizeof doc, "{\"keys\":[{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"},%s", strstr(JWKS, "[") + 1);
    jose_keyset *ks = jose_keyset_parse(doc, strlen(doc), &skipped, why, sizeof why);
    ck_assert_ptr_nonnull(ks);
    ck_assert_uint_eq(skipped, 1);
    ck_assert_uint_eq(jose_keyset_count(ks), 3);
    ck_assert(strstr(why, "symmetric") != NULL);
    ck_assert(jose_keyset_has_kid(ks, "ec") && !jose_keyset_has_kid(ks, "oct"));
    jose_keyset_free(ks);
    /* A key whose alg says PS256 verifies PS256 and not RS256. */
    const char *use = strstr(JWKS, "\"use\":\"sig\"");
    snprintf(doc, sizeof doc, "%.*s\"alg\":\"PS256\"%s", (int)(use - JWKS), JWKS, use + 11);
    jose_keyset *saved = KS;
    KS = jose_keyset_parse(doc, strlen(doc), &skipped, why, sizeof why);
    ck_assert_ptr_nonnull(KS);
    char *ps = mint_jwt(&K, "PS256", "rsa", NULL, CLAIMS, NULL);
    char *rs = mint_jwt(&K, "RS256", "rsa", NULL, CLAIMS, NULL);
    ck_assert_int_eq(check_token(ps, JOSE_ALGS_ALL), JOSE_OK);
    ck_assert_int_eq(check_token(rs, JOSE_ALGS_ALL), JOSE_E_NO_KEY);
    free(ps);
    free(rs);
    jose_keyset_free(KS);
    KS = saved;
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("jose");
    TCase *tc = tcase_create("jose");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, b64url_strict);
    tcase_add_test(tc, every_algorithm_verifies);
    tcase_add_test(tc, algorithms_refused);
    tcase_add_test(tc, header_rules);
    tcase_add_test(tc, forms_refused);
    tcase_add_test(tc, jwks_documents);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed = check_run(suite(), false);
    mint_keys_clear(&K);
    return failed ? 1 : 0;
}
