/* test_codec_json.c: JSON text to and from generated structs
 * (mcp_value_from_json, mcp_value_to_json, through the PREFIX_T_from_json and
 * PREFIX_T_to_json of unit/codec/codec.mcp.yaml), the initializers, and the
 * enums' names and counts. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "codec.mcp.h"
#include "internal/codec.h"
#include "internal/methods.h"

static mcp_arena A;
static mcp_buf B;

/* The one tool of the server table, which no test calls. */
mcp_status codec_read(mcp_call *call, const codec_read_args *in, codec_Reading *out)
{
    (void)in, (void)out;
    return mcp_fail(call, "not called");
}

/* What the handlers of shelve and titles return: set by each test. */
static codec_Book the_book;
static codec_str_list the_titles;

mcp_status codec_shelve(mcp_call *call, const codec_shelve_args *in, codec_Book *out)
{
    (void)call, (void)in;
    *out = the_book;
    return MCP_OK;
}

mcp_status codec_titles(mcp_call *call, const codec_titles_args *in, codec_str_list *out)
{
    (void)call, (void)in;
    *out = the_titles;
    return MCP_OK;
}

static void setup(void)
{
    mcp_arena_init(&A);
    mcp_buf_init(&B);
}

static void teardown(void)
{
    mcp_arena_free(&A);
    mcp_buf_free(&B);
}

static bool reading_from(const char *json, codec_Reading *r, const char **error)
{
    return codec_Reading_from_json(json, strlen(json), r, &A, error);
}

START_TEST(from_json_fills_the_struct)
{
    codec_Reading r;
    const char *error = "untouched";
    ck_assert(reading_from("{\"city\": \"Oslo\", \"celsius\": 4, \"unit\": \"F\", \"extra\": true}", &r, &error));
    ck_assert_str_eq(error, "untouched");
    ck_assert_str_eq(r.city, "Oslo");
    ck_assert(r.celsius == 4.0);
    ck_assert_int_eq(r.unit, codec_Reading_unit_F);
    /* Defaults filled in, as in a tool's arguments. */
    ck_assert_uint_eq(r.tags.len, 2);
    ck_assert_str_eq(r.tags.items[1], "dry");
    ck_assert_int_eq(r.sky, codec_Sky_clear);
    ck_assert(!r.note.has);
}
END_TEST

START_TEST(from_json_reports_like_pydantic)
{
    codec_Reading r;
    const char *error = NULL;
    ck_assert(!reading_from("{\"city\": \"\", \"unit\": \"K\", \"sky\": 3}", &r, &error));
    ck_assert_str_eq(
        error, "4 validation errors for Reading\n"
               "city\n"
               "  String should have at least 1 character [type=string_too_short, input_value='', input_type=str]\n"
               "celsius\n"
               "  Field required [type=missing, input_value={'city': '', 'unit': 'K', 'sky': 3}, input_type=dict]\n"
               "unit\n"
               "  Input should be 'C' or 'F' [type=literal_error, input_value='K', input_type=str]\n"
               "sky\n"
               "  Input should be 'clear', 'cloudy' or 'name' [type=enum, input_value=3, input_type=int]");
    ck_assert(!reading_from("[]", &r, NULL)); /* no report asked for */
    ck_assert(!reading_from("{\"city\": \"x\", \"celsius\": 1,}", &r, &error));
    ck_assert_str_eq(error, "1 validation error for Reading\n"
                            "  Invalid JSON: trailing comma at byte offset 27 [type=json_invalid, "
                            "input_value='{\"city\": \"x\", \"celsius\": 1,}', input_type=str]");
    codec_Sky sky;
    ck_assert(!codec_Sky_from_json("\"rainy\"", 7, &sky, &A, &error));
    ck_assert_str_eq(error,
                     "1 validation error for Sky\n"
                     "  Input should be 'clear', 'cloudy' or 'name' [type=enum, input_value='rainy', input_type=str]");
    ck_assert(codec_Sky_from_json("\"cloudy\"", 8, &sky, &A, &error));
    ck_assert_int_eq(sky, codec_Sky_cloudy);
}
END_TEST

static bool parcel_from(const char *json, const char **error)
{
    codec_Parcel p;
    return codec_Parcel_from_json(json, strlen(json), &p, &A, error);
}

/* Members in any order, each found once; an extra key refused wherever it
 * stands; every pattern of a value checked (one match data serves them). */
START_TEST(from_json_members_patterns_and_extras)
{
    codec_Parcel p;
    const char *error = NULL;
    const char *text = "{\"weight\": 2.5, \"postcode\": \"OR 97201\", \"sku\": \"BKS-0042\"}";
    ck_assert(codec_Parcel_from_json(text, strlen(text), &p, &A, &error));
    ck_assert_str_eq(p.sku, "BKS-0042");
    ck_assert_str_eq(p.postcode, "OR 97201");
    ck_assert(p.weight == 2.5);
    ck_assert(!parcel_from("{\"sku\": \"BKS-0042\", \"extra\": 1, \"postcode\": \"OR 97201\"}", &error));
    ck_assert_str_eq(error, "1 validation error for Parcel\n"
                            "extra\n"
                            "  Extra inputs are not permitted [type=extra_forbidden, input_value=1, input_type=int]");
    /* Three members, two fields found: the third is the extra one, even when
     * a field is missing. */
    ck_assert(!parcel_from("{\"postcode\": \"OR 97201\", \"weight\": 1, \"sku2\": \"x\"}", &error));
    ck_assert_str_eq(error,
                     "2 validation errors for Parcel\n"
                     "sku\n"
                     "  Field required [type=missing, input_value={'postcode': 'OR 97201', 'weight': 1, 'sku2': 'x'}, "
                     "input_type=dict]\n"
                     "sku2\n"
                     "  Extra inputs are not permitted [type=extra_forbidden, input_value='x', input_type=str]");
    ck_assert(!parcel_from("{\"sku\": \"bks-0042\", \"postcode\": \"O\"}", &error));
    ck_assert_str_eq(error, "2 validation errors for Parcel\n"
                            "sku\n"
                            "  String should match pattern '^[A-Z]{3}-[0-9]{4}$' [type=string_pattern_mismatch, "
                            "input_value='bks-0042', input_type=str]\n"
                            "postcode\n"
                            "  String should match pattern '^[0-9A-Z][0-9A-Z -]{1,8}[0-9A-Z]$' "
                            "[type=string_pattern_mismatch, input_value='O', input_type=str]");
    /* Text that is not UTF-8 (a JSON value built in C) matches no pattern. */
    mcp_json *v = mcp_json_new_object(&A);
    ck_assert(mcp_json_set(&A, v, "sku",
                           mcp_json_new_string(&A,
                                               "BKS-00\xff"
                                               "2",
                                               8)));
    ck_assert(mcp_json_set(&A, v, "postcode", mcp_json_new_string(&A, "OR 97201", 8)));
    mcp_report rep;
    mcp_report_init(&rep, &A);
    ck_assert(!mcp_decode(&codec_Parcel_desc, v, &p, &A, &rep));
    ck_assert_uint_eq(rep.len, 1);
    ck_assert_int_eq(rep.items[0].kind, MCP_VERR_STRING_PATTERN);
    ck_assert_str_eq(rep.items[0].loc, "sku");
}
END_TEST

/* The decoder's quiet path for valid leaves and its key comparison, on
 * hand-made values that text cannot give: a field is found only by its exact
 * name (names of 1 to 20 bytes, a key differing in any one byte is another
 * key), and string lengths count characters as before, even in bytes that
 * are not UTF-8 (a lone continuation byte is no character). */
START_TEST(decode_keys_and_lengths)
{
    static const mcp_type int_t = {.kind = MCP_T_INT, .size = sizeof(int64_t), .align = 8, .tag = "int"};
    char name[21], key[21];
    for (size_t n = 1; n <= 20; n++) {
        for (size_t i = 0; i < n; i++)
            name[i] = (char)('a' + i);
        name[n] = 0;
        mcp_field f = {.name = name, .name_len = n, .type = &int_t, .offset = 0, .has_offset = -1, .required = true};
        mcp_type obj =
            {.kind = MCP_T_OBJECT, .size = sizeof(int64_t), .align = 8, .tag = "M", .fields = &f, .nfields = 1};
        for (size_t at = 0; at <= n; at++) { /* at == n: the same key */
            memcpy(key, name, n + 1);
            if (at < n)
                key[at] = 'Z';
            mcp_arena_reset(&A);
            mcp_json *o = mcp_json_new_object(&A);
            ck_assert(mcp_json_setn(&A, o, key, n, mcp_json_new_int(&A, 7)));
            mcp_report rep;
            mcp_report_init(&rep, &A);
            int64_t out = 0;
            bool ok = mcp_decode(&obj, o, &out, &A, &rep);
            ck_assert_msg(ok == (at == n), "name of %zu bytes, key differing at %zu", n, at);
            ck_assert_int_eq(out, at == n ? 7 : 0);
            ck_assert_uint_eq(rep.len, at == n ? 0 : 1);
        }
    }
    static const struct {
        const char *s;
        int64_t min, max;
        size_t errors;
    } str_cases[] = {
        {"\x80", 1, 10, 1},             /* no character */
        {"\x80\x80\x80\x80", 1, 10, 1}, /* still none */
        {"a\x80", 2, 10, 1},            /* one */
        {"\xc3\xa9\xc3\xa9", 1, 2, 0},  /* two characters in four bytes */
        {"\xc3\xa9\xc3\xa9", 1, 1, 1},
        {"\xc3\xa9\xc3\xa9", 3, 9, 1},
        {"", 1, 9, 1},
        {"", 0, 0, 0},
        {"abcd", 4, 4, 0},
    };
    for (size_t i = 0; i < sizeof str_cases / sizeof *str_cases; i++) {
        mcp_constraints k = {.flags = MCP_C_MIN_LENGTH | MCP_C_MAX_LENGTH,
                             .min_length = str_cases[i].min,
                             .max_length = str_cases[i].max};
        mcp_type str_t = {.kind = MCP_T_STR, .size = sizeof(char *), .align = 8, .tag = "str", .c = &k};
        mcp_type list_t = {.kind = MCP_T_LIST, .size = 16, .align = 8, .tag = "list[str]", .elem = &str_t};
        mcp_arena_reset(&A);
        mcp_json *arr = mcp_json_new_array(&A);
        ck_assert(mcp_json_append(&A, arr, mcp_json_new_string(&A, str_cases[i].s, strlen(str_cases[i].s))));
        mcp_report rep;
        mcp_report_init(&rep, &A);
        struct {
            size_t len;
            const char **items;
        } out = {0, NULL};
        bool ok = mcp_decode(&list_t, arr, &out, &A, &rep);
        ck_assert_msg(rep.len == str_cases[i].errors, "case %zu: %zu errors", i, rep.len);
        ck_assert(ok == (str_cases[i].errors == 0));
        if (ok)
            ck_assert_str_eq(out.items[0], str_cases[i].s);
        else
            ck_assert_str_eq(rep.items[0].loc, "0");
    }
}
END_TEST

/* A dict key holding U+0000 is refused (string_type at KEY.[key]), as a str
 * value holding one is: the C key is NUL-terminated, so "a\u0000b" would
 * read as "a", and two such keys as the same key, which the encoder then
 * refuses. Keys equal only after unescaping are the same key. */
START_TEST(dict_keys_with_nul_are_refused)
{
    static const char book[] = "{\"author\": {\"name\": \"n\"}, \"chapters\": [], \"sky\": \"clear\", \"pages\": 1, "
                               "\"notes\": {\"a\\u0000b\": \"x\", \"a\\u0000c\": \"y\"}}";
    codec_Book b;
    const char *error = NULL;
    ck_assert(!codec_Book_from_json(book, strlen(book), &b, &A, &error));
    ck_assert_ptr_nonnull(error);
    ck_assert_msg(strncmp(error, "2 validation errors for Book\nnotes.a", 37) == 0, "%s", error);
    mcp_json *v = mcp_json_parse(&A, book, strlen(book), NULL, NULL, NULL);
    ck_assert_ptr_nonnull(v);
    mcp_report rep;
    mcp_report_init(&rep, &A);
    ck_assert(!mcp_decode(&codec_Book_desc, v, &b, &A, &rep));
    ck_assert_uint_eq(rep.len, 2);
    for (size_t i = 0; i < 2; i++) {
        const mcp_verror *e = &rep.items[i];
        ck_assert_int_eq(e->kind, MCP_VERR_STRING_TYPE);
        ck_assert_uint_eq(e->loc_len, 15);
        ck_assert_mem_eq(e->loc, i ? "notes.a\0c.[key]" : "notes.a\0b.[key]", 15);
    }

    static const char twice[] = "{\"author\": {\"name\": \"n\"}, \"chapters\": [], \"sky\": \"clear\", \"pages\": 1, "
                                "\"notes\": {\"\\u0041b\": \"x\", \"Ab\": \"y\"}}";
    ck_assert(!codec_Book_from_json(twice, strlen(twice), &b, &A, &error));
    ck_assert_msg(strstr(error, "Duplicate") || strstr(error, "duplicate"), "%s", error);

    static const char fine[] = "{\"author\": {\"name\": \"n\"}, \"chapters\": [], \"sky\": \"clear\", \"pages\": 1, "
                               "\"notes\": {\"\\u00e9\": \"x\", \"e\\\\\": \"y\"}}";
    ck_assert_msg(codec_Book_from_json(fine, strlen(fine), &b, &A, &error), "%s", error);
    ck_assert_uint_eq(b.notes.len, 2);
    ck_assert_str_eq(b.notes.items[0].key, "\xc3\xa9");
    ck_assert_str_eq(b.notes.items[1].key, "e\\");
    ck_assert_msg(codec_Book_to_json(&b, &B, &A, &error), "%s", error);
}
END_TEST

START_TEST(to_json_writes_structured_content)
{
    codec_Reading r = codec_Reading_init_default;
    r.city = "Cairo";
    r.celsius = 34.1;
    const char *error = NULL;
    mcp_buf_puts(&B, "> ");
    ck_assert(codec_Reading_to_json(&r, &B, &A, &error));
    ck_assert_str_eq(B.data, "> {\"city\":\"Cairo\",\"celsius\":34.1,\"tags\":[\"warm\",\"dry\"],\"unit\":\"C\","
                             "\"sky\":\"clear\",\"note\":null}");
    /* A record leaves out the keys it does not have. */
    codec_Station s = codec_Station_init_zero;
    s.id = 7;
    mcp_buf_clear(&B);
    ck_assert(codec_Station_to_json(&s, &B, &A, &error));
    ck_assert_str_eq(B.data, "{\"id\":7}");
    s.owner = "me";
    s.has_owner = true;
    mcp_buf_clear(&B);
    ck_assert(codec_Station_to_json(&s, &B, &A, &error));
    ck_assert_str_eq(B.data, "{\"id\":7,\"owner\":\"me\"}");
    codec_Sky sky = codec_Sky_name_;
    mcp_buf_clear(&B);
    ck_assert(codec_Sky_to_json(&sky, &B, &A, &error));
    ck_assert_str_eq(B.data, "\"name\"");
}
END_TEST

START_TEST(to_json_checks_like_an_output)
{
    codec_Reading r = codec_Reading_init_default;
    r.city = "";
    r.celsius = NAN;
    const char *error = NULL;
    mcp_buf_puts(&B, "kept");
    ck_assert(!codec_Reading_to_json(&r, &B, &A, &error));
    ck_assert_str_eq(B.data, "kept");
    ck_assert_str_eq(
        error, "2 validation errors for Reading\n"
               "city\n"
               "  String should have at least 1 character [type=string_too_short, input_value='', input_type=str]\n"
               "celsius\n"
               "  Input should be a finite number [type=finite_number, input_value=nan, input_type=float]");
    /* A value JSON cannot hold at all. */
    r = (codec_Reading)codec_Reading_init_zero;
    ck_assert(!codec_Reading_to_json(&r, &B, &A, &error));
    ck_assert_str_eq(error,
                     "1 validation error for Reading\ncity\n"
                     "  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]");
    ck_assert_str_eq(B.data, "kept");
}
END_TEST

START_TEST(round_trip)
{
    static const char TEXT[] =
        "{\"city\":\"Oslo\",\"celsius\":-3.5,\"tags\":[],\"unit\":\"F\",\"sky\":\"cloudy\",\"note\":\"é\"}";
    codec_Reading r;
    const char *error = NULL;
    ck_assert(reading_from(TEXT, &r, &error));
    ck_assert(codec_Reading_to_json(&r, &B, &A, &error));
    ck_assert_str_eq(B.data, TEXT);
}
END_TEST

START_TEST(initializers_and_enums)
{
    codec_Reading zero = codec_Reading_init_zero;
    ck_assert_ptr_null(zero.city);
    ck_assert_uint_eq(zero.tags.len, 0);
    ck_assert_int_eq(zero.unit, codec_Reading_unit_C);
    codec_read_args args = codec_read_args_init_default;
    ck_assert_ptr_null(args.city);
    ck_assert_int_eq(args.days, 3);
    ck_assert_int_eq(codec_Sky_COUNT, 3);
    ck_assert_int_eq(codec_Reading_unit_COUNT, 2);
    ck_assert_str_eq(codec_Sky_name(codec_Sky_cloudy), "cloudy");
    ck_assert_str_eq(codec_Sky_name(codec_Sky_name_), "name");
    ck_assert_ptr_null(codec_Sky_name((codec_Sky)codec_Sky_COUNT));
    ck_assert_ptr_null(codec_Sky_name((codec_Sky)-1));
    ck_assert_str_eq(codec_Reading_unit_name(codec_Reading_unit_F), "F");
}
END_TEST

/* A valid book, which each test then spoils in one place. */
static const char *CHAPTERS[] = {"One", "Two"};
static codec_str_dict_item NOTES[] = {{"k", "v"}};
static codec_Book good_book(void)
{
    return (codec_Book){.author = {.name = "Ada"},
                        .chapters = {2, CHAPTERS},
                        .notes = {1, NOTES},
                        .sky = codec_Sky_cloudy,
                        .pages = {.which = codec_int_or_str_int_, .as.int_ = 3}};
}

static const char *book_fault(codec_Book b)
{
    const char *error = NULL;
    ck_assert(!codec_Book_to_json(&b, &B, &A, &error));
    ck_assert_ptr_nonnull(error);
    return error;
}

#define NONE_NOT_STRING "  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]"

START_TEST(to_json_locates_c_faults)
{
    codec_Book b = good_book();
    const char *error = NULL;
    ck_assert(codec_Book_to_json(&b, &B, &A, &error));

    b = good_book();
    b.author.name = NULL;
    ck_assert_str_eq(book_fault(b), "1 validation error for Book\nauthor.name\n" NONE_NOT_STRING);

    const char *chapters[] = {"One", NULL, "Three"};
    b = good_book();
    b.chapters = (codec_str_list){3, chapters};
    ck_assert_str_eq(book_fault(b), "1 validation error for Book\nchapters.1\n" NONE_NOT_STRING);

    b = good_book();
    b.chapters = (codec_str_list){2, NULL};
    ck_assert_str_eq(book_fault(b), "1 validation error for Book\nchapters\n"
                                    "  Value error, items is NULL but len is 2 [type=value_error, input_value=None, "
                                    "input_type=NoneType]");

    codec_str_dict_item null_key[] = {{"k", "v"}, {NULL, "w"}};
    b = good_book();
    b.notes = (codec_str_dict){2, null_key};
    ck_assert_str_eq(book_fault(b), "1 validation error for Book\nnotes.None.[key]\n" NONE_NOT_STRING);

    codec_str_dict_item null_value[] = {{"k", NULL}};
    b = good_book();
    b.notes = (codec_str_dict){1, null_value};
    ck_assert_str_eq(book_fault(b), "1 validation error for Book\nnotes.k\n" NONE_NOT_STRING);

    codec_str_dict_item twice[] = {{"k", "v"}, {"k", "w"}};
    b = good_book();
    b.notes = (codec_str_dict){2, twice};
    ck_assert_str_eq(book_fault(b), "1 validation error for Book\nnotes\n"
                                    "  Value error, the dict holds the same key twice [type=value_error, "
                                    "input_value=None, input_type=NoneType]");

    b = good_book();
    b.sky = (codec_Sky)7;
    ck_assert_str_eq(book_fault(b), "1 validation error for Book\nsky\n"
                                    "  Input should be 'clear', 'cloudy' or 'name' [type=enum, input_value=7, "
                                    "input_type=int]");

    b = good_book();
    b.pages.which = 0;
    ck_assert_str_eq(book_fault(b), "1 validation error for Book\npages\n"
                                    "  Value error, the union has no arm set (which is 0; its arms are 1 to 2) "
                                    "[type=value_error, input_value=None, input_type=NoneType]");

    b = good_book();
    b.author.name = "Ad\xff";
    error = book_fault(b);
    ck_assert_msg(strncmp(error,
                          "1 validation error for Book\nauthor.name\n  Input should be a valid string, "
                          "unable to parse raw data as a unicode string [type=string_unicode, ",
                          105) == 0,
                  "%s", error);
}
END_TEST

/* The same faults in a handler's output: the call's error result is the
 * report of its output type, the place in the wrapped value under result. */
static char *invoke(const char *name)
{
    const mcp_tool *tool = NULL;
    for (size_t i = 0; i < codec_server.ntools; i++)
        if (strcmp(codec_server.tools[i].name, name) == 0)
            tool = &codec_server.tools[i];
    ck_assert_ptr_nonnull(tool);
    mcp_call call;
    mcp_call_init(&call, &A, tool, NULL, NULL);
    mcp_buf out;
    mcp_buf_init(&out);
    ck_assert(mcp_tool_invoke(&call, NULL, &out));
    char *s = strdup(out.data);
    mcp_buf_free(&out);
    return s;
}

START_TEST(handler_output_faults_are_located)
{
    the_book = good_book();
    the_book.author.name = NULL;
    char *s = invoke("shelve");
    ck_assert_str_eq(s, "{\"content\":[{\"type\":\"text\",\"text\":\"Error executing tool shelve: 1 validation "
                        "error for Book\\nauthor.name\\n  Input should be a valid string [type=string_type, "
                        "input_value=None, input_type=NoneType]\"}],\"isError\":true}");
    free(s);

    const char *titles[] = {"a", "b", NULL};
    the_titles = (codec_str_list){3, titles};
    s = invoke("titles");
    ck_assert_str_eq(s, "{\"content\":[{\"type\":\"text\",\"text\":\"Error executing tool titles: 1 validation "
                        "error for titlesOutput\\nresult.2\\n  Input should be a valid string [type=string_type, "
                        "input_value=None, input_type=NoneType]\"}],\"isError\":true}");
    free(s);

    the_titles = (codec_str_list){2, titles};
    s = invoke("titles");
    ck_assert_msg(strstr(s, "\"structuredContent\":{\"result\":[\"a\",\"b\"]}") != NULL, "%s", s);
    free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("codec_json");
    TCase *t = tcase_create("codec_json");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, from_json_fills_the_struct);
    tcase_add_test(t, from_json_reports_like_pydantic);
    tcase_add_test(t, from_json_members_patterns_and_extras);
    tcase_add_test(t, decode_keys_and_lengths);
    tcase_add_test(t, dict_keys_with_nul_are_refused);
    tcase_add_test(t, to_json_writes_structured_content);
    tcase_add_test(t, to_json_checks_like_an_output);
    tcase_add_test(t, round_trip);
    tcase_add_test(t, initializers_and_enums);
    tcase_add_test(t, to_json_locates_c_faults);
    tcase_add_test(t, handler_output_faults_are_located);
    suite_add_tcase(s, t);
    return check_run(s, true) ? EXIT_FAILURE : EXIT_SUCCESS;
}
