/* test_uritemplate.c: RFC 6570 level-1 templates. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "internal/uritemplate.h"
#include "check_run.h"

START_TEST(check_valid)
{
    size_t n;
    const char *err;
    size_t off;
    ck_assert(mcp_uri_template_check("test://template/{id}/data", &n, &err, &off));
    ck_assert_uint_eq(n, 1);
    ck_assert(mcp_uri_template_check("a/{x}-{y_2}", &n, &err, &off));
    ck_assert_uint_eq(n, 2);
    ck_assert(mcp_uri_template_check("plain://no/vars", &n, &err, &off));
    ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(check_invalid)
{
    static const struct {
        const char *t;
        size_t off;
        const char *msg;
    } CASES[] = {
        {"a/{+x}", 3, "only level 1"},   {"a/{x,y}", 4, "only one variable"},
        {"a/{x:3}", 4, "modifiers"},     {"a/{}", 3, "needs a variable name"},
        {"a/{x}{y}", 5, "side by side"}, {"a/x}", 3, "without a matching"},
        {"a/{x", 4, "closed by"},        {"a/{x-y}", 4, "closed by"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        size_t n, off = 99;
        const char *err = NULL;
        ck_assert_msg(!mcp_uri_template_check(CASES[i].t, &n, &err, &off), "%s", CASES[i].t);
        ck_assert_msg(strstr(err, CASES[i].msg) != NULL, "%s: %s", CASES[i].t, err);
        ck_assert_msg(off == CASES[i].off, "%s: offset %zu", CASES[i].t, off);
    }
}
END_TEST

START_TEST(match)
{
    mcp_arena a;
    mcp_arena_init(&a);
    const char *v[2] = {0};
    ck_assert(mcp_uri_template_match("test://template/{id}/data", "test://template/123/data", &a, v, 1));
    ck_assert_str_eq(v[0], "123");
    ck_assert(mcp_uri_template_match("a/{x}-{y}", "a/one-two", &a, v, 2));
    ck_assert_str_eq(v[0], "one");
    ck_assert_str_eq(v[1], "two");
    ck_assert(mcp_uri_template_match("f/{name}", "f/hello%20world%2Fx", &a, v, 1));
    ck_assert_str_eq(v[0], "hello world/x");
    ck_assert(!mcp_uri_template_match("test://template/{id}/data", "test://template//data", &a, v, 1));
    ck_assert(!mcp_uri_template_match("test://template/{id}/data", "test://template/1/2/data", &a, v, 1));
    ck_assert(!mcp_uri_template_match("test://template/{id}/data", "test://template/1/dat", &a, v, 1));
    ck_assert(!mcp_uri_template_match("test://template/{id}", "test://other/1", &a, v, 1));
    ck_assert(mcp_uri_template_match("x://{a}.{b}", "x://k.v", &a, v, 2));
    ck_assert_str_eq(v[0], "k");
    ck_assert_str_eq(v[1], "v");
    const char *name = mcp_uri_template_var("a/{x}-{y_2}", 1, &a);
    ck_assert_str_eq(name, "y_2");
    mcp_arena_free(&a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("uritemplate");
    TCase *tc = tcase_create("uritemplate");
    tcase_add_test(tc, check_valid);
    tcase_add_test(tc, check_invalid);
    tcase_add_test(tc, match);
    suite_add_tcase(s, tc);
    int failed = check_run(s, true);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
