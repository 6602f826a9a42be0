/* test_report.c: validation reports as pydantic prints them. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcpidl/report.h"
#include "check_run.h"

#define REQUIRE(cond, ...) \
    do { \
        if (!(cond)) \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)

static mcp_arena A;
static mcp_buf B;
static mcp_report R;

static void setup(void)
{
    mcp_arena_init(&A);
    mcp_buf_init(&B);
    mcp_report_init(&R, &A);
}

static void teardown(void)
{
    mcp_arena_free(&A);
    mcp_buf_free(&B);
}

static mcp_json *parse(const char *text)
{
    mcp_json_err e;
    size_t at;
    mcp_json *v = mcp_json_parse(&A, text, strlen(text), NULL, &e, &at);
    REQUIRE(v, "parse failed: %s at %zu: %s", mcp_json_error_str(e), at, text);
    return v;
}

static const char *format(const char *title)
{
    mcp_buf_clear(&B);
    mcp_report_format(&B, &R, title);
    ck_assert(!B.oom);
    return B.data;
}

/* A constraint's number in pydantic's messages: f64 bits, then the text
 * pydantic 2.13.4 printed in "Input should be less than N". */
static const struct {
    uint64_t bits;
    const char *text;
} rust_numbers[] = {
    {0x0000000000000000ULL, "0"},
    {0x8000000000000000ULL, "-0"},
    {0x4030333333333333ULL, "16.2"},
    {0x4031000000000000ULL, "17"},
    {0x430c6bf526340000ULL, "1000000000000000"},
    {0x4341c37937e08000ULL, "10000000000000000"},
    {0x3f1a36e2eb1c432dULL, "0.0001"},
    {0x3ee4f8b588e368f1ULL, "0.00001"},
    {0x3e8421f5f40d8376ULL, "0.00000015"},
    {0x3fb999999999999aULL, "0.1"},
    {0x3fd3333333333333ULL, "0.3"},
    {0x3fd5555555555555ULL, "0.3333333333333333"},
    {0x43e0000000000000ULL, "9223372036854776000"},
    {0xc3e0000000000000ULL, "-9223372036854776000"},
    {0x437b69b4ba630f35ULL, "123456789012345680"},
    {0x4341c37937e07fffULL, "9999999999999998"},
    {0x4480f0cf064dd592ULL, "10000000000000000000000"},
    {0x44b52d02c7e14af6ULL, "100000000000000000000000"},
    {0x3f202c9dedbc309dULL, "0.0001234"},
    {0x3ee9e0fcaf9380fcULL, "0.00001234"},
    {0x01a56e1fc2f8f359ULL,
     "0."
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000000001"},
    {0x4011666666666666ULL, "4.35"},
    {0xbb91433a6aa79987ULL, "-0.00000000000000000000091387497028769"},
    {0xd1f6f86c029a7245ULL, "-713982045430963200000000000000000000000000000000000000000000000000000000000000000000000"},
    {0xcd8778e7d340bbcdULL, "-308990046730050600000000000000000000000000000000000000000000000000"},
    {0xdaea58ba4c73a942ULL, "-91312998874347010000000000000000000000000000000000000000000000000000000000000000000000000"
                            "00000000000000000000000000000000000000000"},
    {0xee8971105e503a67ULL, "-29428773564800830000000000000000000000000000000000000000000000000000000000000000000000000"
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "0000000000000000000000000000000000000000000000"},
    {0x452ec40a3193ca54ULL, "18596773229471727000000000"},
    {0x6facaa5090e5e945ULL, "869206722700229100000000000000000000000000000000000000000000000000000000000000000000000000"
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "00000000000000000000000000000000000000000000000000"},
    {0x5f811cb929645f8bULL, "112029831767323310000000000000000000000000000000000000000000000000000000000000000000000000"
                            "000000000000000000000000000000000000000000000000000000000000000"},
    {0xdfc9e3b11fcff454ULL, "-27118780487767300000000000000000000000000000000000000000000000000000000000000000000000000"
                            "00000000000000000000000000000000000000000000000000000000000000000"},
    {0x42d6cb5c6ed4e94bULL, "100250739757989.17"},
    {0xa091250e8fe46024ULL, "-0."
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "00000000000000000000000000000000000000000000000000000000000008183770430730414"},
    {0x9c9cea0c2ca1c789ULL,
     "-0."
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "0000000000000000000000000000000000000000000000000000000007481942688750341"},
    {0x2fd2b7a48d9fe5b9ULL,
     "0.000000000000000000000000000000000000000000000000000000000000000000000000000002525722336173709"},
    {0xbcf74d7a5adad121ULL, "-0.0000000000000051742273216317384"},
    {0xbb9d58e4f543bbcfULL, "-0.0000000000000000000015536301412264183"},
    {0x87f26aee175f0cd2ULL,
     "-0."
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000021789094907487126"},
    {0xbc428d42fa882692ULL, "-0.000000000000000002011390540120253"},
    {0x95c5fb986980a81fULL,
     "-0."
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000008764271883973625"},
    {0x2aa4857e8101e89aULL, "0."
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "0000000000002863253393402251"},
    {0x34a9af4125ece845ULL, "0.00000000000000000000000000000000000000000000000000000052374923668024025"},
    {0x13ed748bb80e3b0dULL, "0."
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "000000000000000000000000000000010936941514836716"},
    {0xd64a3ce030a1f6d5ULL,
     "-481410788069621440000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
    {0x527122dc57708107ULL,
     "136355485349276650000000000000000000000000000000000000000000000000000000000000000000000000"},
    {0x7576714a06057c82ULL, "673950859575860500000000000000000000000000000000000000000000000000000000000000000000000000"
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000"},
    {0x06e0f45856eaa301ULL,
     "0."
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000015303059611217572"},
    {0x82bde024f7acee22ULL,
     "-0."
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "0000000000000000000000000000000000000000000000000000000000000000000018272601399104736"},
    {0xb0d26ee6fa928906ULL,
     "-0.00000000000000000000000000000000000000000000000000000000000000000000000016301294128168097"},
    {0x6a5ccc2cbe99854aULL,
     "22572140005785964000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
    {0x01b5577d00e266d0ULL,
     "0."
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000019917479904700448"},
    {0xa9f559fcf0b37868ULL, "-0."
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "00000000000000014546223495953267"},
    {0x29ef41d0deea959eULL, "0."
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "00000000000000010647315861075762"},
    {0x94820a06c555663fULL,
     "-0."
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000685882119867777"},
    {0x495cfa4f2dcaabd5ULL, "2584903520865492800000000000000000000000000000"},
    {0xa70ce1b51978cec0ULL, "-0."
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "0000000000000000000000000000013980865026926386"},
    {0x1b1bcf726a1eccdaULL,
     "0."
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000042893241473530543"},
    {0xae711399e2b2848bULL,
     "-0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000005493913207906451"},
    {0x2e80dbd593fd7234ULL,
     "0.000000000000000000000000000000000000000000000000000000000000000000000000000000000001084765896058589"},
    {0x600027e8bc90a6ecULL, "270768921846630950000000000000000000000000000000000000000000000000000000000000000000000000"
                            "00000000000000000000000000000000000000000000000000000000000000000"},
    {0xf5cdb9413b8d0e76ULL, "-28563304288860733000000000000000000000000000000000000000000000000000000000000000000000000"
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
    {0x9893588c860a7da1ULL,
     "-0."
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000000000002713760756235414"},
    {0xe9c329a8b59a5969ULL,
     "-2933624402582053400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
    {0x5473da68d3285151ULL,
     "678497546465618400000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
    {0x0a4de3e4ce9fb6a8ULL,
     "0."
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000004860072067895261"},
    {0x1eab5cd83b788b66ULL, "0."
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "00000000000000000000000000000000000000000000000000000000000000000000006082062402788562"},
    {0xbcb8a0843764b52eULL, "-0.0000000000000003417685226750283"},
    {0xc18c6da1cd4944b6ULL, "-59618361.66077559"},
    {0xab721ab08e1a11f0ULL, "-0."
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "0000000020692936927247466"},
    {0x41fad2962f927291ULL, "7200137977.15297"},
    {0x6f05571896af0deaULL, "631925125154919500000000000000000000000000000000000000000000000000000000000000000000000000"
                            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                            "00000000000000000000000000000000000000000000000"},
    {0xea80db0684ab5616ULL,
     "-1056940311011457000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
};

START_TEST(type_names)
{
    /* IDL.md, "The call result", plus int_parsing. */
    static const struct {
        mcp_verr_kind k;
        const char *name;
        const char *message;
    } kinds[] = {
        {MCP_VERR_MISSING, "missing", "Field required"},
        {MCP_VERR_MODEL_TYPE, "model_type", NULL},
        {MCP_VERR_DICT_TYPE, "dict_type", "Input should be a valid dictionary"},
        {MCP_VERR_LIST_TYPE, "list_type", "Input should be a valid list"},
        {MCP_VERR_TUPLE_TYPE, "tuple_type", "Input should be a valid tuple"},
        {MCP_VERR_SET_TYPE, "set_type", "Input should be a valid set"},
        {MCP_VERR_STRING_TYPE, "string_type", "Input should be a valid string"},
        {MCP_VERR_INT_TYPE, "int_type", "Input should be a valid integer"},
        {MCP_VERR_INT_FROM_FLOAT, "int_from_float",
         "Input should be a valid integer, got a number with a fractional part"},
        {MCP_VERR_INT_PARSING, "int_parsing", "Input should be a valid integer, unable to parse string as an integer"},
        {MCP_VERR_INT_PARSING_SIZE, "int_parsing_size",
         "Unable to parse input string as an integer, exceeded maximum size"},
        {MCP_VERR_FLOAT_TYPE, "float_type", "Input should be a valid number"},
        {MCP_VERR_FINITE_NUMBER, "finite_number", "Input should be a finite number"},
        {MCP_VERR_BOOL_TYPE, "bool_type", "Input should be a valid boolean"},
        {MCP_VERR_NONE_REQUIRED, "none_required", "Input should be None"},
        {MCP_VERR_GREATER_THAN, "greater_than", NULL},
        {MCP_VERR_GREATER_THAN_EQUAL, "greater_than_equal", NULL},
        {MCP_VERR_LESS_THAN, "less_than", NULL},
        {MCP_VERR_LESS_THAN_EQUAL, "less_than_equal", NULL},
        {MCP_VERR_MULTIPLE_OF, "multiple_of", NULL},
        {MCP_VERR_STRING_TOO_SHORT, "string_too_short", NULL},
        {MCP_VERR_STRING_TOO_LONG, "string_too_long", NULL},
        {MCP_VERR_STRING_PATTERN, "string_pattern_mismatch", NULL},
        {MCP_VERR_TOO_SHORT, "too_short", NULL},
        {MCP_VERR_TOO_LONG, "too_long", NULL},
        {MCP_VERR_UNIQUE_ITEMS, "unique_items", "Set items should be unique"},
        {MCP_VERR_LITERAL, "literal_error", NULL},
        {MCP_VERR_ENUM, "enum", NULL},
        {MCP_VERR_EXTRA_FORBIDDEN, "extra_forbidden", "Extra inputs are not permitted"},
        {MCP_VERR_STRING_UNICODE, "string_unicode",
         "Input should be a valid string, unable to parse raw data as a unicode string"},
        {MCP_VERR_VALUE_ERROR, "value_error", NULL},
        {MCP_VERR_DATETIME_TYPE, "datetime_type", "Input should be a valid datetime"},
        {MCP_VERR_DATETIME_PARSING, "datetime_parsing", NULL},
        {MCP_VERR_TIMEZONE_AWARE, "timezone_aware", "Input should have timezone info"},
        {MCP_VERR_DATE_TYPE, "date_type", "Input should be a valid date"},
        {MCP_VERR_DATE_PARSING, "date_parsing", NULL},
        {MCP_VERR_TIME_TYPE, "time_type", "Input should be a valid time"},
        {MCP_VERR_TIME_PARSING, "time_parsing", NULL},
        {MCP_VERR_TIME_DELTA_TYPE, "time_delta_type", "Input should be a valid duration"},
        {MCP_VERR_TIME_DELTA_PARSING, "time_delta_parsing", NULL},
        {MCP_VERR_UUID_TYPE, "uuid_type", "UUID input should be a string, bytes or UUID object"},
        {MCP_VERR_UUID_PARSING, "uuid_parsing", NULL},
        {MCP_VERR_URL_TYPE, "url_type", "URL input should be a string or URL"},
        {MCP_VERR_URL_PARSING, "url_parsing", NULL},
        {MCP_VERR_URL_SYNTAX_VIOLATION, "url_syntax_violation", NULL},
        {MCP_VERR_DECIMAL_TYPE, "decimal_type", "Decimal input should be an integer, float, string or Decimal object"},
        {MCP_VERR_DECIMAL_PARSING, "decimal_parsing", "Input should be a valid decimal"},
    };
    ck_assert_uint_eq(sizeof kinds / sizeof kinds[0], MCP_VERR_KIND_COUNT);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        ck_assert_str_eq(mcp_verr_type_name(kinds[i].k), kinds[i].name);
        if (kinds[i].message)
            ck_assert_str_eq(mcp_verr_message(kinds[i].k), kinds[i].message);
        else
            ck_assert_ptr_null(mcp_verr_message(kinds[i].k));
    }
    ck_assert_str_eq(mcp_verr_type_name(MCP_VERR_KIND_COUNT), "unknown");
    ck_assert_str_eq(mcp_verr_type_name((mcp_verr_kind)-1), "unknown");
    ck_assert_ptr_null(mcp_verr_message(MCP_VERR_KIND_COUNT));
}
END_TEST

/* The texts the MCP Python SDK printed. */
START_TEST(sdk_examples)
{
    mcp_json *weather = parse("{\"temperature\": 16.2, \"conditions\": \"Overcast\"}");
    mcp_report_push_key(&R, "humidity", 8);
    mcp_report_add_simple(&R, MCP_VERR_MISSING, weather);
    mcp_report_pop(&R);
    ck_assert_str_eq(format("WeatherData"),
                     "1 validation error for WeatherData\nhumidity\n  Field required [type=missing, "
                     "input_value={'temperature': 16.2, 'conditions': 'Overcast'}, input_type=dict]");

    mcp_report_init(&R, &A);
    mcp_report_push_key(&R, "result", 6);
    mcp_report_add_simple(&R, MCP_VERR_INT_FROM_FLOAT, parse("17.5"));
    mcp_report_pop(&R);
    ck_assert_str_eq(format("get_temperatureOutput"),
                     "1 validation error for get_temperatureOutput\nresult\n  Input should be a valid integer, got "
                     "a number with a fractional part [type=int_from_float, input_value=17.5, input_type=float]");

    mcp_report_init(&R, &A);
    mcp_json *person = parse("{\"address\": {\"street\": \"s\"}, \"others\": [{\"city\": 1}]}");
    mcp_report_push_key(&R, "address", 7);
    mcp_report_push_key(&R, "city", 4);
    mcp_report_add_simple(&R, MCP_VERR_MISSING, mcp_json_get(person, "address"));
    mcp_report_pop(&R);
    mcp_report_pop(&R);
    mcp_report_push_key(&R, "others", 6);
    mcp_report_push_index(&R, 0);
    const mcp_json *other = mcp_json_get(person, "others")->items[0];
    mcp_report_push_key(&R, "street", 6);
    mcp_report_add_simple(&R, MCP_VERR_MISSING, other);
    mcp_report_pop(&R);
    mcp_report_push_key(&R, "city", 4);
    mcp_report_add_simple(&R, MCP_VERR_STRING_TYPE, mcp_json_get(other, "city"));
    mcp_report_pop(&R);
    mcp_report_pop(&R);
    mcp_report_pop(&R);
    ck_assert_uint_eq(R.depth, 0);
    ck_assert_str_eq(format("Person"),
                     "3 validation errors for Person\naddress.city\n  Field required [type=missing, "
                     "input_value={'street': 's'}, input_type=dict]\nothers.0.street\n  Field required "
                     "[type=missing, input_value={'city': 1}, input_type=dict]\nothers.0.city\n  Input should "
                     "be a valid string [type=string_type, input_value=1, input_type=int]");

    /* At the root: no location line. */
    mcp_report_init(&R, &A);
    mcp_report_add(&R, MCP_VERR_MODEL_TYPE, parse("[1, 2]"),
                   "Input should be a valid dictionary or instance of WeatherData");
    ck_assert_str_eq(format("WeatherData"),
                     "1 validation error for WeatherData\n  Input should be a valid dictionary or instance of "
                     "WeatherData [type=model_type, input_value=[1, 2], input_type=list]");

    /* A long string, and others the reference quotes. */
    mcp_report_init(&R, &A);
    mcp_report_push_key(&R, "result", 6);
    char x[61];
    memset(x, 'x', 60);
    x[60] = 0;
    mcp_report_add_simple(&R, MCP_VERR_INT_TYPE, mcp_json_new_string(&A, x, 60));
    mcp_report_add_simple(&R, MCP_VERR_INT_TYPE, parse("null"));
    mcp_report_push_index(&R, 2);
    mcp_report_add_simple(&R, MCP_VERR_INT_TYPE, parse("[5]"));
    mcp_report_pop(&R);
    mcp_report_pop(&R);
    mcp_report_push_key(&R, "limit", 5);
    mcp_report_add(&R, MCP_VERR_LESS_THAN_EQUAL, parse("999"), "Input should be less than or equal to 50");
    mcp_report_pop(&R);
    ck_assert_str_eq(format("get_intOutput"),
                     "4 validation errors for get_intOutput\nresult\n  Input should be a valid integer "
                     "[type=int_type, input_value='xxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxx', "
                     "input_type=str]\nresult\n  Input should be a valid integer [type=int_type, "
                     "input_value=None, input_type=NoneType]\nresult.2\n  Input should be a valid integer "
                     "[type=int_type, input_value=[5], input_type=list]\nlimit\n  Input should be less than or "
                     "equal to 50 [type=less_than_equal, input_value=999, input_type=int]");
}
END_TEST

START_TEST(locations)
{
    mcp_json *one = parse("1");
    /* Keys with a '.' in backquotes (pydantic's LocItem display). */
    mcp_report_push_key(&R, "a.b", 3);
    mcp_report_push_index(&R, 12);
    mcp_report_push_key(&R, "list[int]", 9);
    mcp_report_push_key(&R, ".", 1);
    mcp_report_add_simple(&R, MCP_VERR_STRING_TYPE, one);
    ck_assert_str_eq(R.items[0].loc, "`a.b`.12.list[int].`.`");
    ck_assert_uint_eq(R.items[0].loc_len, strlen("`a.b`.12.list[int].`.`"));
    ck_assert_uint_eq(R.items[0].loc_depth, 4);
    R.depth = 0;
    /* An empty key: an empty location line, not none. */
    mcp_report_push_key(&R, "", 0);
    mcp_report_add_simple(&R, MCP_VERR_STRING_TYPE, one);
    mcp_report_pop(&R);
    /* A key with a NUL byte. */
    mcp_report_push_key(&R, "k\0z", 3);
    mcp_report_add_simple(&R, MCP_VERR_STRING_TYPE, one);
    mcp_report_pop(&R);
    /* NULL input: None. A message the caller then overwrites: copied. */
    char msg[64];
    strcpy(msg, "Input should be 'a' or 'b'");
    mcp_report_add(&R, MCP_VERR_LITERAL, NULL, msg);
    strcpy(msg, "overwritten");
    static const char want[] =
        "4 validation errors for T\n`a.b`.12.list[int].`.`\n  Input should be a valid string "
        "[type=string_type, input_value=1, input_type=int]\n\n  Input should be a valid string "
        "[type=string_type, input_value=1, input_type=int]\nk\0z\n  Input should be a valid string "
        "[type=string_type, input_value=1, input_type=int]\n  Input should be 'a' or 'b' "
        "[type=literal_error, input_value=None, input_type=NoneType]";
    format("T");
    ck_assert_uint_eq(B.len, sizeof want - 1); /* want holds a NUL */
    size_t want_len = sizeof want - 1;
    ck_assert(memcmp(B.data, want, want_len) == 0);
    /* Deeper than MCP_LOC_MAX: the first MCP_LOC_MAX segments. */
    mcp_report_init(&R, &A);
    for (size_t i = 0; i < MCP_LOC_MAX + 10; i++)
        mcp_report_push_index(&R, i % 10);
    mcp_report_add_simple(&R, MCP_VERR_MISSING, one);
    ck_assert_uint_eq(R.items[0].loc_depth, MCP_LOC_MAX);
    ck_assert_uint_eq(R.items[0].loc_len, MCP_LOC_MAX * 2 - 1);
    ck_assert(strncmp(R.items[0].loc, "0.1.2.3.4.5.6.7.8.9.0.1", 23) == 0);
    /* add_simple misused on a kind with a parameter: its type name. */
    mcp_report_init(&R, &A);
    mcp_report_add_simple(&R, MCP_VERR_GREATER_THAN, one);
    ck_assert_str_eq(R.items[0].message, "greater_than");
    /* No arena: dropped, oom. */
    mcp_report r2;
    mcp_report_init(&r2, NULL);
    mcp_report_add_simple(&r2, MCP_VERR_MISSING, one);
    ck_assert(r2.oom);
    ck_assert_uint_eq(r2.len, 0);
}
END_TEST

START_TEST(many_errors)
{
    /* Every error counts; the first MCP_REPORT_MAX_ITEMS are kept and
     * printed, then one line says how many more: the report of a hostile
     * input stays small whatever the input's size. */
    mcp_json *v = parse("\"v\"");
    size_t arena_before = A.used;
    for (size_t i = 0; i < 100000; i++) {
        mcp_report_push_index(&R, i);
        mcp_report_add_simple(&R, MCP_VERR_INT_TYPE, v);
        mcp_report_pop(&R);
    }
    ck_assert(!R.oom);
    ck_assert_uint_eq(R.len, 100000);
    ck_assert_uint_le(R.cap, 2 * MCP_REPORT_MAX_ITEMS);
    ck_assert_uint_lt(A.used - arena_before, 64u << 10);
    ck_assert_str_eq(R.items[MCP_REPORT_MAX_ITEMS - 1].loc, "99");
    format("M");
    ck_assert(strncmp(B.data,
                      "100000 validation errors for M\n0\n  Input should be a valid integer [type=int_type, "
                      "input_value='v', input_type=str]\n1\n",
                      100) == 0);
    static const char tail[] = "\n99\n  Input should be a valid integer [type=int_type, input_value='v', "
                               "input_type=str]\n... and 99900 more errors";
    ck_assert_uint_gt(B.len, sizeof tail);
    ck_assert_str_eq(B.data + B.len - (sizeof tail - 1), tail);
    ck_assert_uint_lt(B.len, 100 * 100);
    /* Exactly at the cap: no last line; one over: "1 more error". */
    mcp_report_init(&R, &A);
    for (size_t i = 0; i <= MCP_REPORT_MAX_ITEMS; i++) {
        if (i == MCP_REPORT_MAX_ITEMS) {
            format("M");
            ck_assert(B.data[B.len - 1] == ']');
        }
        mcp_report_add_simple(&R, MCP_VERR_INT_TYPE, v);
    }
    format("M");
    ck_assert(strstr(B.data, "]\n... and 1 more error") && B.data[B.len - 1] == 'r');
    /* A union's arms roll the count back (codec.c): errors added after that
     * are kept again while under the cap. */
    R.len = 3;
    mcp_report_add_simple(&R, MCP_VERR_MISSING, v);
    ck_assert_uint_eq(R.len, 4);
    ck_assert_int_eq(R.items[3].kind, MCP_VERR_MISSING);
}
END_TEST

START_TEST(huge_input_is_bounded)
{
    /* A 5 MB array, a 5 MB string, a 5 MB object. */
    size_t n = 5u << 20;
    mcp_buf t;
    mcp_buf_init(&t);
    mcp_buf_putc(&t, '[');
    while (t.len < n)
        mcp_buf_puts(&t, "12345678,");
    mcp_buf_puts(&t, "0]");
    mcp_json *arr = parse(t.data);
    mcp_json *str = mcp_json_new_string(&A, t.data, t.len);
    mcp_buf_clear(&t);
    mcp_buf_putc(&t, '{');
    for (size_t i = 0; t.len < n; i++)
        mcp_buf_printf(&t, "\"key%zu\":\"%s\",", i, "valuevaluevalue");
    mcp_buf_puts(&t, "\"last\":null}");
    mcp_json *obj = parse(t.data);
    mcp_buf_free(&t);
    clock_t t0 = clock();
    for (int i = 0; i < 100; i++) {
        mcp_report_push_key(&R, "f", 1);
        mcp_report_add_simple(&R, MCP_VERR_MISSING, i % 3 == 0 ? arr : i % 3 == 1 ? str : obj);
        mcp_report_pop(&R);
    }
    format("Big");
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    ck_assert_uint_lt(B.len, 100 * 130);
    ck_assert(strstr(B.data, "input_value=[12345678, 12345678, 1234..., 12345678, 12345678, 0], input_type=list"));
    ck_assert(strstr(B.data, "input_value='[12345678,12345678,12345...78,12345678,12345678,0]', input_type=str"));
    ck_assert(strstr(B.data, "input_value={'key0': 'valuevaluevalue...luevalue', 'last': None}, input_type=dict"));
    ck_assert_msg(secs < 5, "100 errors on 5 MB inputs took %.2f s", secs);
}
END_TEST

START_TEST(constraint_numbers)
{
    for (size_t i = 0; i < sizeof rust_numbers / sizeof rust_numbers[0]; i++) {
        double d;
        memcpy(&d, &rust_numbers[i].bits, sizeof d);
        mcp_buf_clear(&B);
        mcp_report_number(&B, d);
        REQUIRE(strcmp(B.data, rust_numbers[i].text) == 0, "%.17g: %s, want %s", d, B.data, rust_numbers[i].text);
    }
    static const struct {
        double d;
        const char *text;
    } named[] = {
        {1.0, "1"},
        {1.5, "1.5"},
        {1e-7, "0.0000001"},
        {1e20, "100000000000000000000"},
        {-0.0, "-0"},
        {0.0, "0"},
        {0.001, "0.001"},
        {-5, "-5"},
        {NAN, "NaN"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
        {2.5e-5, "0.000025"},
        {123456789.125, "123456789.125"},
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        mcp_buf_clear(&B);
        mcp_report_number(&B, named[i].d);
        REQUIRE(strcmp(B.data, named[i].text) == 0, "%s, want %s", B.data, named[i].text);
    }
}
END_TEST

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *t = tcase_create("report");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, type_names);
    tcase_add_test(t, sdk_examples);
    tcase_add_test(t, locations);
    tcase_add_test(t, many_errors);
    tcase_add_test(t, huge_input_is_bounded);
    tcase_add_test(t, constraint_numbers);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    int failed = check_run(report_suite(), true);
    return failed != 0;
}
