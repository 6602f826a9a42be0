/* test_fmt.c: the front end's printf (idl/fmt.c) writes what the C library's
 * does, for the conversions it writes itself and for those it hands on. */
#include <check.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "fmt.h"
#include "mcpidl/arena.h"

/* idl_snprintf and idl_fmt against vsnprintf, at every buffer size from 0 to
 * past the text (each cut where the C library cuts). */
static void same(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void same(const char *fmt, ...)
{
    char want[512], got[512];
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(want, sizeof want, fmt, aq);
    va_end(aq);
    ck_assert_int_ge(n, 0);
    ck_assert_int_lt(n, (int)sizeof want - 8);
    for (size_t size = 0; size <= (size_t)n + 2; size++) {
        memset(got, 'x', sizeof got);
        va_copy(aq, ap);
        int k = idl_vsnprintf(got, size, fmt, aq);
        va_end(aq);
        ck_assert_msg(k == n, "'%s': %d, not %d", fmt, k, n);
        if (size) {
            size_t w = (size_t)n < size - 1 ? (size_t)n : size - 1;
            ck_assert_msg(memcmp(got, want, w) == 0 && got[w] == 0, "'%s' cut at %zu", fmt, size);
        }
        ck_assert_msg(got[size] == 'x', "'%s' wrote past %zu bytes", fmt, size);
    }
    mcp_arena a;
    mcp_arena_init(&a);
    va_copy(aq, ap);
    char *p = idl_vfmt(&a, fmt, aq);
    va_end(aq);
    ck_assert_ptr_nonnull(p);
    ck_assert_mem_eq(p, want, (size_t)n + 1);
    mcp_arena_free(&a);
    va_end(ap);
}

START_TEST(written_here)
{
    same("%s", "");
    same("plain text");
    same("%%");
    same("100%% of %s", "it");
    same("%s_%s", "weather", "get_forecast");
    same("%s '%s'", "", "");
    same("%s_%s_%zu", "p", "Literal", (size_t)7);
    same("%zu %zu %zu", (size_t)0, (size_t)SIZE_MAX, (size_t)1000000);
    same("%d %d %d %d", 0, -1, INT_MAX, INT_MIN);
    same("%u %u", 0u, UINT_MAX);
    same("'%c' and '%c'", 'a', '\xE9');
    same("a%cb", 0); /* a NUL byte, counted */
    same("'%.*s'", 3, "abcdef");
    same("'%.*s'", 0, "abc");
    same("'%.*s'", 10, "abc"); /* stops at the NUL */
    same("%.*s%s", 2, "\xC3\xA9t\xC3\xA9", "...");
}
END_TEST

/* A null string the compiler cannot see (it warns of a constant one). */
static const char *volatile none = NULL;

START_TEST(handed_on)
{
    same("%s", none);
    same("%.*s", 8, none);
    same("%.*s", -1, "negative precision: the whole string");
    same("%.17g", 0.1);
    same("%5s|%-5s|", "a", "b");
    same("%x %02X %ld %lu", 255u, 10u, -5L, 5UL);
    same("\\x%02X", 0x1Fu);
    same("%s %.3s %s", "a", "bcdef", "g");
}
END_TEST

START_TEST(long_text)
{
    char big[300];
    memset(big, 'n', sizeof big - 1);
    big[sizeof big - 1] = 0;
    same("%s_%s", big, "tail");
    mcp_arena a;
    mcp_arena_init(&a);
    char *p = idl_fmt(&a, "%s%s", big, big);
    ck_assert_uint_eq(strlen(p), 2 * strlen(big));
    ck_assert_mem_eq(p + strlen(big), big, strlen(big));
    mcp_arena_free(&a);
}
END_TEST

static Suite *fmt_suite(void)
{
    Suite *s = suite_create("fmt");
    TCase *t = tcase_create("fmt");
    tcase_add_test(t, written_here);
    tcase_add_test(t, handed_on);
    tcase_add_test(t, long_text);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    int failed = check_run(fmt_suite(), true);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
