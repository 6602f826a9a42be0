/* test_invoke.c: mcp_tool_invoke's edge cases, with hand-written descriptors:
 * values JSON cannot carry, handler text that is not UTF-8, content blocks
 * built from short-lived buffers. */
#include <check.h>
#include <json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/methods.h"
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

int main(void)
{
    Suite *s = suite_create("invoke");
    TCase *tc = tcase_create("invoke");
    tcase_add_test(tc, nan_unstructured_is_an_error);
    tcase_add_test(tc, nan_structured_is_finite_number);
    tcase_add_test(tc, nested_nan_in_any);
    tcase_add_test(tc, failure_text_stays_utf8);
    tcase_add_test(tc, content_blocks_are_copied);
    suite_add_tcase(s, tc);
    int failed = check_run(s, true);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
