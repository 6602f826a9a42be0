/* test_jsonw.c: the JSON text writer. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpidl/jsonw.h"
#include "check_run.h"

/* Passing assertions cost a system call each in check's fork mode; the
 * property tests make millions, so they only call into check on failure. */
#define REQUIRE(cond, ...) \
    do { \
        if (!(cond)) \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)
#define REQUIRE0(cond) REQUIRE(cond, "%s", #cond)

/* The writer's output for one value, in a static buffer. */
static mcp_buf out;

static void setup(void) { mcp_buf_init(&out); }
static void teardown(void) { mcp_buf_free(&out); }

static const char *str_of(const char *s, size_t n)
{
    mcp_buf_clear(&out);
    mcp_json_string(&out, s, n);
    ck_assert(!out.oom);
    return out.data;
}

static const char *dbl_of(double v)
{
    mcp_buf_clear(&out);
    REQUIRE(mcp_json_double(&out, v) && !out.oom, "%a not written", v);
    return out.data;
}

/* ---- strings ------------------------------------------------------------ */

START_TEST(string_plain)
{
    ck_assert_str_eq(str_of("", 0), "\"\"");
    ck_assert_str_eq(str_of("hello", 5), "\"hello\"");
    ck_assert_str_eq(str_of("a/b", 3), "\"a/b\""); /* '/' is not escaped */
    ck_assert_str_eq(str_of("\"", 1), "\"\\\"\"");
    ck_assert_str_eq(str_of("\\", 1), "\"\\\\\"");
    ck_assert_str_eq(str_of("say \"hi\\\"", 9), "\"say \\\"hi\\\\\\\"\"");
    ck_assert_str_eq(str_of("#/$defs", 7), "\"#/$defs\"");
    mcp_buf_clear(&out);
    mcp_json_cstring(&out, "c\tstr");
    ck_assert_str_eq(out.data, "\"c\\tstr\"");
}
END_TEST

START_TEST(string_every_control_char)
{
    for (int c = 0; c < 0x20; c++) {
        char in[3] = {'a', (char)c, 'z'};
        char expect[16];
        switch (c) {
        case '\b':
            strcpy(expect, "\"a\\bz\"");
            break;
        case '\t':
            strcpy(expect, "\"a\\tz\"");
            break;
        case '\n':
            strcpy(expect, "\"a\\nz\"");
            break;
        case '\f':
            strcpy(expect, "\"a\\fz\"");
            break;
        case '\r':
            strcpy(expect, "\"a\\rz\"");
            break;
        default:
            snprintf(expect, sizeof expect, "\"a\\u00%02xz\"", (unsigned)c);
            break;
        }
        ck_assert_msg(strcmp(str_of(in, 3), expect) == 0, "byte 0x%02x: got %s want %s", c, out.data, expect);
    }
    /* Lowercase hex, explicitly. */
    ck_assert_str_eq(str_of("\x1f", 1), "\"\\u001f\"");
    ck_assert_str_eq(str_of("\x0b\x0e", 2), "\"\\u000b\\u000e\"");
    /* An embedded NUL is written, not taken as the end. */
    ck_assert_int_eq(memcmp(str_of("x\0y", 3), "\"x\\u0000y\"", 11), 0);
    /* Nothing else is escaped: every byte from 0x20 up is copied raw
     * (DEL and non-ASCII included), except '"' and '\\'. */
    for (int c = 0x20; c < 0x100; c++) {
        char in[1] = {(char)c};
        const char *got = str_of(in, 1);
        if (c == '"' || c == '\\') {
            ck_assert_uint_eq(out.len, 4);
            ck_assert_int_eq(got[1], '\\');
        } else {
            ck_assert_uint_eq(out.len, 3);
            ck_assert_int_eq((unsigned char)got[1], c);
        }
    }
}
END_TEST

START_TEST(string_raw_bytes)
{
    ck_assert_str_eq(str_of("\x7f", 1), "\"\x7f\"");
    /* é, 😀, U+2028 stay raw. */
    const char *u = "\xc3\xa9\xf0\x9f\x98\x80\xe2\x80\xa8";
    ck_assert_str_eq(str_of(u, strlen(u)), "\"\xc3\xa9\xf0\x9f\x98\x80\xe2\x80\xa8\"");
    /* Not UTF-8 at all: copied as is (the caller guarantees UTF-8). */
    ck_assert_str_eq(str_of("\xff\xfe", 2), "\"\xff\xfe\"");
    /* Mixed runs. */
    ck_assert_str_eq(str_of("\xc3\xa9\n\"x\"\x01", 7), "\"\xc3\xa9\\n\\\"x\\\"\\u0001\"");
}
END_TEST

START_TEST(string_long)
{
    /* A long string through several buffer growths, escapes spread over it. */
    size_t n = 100000;
    char *s = malloc(n);
    ck_assert_ptr_nonnull(s);
    size_t expect = 2;
    for (size_t i = 0; i < n; i++) {
        s[i] = (i % 97 == 0) ? '\n' : (i % 89 == 0) ? '\x02' : (char)('a' + i % 26);
        expect += s[i] == '\n' ? 2 : s[i] == '\x02' ? 6 : 1;
    }
    str_of(s, n);
    ck_assert_uint_eq(out.len, expect);
    ck_assert_int_eq(out.data[0], '"');
    ck_assert_int_eq(out.data[out.len - 1], '"');
    free(s);
}
END_TEST

/* The escaping of one byte, as the table in jsonw.h says. */
static void ref_escape(mcp_buf *b, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
    char e = c == '"'    ? '"'
             : c == '\\' ? '\\'
             : c == '\b' ? 'b'
             : c == '\t' ? 't'
             : c == '\n' ? 'n'
             : c == '\f' ? 'f'
             : c == '\r' ? 'r'
                         : 0;
    if (e) {
        mcp_buf_putc(b, '\\');
        mcp_buf_putc(b, e);
    } else if (c < 0x20) {
        char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        mcp_buf_put(b, u, sizeof u);
    } else {
        mcp_buf_putc(b, (char)c);
    }
}

START_TEST(string_each_byte_at_each_place)
{
    /* Every byte value at every place of strings of 0 to 40 bytes (the
     * writer goes eight bytes at a time while none needs an escape), the
     * others plain or high: the same text as escaping byte by byte. */
    mcp_buf want;
    mcp_buf_init(&want);
    char s[40];
    for (size_t n = 1; n <= sizeof s; n++)
        for (size_t at = 0; at < n; at++)
            for (int c = 0; c < 256; c++) {
                for (size_t i = 0; i < n; i++)
                    s[i] = (char)(i % 3 == 2 ? 0xc3 + (i & 1) : 'a' + i % 26);
                s[at] = (char)c;
                mcp_buf_clear(&want);
                mcp_buf_putc(&want, '"');
                for (size_t i = 0; i < n; i++)
                    ref_escape(&want, (unsigned char)s[i]);
                mcp_buf_putc(&want, '"');
                str_of(s, n);
                REQUIRE(out.len == want.len && memcmp(out.data, want.data, want.len) == 0,
                        "n %zu, byte 0x%02x at %zu: %s, want %s", n, c, at, out.data, want.data);
            }
    mcp_buf_free(&want);
}
END_TEST

START_TEST(string_appends)
{
    mcp_buf_clear(&out);
    mcp_buf_putc(&out, '[');
    mcp_json_cstring(&out, "a");
    mcp_buf_putc(&out, ',');
    mcp_json_int(&out, -5);
    mcp_buf_putc(&out, ',');
    ck_assert(mcp_json_double(&out, 16.2));
    mcp_buf_putc(&out, ']');
    ck_assert_str_eq(out.data, "[\"a\",-5,16.2]");
}
END_TEST

/* ---- integers ----------------------------------------------------------- */

START_TEST(ints)
{
    static const struct {
        int64_t v;
        const char *s;
    } cases[] = {
        {0, "0"},
        {1, "1"},
        {-1, "-1"},
        {9, "9"},
        {10, "10"},
        {-10, "-10"},
        {17, "17"},
        {1000000, "1000000"},
        {-1234567890123, "-1234567890123"},
        {INT64_MAX, "9223372036854775807"},
        {INT64_MIN, "-9223372036854775808"},
        {INT64_MIN + 1, "-9223372036854775807"},
        {INT32_MAX, "2147483647"},
        {(int64_t)INT32_MIN - 1, "-2147483649"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mcp_buf_clear(&out);
        mcp_json_int(&out, cases[i].v);
        ck_assert_str_eq(out.data, cases[i].s);
    }
    /* Against printf over a sweep of magnitudes. */
    for (int64_t v = 1; v > 0 && v < INT64_MAX / 3; v = v * 3 + 1) {
        char want[32];
        mcp_buf_clear(&out);
        mcp_json_int(&out, -v);
        snprintf(want, sizeof want, "%lld", (long long)-v);
        ck_assert_str_eq(out.data, want);
    }
}
END_TEST

/* ---- doubles ------------------------------------------------------------ */

/* Expected texts are pydantic_core.to_json(x) (pydantic-core 2.46.4). */
static const struct {
    double v;
    const char *s;
} dcases[] = {
    {0.0, "0.0"},
    {-0.0, "-0.0"},
    {1.0, "1.0"},
    {-1.0, "-1.0"},
    {17.0, "17.0"},
    {16.2, "16.2"},
    {0.83, "0.83"},
    {0.1, "0.1"},
    {0.2, "0.2"},
    {0.3, "0.3"},
    {0.1 + 0.2, "0.30000000000000004"},
    {1.0 / 3.0, "0.3333333333333333"},
    {2.0 / 3.0, "0.6666666666666666"},
    {100.0, "100.0"},
    {-2.5, "-2.5"},
    {0.5, "0.5"},
    {65536.0, "65536.0"},
    {123456.789, "123456.789"},
    {12345678.9, "12345678.9"},
    {3.14159, "3.14159"},
    {299792458.0, "299792458.0"},
    {1e15, "1000000000000000.0"},
    {1e15 + 0.5, "1000000000000000.5"},
    {9999999999999998.0, "9999999999999998.0"},
    {9007199254740992.0, "9007199254740992.0"},
    {9007199254740993.0, "9007199254740992.0"},
    {1e16, "1e+16"},
    {-1e16, "-1e+16"},
    {1e17, "1e+17"},
    {1e21, "1e+21"},
    {1e22, "1e+22"},
    {1e23, "1e+23"},
    {123456789012345680.0, "1.2345678901234568e+17"},
    {9223372036854775807.0, "9.223372036854776e+18"},
    {6.02214076e23, "6.02214076e+23"},
    {1e-5, "0.00001"},
    {-1e-5, "-0.00001"},
    {1.2345e-5, "0.000012345"},
    {9.999e-6, "9.999e-6"},
    {5e-5, "0.00005"},
    {0.0001, "0.0001"},
    {0.000123, "0.000123"},
    {1e-6, "1e-6"},
    {1.5e-6, "1.5e-6"},
    {1e-7, "1e-7"},
    {-1e-7, "-1e-7"},
    {1.602176634e-19, "1.602176634e-19"},
    {1e-100, "1e-100"},
    {1e100, "1e+100"},
    {1.5e300, "1.5e+300"},
    {-1.5e300, "-1.5e+300"},
    {1.7976931348623157e308, "1.7976931348623157e+308"},
    {-1.7976931348623157e308, "-1.7976931348623157e+308"},
    /* Subnormals and the normal boundary. */
    {5e-324, "5e-324"},
    {-5e-324, "-5e-324"},
    {1e-323, "1e-323"},
    {4.9406564584124654e-320, "4.9407e-320"},
    {2.2250738585072014e-308, "2.2250738585072014e-308"},
    {2.2250738585072009e-308, "2.225073858507201e-308"},
    /* Powers of two: the rounding interval is lopsided. For these the nearest
     * 16-digit decimal does not read back but the one on the other side does;
     * naive printf-precision search gives 17 digits. */
    {0x1p-1022, "2.2250738585072014e-308"},
    {0x1p+1023, "8.98846567431158e+307"},
    {0x1p+60, "1.152921504606847e+18"},
    {0x1p-20, "9.5367431640625e-7"},
    {0x1p+54, "1.8014398509481984e+16"},
    {0x1.fffffffffffffp+53, "1.8014398509481982e+16"},
    {0x1p-24, "5.960464477539063e-8"},
    {0x1p-44, "5.684341886080802e-14"},
    {0x1p+89, "6.189700196426902e+26"},
    {0x1p-1017, "7.120236347223045e-307"},
    {0x1p+976, "6.386688990511104e+293"},
    /* Random bit patterns. */
    {2.0951218323850843e-171, "2.0951218323850843e-171"},
    {-8.095896314512539e-11, "-8.095896314512539e-11"},
    {1.0271471865319853e-06, "1.0271471865319853e-6"},
    {1.3305406583752764e-136, "1.3305406583752764e-136"},
    {-6.4576804899972755e-12, "-6.4576804899972755e-12"},
    {-9.936982866895821e-253, "-9.936982866895821e-253"},
    {8.3815053749933375e-22, "8.3815053749933375e-22"},
    {-7.0366560133932934e-183, "-7.0366560133932934e-183"},
};

START_TEST(double_table)
{
    ck_assert_uint_ge(sizeof dcases / sizeof dcases[0], 40);
    for (size_t i = 0; i < sizeof dcases / sizeof dcases[0]; i++) {
        const char *got = dbl_of(dcases[i].v);
        ck_assert_msg(strcmp(got, dcases[i].s) == 0, "case %zu: got %s want %s", i, got, dcases[i].s);
    }
}
END_TEST

START_TEST(double_not_finite)
{
    mcp_buf_clear(&out);
    mcp_buf_puts(&out, "x");
    ck_assert(!mcp_json_double(&out, NAN));
    ck_assert(!mcp_json_double(&out, -NAN));
    ck_assert(!mcp_json_double(&out, INFINITY));
    ck_assert(!mcp_json_double(&out, -INFINITY));
    ck_assert_str_eq(out.data, "x");
    ck_assert_uint_eq(out.len, 1);
    char d[32];
    int e = 12345;
    ck_assert_int_eq(mcp_double_shortest(NAN, d, &e), 0);
    ck_assert_int_eq(mcp_double_shortest(INFINITY, d, &e), 0);
    ck_assert_int_eq(mcp_double_shortest(0.0, d, &e), 0);
    ck_assert_int_eq(mcp_double_shortest(-0.0, d, &e), 0);
    ck_assert_int_eq(e, 12345);
}
END_TEST

START_TEST(double_shortest_digits)
{
    static const struct {
        double v;
        const char *d;
        int e;
    } cases[] = {
        {16.2, "162", 2},
        {1.0, "1", 1},
        {-1.0, "1", 1},
        {100.0, "1", 3},
        {0.1, "1", 0},
        {0.00001, "1", -4},
        {1e-7, "1", -6},
        {1e16, "1", 17},
        {5e-324, "5", -323},
        {1.7976931348623157e308, "17976931348623157", 309},
        {0.3333333333333333, "3333333333333333", 0},
        {123456.789, "123456789", 6},
        {0x1p-24, "5960464477539063", -7},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char d[32];
        int e = 0;
        int n = mcp_double_shortest(cases[i].v, d, &e);
        ck_assert_int_eq(n, (int)strlen(cases[i].d));
        ck_assert_str_eq(d, cases[i].d);
        ck_assert_int_eq(e, cases[i].e);
    }
}
END_TEST

/* xorshift64*: a fixed, portable sequence. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

static uint64_t bits_of(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static double read_digits(const char *d, int n, int exp10)
{
    char s[64];
    snprintf(s, sizeof s, "0.%.*se%d", n, d, exp10);
    return strtod(s, NULL);
}

/* Does some n-digit decimal read back as v (> 0)? Independent of the writer:
 * the n-digit decimals just below and just above v are the rounded one and
 * its neighbour on the other side; if neither reads back, none does. */
static bool some_n_digits_read_back(double v, int n)
{
    char s[64];
    snprintf(s, sizeof s, "%.*e", n - 1, v);
    if (strtod(s, NULL) == v)
        return true;
    /* mantissa digits and exponent */
    char d[32];
    int k = 0, e;
    const char *p = s;
    for (; *p != 'e'; p++)
        if (*p != '.')
            d[k++] = *p;
    e = atoi(p + 1);
    /* The neighbours, as n-digit integers times a power of ten: m - 1 and
     * m + 1; below 10..0 the n-digit grid is ten times finer: 99..9 / 10. */
    long long m = 0, p10 = 1;
    for (int i = 0; i < k; i++)
        m = m * 10 + (d[i] - '0');
    for (int i = 1; i < n; i++)
        p10 *= 10;
    char t[64];
    snprintf(t, sizeof t, "%llde%d", m + 1, e - (n - 1));
    if (strtod(t, NULL) == v)
        return true;
    if (m == p10)
        snprintf(t, sizeof t, "%llde%d", p10 * 10 - 1, e - n);
    else
        snprintf(t, sizeof t, "%llde%d", m - 1, e - (n - 1));
    if (strtod(t, NULL) == v)
        return true;
    return false;
}

/* The writer's text obeys the format rule and reads back; the digits are as
 * few as possible and the closest of their length. */
static void check_one(double v)
{
    const char *s = dbl_of(v);
    char *end;
    double back = strtod(s, &end);
    REQUIRE(*end == 0 && bits_of(back) == bits_of(v), "%a: wrote %s, reads back as %a", v, s, back);
    double a = fabs(v);
    bool plain = a == 0 || (a >= 1e-5 && a < 1e16);
    REQUIRE((strchr(s, 'e') == NULL) == plain, "%a: %s", v, s);
    if (plain)
        REQUIRE(strchr(s, '.') != NULL, "%a: %s", v, s);
    else
        REQUIRE(strstr(s, "e+") || strstr(s, "e-"), "%a: %s", v, s);
    if (v == 0)
        return;
    char d[32];
    int e;
    int n = mcp_double_shortest(v, d, &e);
    REQUIRE0(n >= 1 && n <= 17);
    REQUIRE0(strlen(d) == (size_t)n);
    REQUIRE0(d[0] != '0' && d[n - 1] != '0');
    REQUIRE0(bits_of(read_digits(d, n, e)) == bits_of(a));
    /* Minimal: no shorter decimal reads back. */
    if (n > 1)
        REQUIRE(!some_n_digits_read_back(a, n - 1), "%a: %s is not the shortest", v, s);
    /* Closest: when the rounded n-digit decimal reads back, it is the one. */
    char r[64];
    snprintf(r, sizeof r, "%.*e", n - 1, a);
    if (strtod(r, NULL) == a) {
        char rdig[32];
        int k = 0;
        for (const char *p = r; *p != 'e'; p++)
            if (*p != '.')
                rdig[k++] = *p;
        while (k > 1 && rdig[k - 1] == '0')
            k--;
        rdig[k] = 0;
        REQUIRE(strcmp(rdig, d) == 0, "%a: %s, but %s is closer", v, d, rdig);
    }
}

START_TEST(double_round_trip_random)
{
    int checked = 0;
    while (checked < 100000) {
        uint64_t u = rng();
        double v;
        memcpy(&v, &u, sizeof v);
        if (!isfinite(v))
            continue;
        check_one(v);
        checked++;
    }
}
END_TEST

START_TEST(double_round_trip_special)
{
    /* Every power of two, its neighbours, powers of ten and their neighbours,
     * short decimals, integers. */
    for (int e = -1074; e <= 1023; e++) {
        double p = ldexp(1.0, e);
        check_one(p);
        check_one(-p);
        check_one(nextafter(p, 0));
        check_one(nextafter(p, INFINITY));
    }
    for (int e = -323; e <= 308; e++) {
        char s[16];
        snprintf(s, sizeof s, "1e%d", e);
        double p = strtod(s, NULL);
        check_one(p);
        check_one(nextafter(p, 0));
        check_one(nextafter(p, INFINITY));
    }
    for (int i = 0; i < 20000; i++) {
        char s[48];
        snprintf(s, sizeof s, "%llue%d", (unsigned long long)(rng() % 100000000u), (int)(rng() % 60) - 30);
        check_one(strtod(s, NULL));
        check_one((double)(int64_t)rng());
    }
    check_one(DBL_MAX);
    check_one(DBL_MIN);
    check_one(DBL_TRUE_MIN);
    check_one(0.0);
    check_one(-0.0);
}
END_TEST

static Suite *jsonw_suite(void)
{
    Suite *s = suite_create("jsonw");
    TCase *t = tcase_create("strings");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, string_plain);
    tcase_add_test(t, string_every_control_char);
    tcase_add_test(t, string_raw_bytes);
    tcase_add_test(t, string_long);
    tcase_add_test(t, string_each_byte_at_each_place);
    tcase_add_test(t, string_appends);
    suite_add_tcase(s, t);
    TCase *n = tcase_create("numbers");
    tcase_add_checked_fixture(n, setup, teardown);
    tcase_set_timeout(n, 120);
    tcase_add_test(n, ints);
    tcase_add_test(n, double_table);
    tcase_add_test(n, double_not_finite);
    tcase_add_test(n, double_shortest_digits);
    tcase_add_test(n, double_round_trip_random);
    tcase_add_test(n, double_round_trip_special);
    suite_add_tcase(s, n);
    return s;
}

int main(void)
{
    int failed = check_run(jsonw_suite(), true);
    return failed != 0;
}
