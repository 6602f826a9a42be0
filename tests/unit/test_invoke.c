/* test_invoke.c: mcp_tool_invoke's edge cases, with hand-written descriptors:
 * values JSON cannot carry, handler text that is not UTF-8, content blocks
 * built from short-lived buffers. */
#include <check.h>
#include <json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/methods.h"
#include "mcpidl/jsonw.h"
#include "check_run.h"

static const mcp_type T_FLOAT = {
    .kind = MCP_T_FLOAT, .size = sizeof(double), .align = _Alignof(double), .tag = "float"};
static const mcp_type T_ANY = {.kind = MCP_T_ANY, .size = sizeof(void *), .align = _Alignof(void *), .tag = "any"};
static const mcp_type T_ARGS = {.kind = MCP_T_OBJECT, .size = 1, .align = 1, .tag = "tArguments"};

static mcp_status nan_handler(mcp_call *call, const void *in, void *out)
{
    (void)call, (void)in;
    *(double *)out = NAN;
    return MCP_OK;
}

static mcp_status nested_nan_handler(mcp_call *call, const void *in, void *out)
{
    (void)in, (void)out;
    json_object *o = json_object_new_object();
    json_object *arr = json_object_new_array();
    json_object_array_add(arr, json_object_new_double(INFINITY));
    json_object_object_add(o, "a", arr);
    mcp_status st = mcp_return_jsonc(call, o);
    json_object_put(o);
    return st;
}

static mcp_status bad_utf8_handler(mcp_call *call, const void *in, void *out)
{
    (void)in, (void)out;
    return mcp_fail(call, "bad \xff byte");
}

static mcp_status content_handler(mcp_call *call, const void *in, void *out)
{
    (void)in, (void)out;
    char buf[32];
    strcpy(buf, "first");
    mcp_content_text(call, buf);
    strcpy(buf, "second"); /* the first block must not change */
    mcp_content_text(call, buf);
    return MCP_OK;
}

static char *invoke(const mcp_tool *tool)
{
    mcp_arena a;
    mcp_arena_init(&a);
    mcp_call call;
    mcp_call_init(&call, &a, tool, NULL, NULL);
    mcp_buf out;
    mcp_buf_init(&out);
    ck_assert(mcp_tool_invoke(&call, NULL, &out));
    char *s = strdup(out.data);
    mcp_buf_free(&out);
    mcp_arena_free(&a);
    return s;
}

START_TEST(nan_unstructured_is_an_error)
{
    mcp_tool t = {.name = "t", .args = &T_ARGS, .result = &T_FLOAT, .output = MCP_OUTPUT_NONE, .handler = nan_handler};
    char *s = invoke(&t);
    ck_assert_str_eq(s,
                     "{\"content\":[{\"type\":\"text\",\"text\":\"Error executing tool t: the returned value holds a "
                     "NaN or infinite float, which JSON cannot carry\"}],\"isError\":true}");
    free(s);
}
END_TEST

START_TEST(nan_structured_is_finite_number)
{
    mcp_tool t = {.name = "t",
                  .args = &T_ARGS,
                  .result = &T_FLOAT,
                  .output = MCP_OUTPUT_WRAPPED,
                  .structured = true,
                  .output_title = "tOutput",
                  .handler = nan_handler};
    char *s = invoke(&t);
    ck_assert_msg(strstr(s, "\"isError\":true") != NULL, "%s", s);
    free(s);
}
END_TEST

START_TEST(nested_nan_in_any)
{
    mcp_tool t = {.name = "t",
                  .args = &T_ARGS,
                  .result = &T_ANY,
                  .output = MCP_OUTPUT_WRAPPED,
                  .structured = true,
                  .output_title = "tOutput",
                  .handler = nested_nan_handler};
    char *s = invoke(&t);
    ck_assert_msg(strstr(s, "\"isError\":true") != NULL, "%s", s);
    ck_assert_msg(strstr(s, "structuredContent") == NULL, "%s", s);
    free(s);
}
END_TEST

START_TEST(failure_text_stays_utf8)
{
    mcp_tool t = {.name = "t",
                  .args = &T_ARGS,
                  .result = &T_FLOAT,
                  .output = MCP_OUTPUT_WRAPPED,
                  .structured = true,
                  .output_title = "tOutput",
                  .handler = bad_utf8_handler};
    char *s = invoke(&t);
    ck_assert_str_eq(s, "{\"content\":[{\"type\":\"text\",\"text\":\"Error executing tool t: bad \xef\xbf\xbd byte\"}],"
                        "\"isError\":true}");
    mcp_arena a;
    mcp_arena_init(&a);
    ck_assert_ptr_nonnull(mcp_json_parse(&a, s, strlen(s), NULL, NULL, NULL));
    mcp_arena_free(&a);
    free(s);
}
END_TEST

START_TEST(content_blocks_are_copied)
{
    mcp_tool t = {.name = "t", .args = &T_ARGS, .result = NULL, .output = MCP_OUTPUT_NONE, .handler = content_handler};
    char *s = invoke(&t);
    ck_assert_str_eq(s, "{\"content\":[{\"type\":\"text\",\"text\":\"first\"},{\"type\":\"text\",\"text\":\"second\"}],"
                        "\"isError\":false}");
    free(s);
}
END_TEST

/* ---- one serialisation: the text block derived from structuredContent ---- */

static const char *returned_text; /* what text_handler returns */

static mcp_status text_handler(mcp_call *call, const void *in, void *out)
{
    (void)in, (void)out;
    return mcp_return_json_text(call, returned_text);
}

/* What the answer of a wrapped Any tool returning json is, built the long
 * way: the text block from the indented writer and the in-place escaping,
 * structuredContent from the compact writer. */
static char *expected_answer(const char *json)
{
    mcp_arena a;
    mcp_arena_init(&a);
    mcp_json *v = mcp_json_parse(&a, json, strlen(json), NULL, NULL, NULL);
    ck_assert_ptr_nonnull(v);
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_puts(&b, "{\"content\":[{\"type\":\"text\",\"text\":");
    size_t start = b.len;
    ck_assert(mcp_json_write(&b, v, 2));
    mcp_json_string_in_place(&b, start);
    mcp_buf_puts(&b, "}],\"structuredContent\":{\"result\":");
    ck_assert(mcp_json_write(&b, v, -1));
    mcp_buf_puts(&b, "},\"isError\":false}");
    ck_assert(!b.oom);
    char *s = strdup(b.data);
    mcp_buf_free(&b);
    mcp_arena_free(&a);
    return s;
}

static void check_one(const char *json)
{
    mcp_tool t = {.name = "t",
                  .args = &T_ARGS,
                  .result = &T_ANY,
                  .output = MCP_OUTPUT_WRAPPED,
                  .structured = true,
                  .output_title = "tOutput",
                  .handler = text_handler};
    returned_text = json;
    char *got = invoke(&t), *want = expected_answer(json);
    ck_assert_msg(strcmp(got, want) == 0, "for %s\n got: %s\nwant: %s", json, got, want);
    free(got);
    free(want);
}

START_TEST(one_serialisation_edge_cases)
{
    static const char *const CASES[] = {
        "{}",
        "{\"a\":{}}",
        "{\"a\":[]}",
        "{\"a\":[{}],\"b\":[[]],\"c\":[[],{}]}",
        "{\"a\":[1,2,[3,[4,{\"b\":null}]]]}",
        "{\"q\":\"say \\\"hi\\\"\",\"bs\":\"a\\\\b\",\"nl\":\"a\\nb\\tc\\r\\b\\f\"}",
        "{\"ctl\":\"\\u0001\\u001f\\u007f\",\"x\":\"{[,:]}\",\"y\":\"\\\\\\\"\"}",
        "{\"\\\"key\\\\\":\"\\\\\",\"\":\"\",\"k\":\"\\\\u0041\"}",
        "{\"u\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",\"\xc3\xa9\":[\"\xe2\x80\xa8\"]}",
        "{\"n\":[0,-0.0,1.5,-2.25e-7,1e300,123456789012345678901234567890,true,false,null]}",
        "17",
        "-0.0",
        "3.5e-10",
        "true",
        "{\"deep\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++)
        check_one(CASES[i]);
}
END_TEST

/* Random values: objects of strings (quotes, backslashes, control
 * characters, brackets, commas, colons, non-ASCII), numbers and nesting. */
static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;

static unsigned rnd(unsigned n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static void random_string(mcp_buf *b)
{
    static const char *const PIECES[] = {
        "a", "Z", " ", "\\\"", "\\\\", "\\n",      "\\t",          "\\u0000",          "\\u001b", "{",
        "}", "[", "]", ",",    ":",    "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x8c\x8d", "\\/",     "'"};
    mcp_buf_putc(b, '"');
    for (unsigned k = rnd(8); k > 0; k--)
        mcp_buf_puts(b, PIECES[rnd(sizeof PIECES / sizeof *PIECES)]);
    mcp_buf_putc(b, '"');
}

static void random_value(mcp_buf *b, int depth)
{
    unsigned kind = depth > 4 ? rnd(5) : rnd(8);
    switch (kind) {
    case 0:
        random_string(b);
        break;
    case 1:
        mcp_buf_printf(b, "%d", (int)rnd(200000) - 100000);
        break;
    case 2:
        mcp_buf_printf(b, "%.*g", (int)rnd(17) + 1, ((double)rnd(1000000) - 500000) / (double)(1 + rnd(1000)));
        break;
    case 3:
        mcp_buf_puts(b, rnd(3) == 0 ? "null" : rnd(2) ? "true" : "false");
        break;
    case 4:
        mcp_buf_puts(b, rnd(2) ? "[]" : "{}");
        break;
    case 5:
    case 6: {
        mcp_buf_putc(b, '{');
        unsigned n = rnd(5);
        for (unsigned i = 0; i < n; i++) {
            if (i)
                mcp_buf_putc(b, ',');
            mcp_buf_printf(b, "\"k%u", i); /* unique keys, some escaped */
            if (rnd(3) == 0)
                mcp_buf_puts(b, "\\\"\\\\\xc3\xa9");
            mcp_buf_puts(b, "\":");
            random_value(b, depth + 1);
        }
        mcp_buf_putc(b, '}');
        break;
    }
    default: {
        mcp_buf_putc(b, '[');
        unsigned n = rnd(5);
        for (unsigned i = 0; i < n; i++) {
            if (i)
                mcp_buf_putc(b, ',');
            random_value(b, depth + 1);
        }
        mcp_buf_putc(b, ']');
        break;
    }
    }
}

START_TEST(one_serialisation_random_values)
{
    for (int i = 0; i < 3000; i++) {
        mcp_buf b;
        mcp_buf_init(&b);
        mcp_buf_puts(&b, "{\"v\":");
        random_value(&b, 0);
        mcp_buf_putc(&b, '}');
        ck_assert(!b.oom);
        check_one(b.data);
        mcp_buf_free(&b);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("invoke");
    TCase *tc = tcase_create("invoke");
    tcase_add_test(tc, nan_unstructured_is_an_error);
    tcase_add_test(tc, nan_structured_is_finite_number);
    tcase_add_test(tc, nested_nan_in_any);
    tcase_add_test(tc, failure_text_stays_utf8);
    tcase_add_test(tc, content_blocks_are_copied);
    tcase_add_test(tc, one_serialisation_edge_cases);
    tcase_add_test(tc, one_serialisation_random_values);
    suite_add_tcase(s, tc);
    int failed = check_run(s, true);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
