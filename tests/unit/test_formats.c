/* test_formats.c: the helpers of mcpidl/formats.h, and the runtime's checks of
 * the string-format types on the values the docs use as examples. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "check_run.h"
#include "internal/formats.h"
#include "mcpidl/formats.h"

static mcp_arena A;

static void setup(void) { mcp_arena_init(&A); }
static void teardown(void) { mcp_arena_free(&A); }

/* The canonical text of s as format f, or the error "type: message". */
static const char *judge(mcp_format f, const char *s)
{
    mcp_json v = {.kind = MCP_JSTRING, .s = s, .len = strlen(s)};
    const char *canon = NULL;
    bool oom = false;
    mcp_format_error e;
    if (mcp_format_check(f, &v, &A, &canon, &oom, &e))
        return canon;
    return mcp_arena_printf(&A, "%s: %s", mcp_verr_type_name(e.kind), e.message);
}

START_TEST(datetime_helpers)
{
    mcp_datetime dt;
    ck_assert(mcp_datetime_parse("2026-12-03T08:00:00.5+01:00", &dt));
    ck_assert_int_eq(dt.date.year, 2026);
    ck_assert_int_eq(dt.date.month, 12);
    ck_assert_int_eq(dt.date.day, 3);
    ck_assert_int_eq(dt.time.hour, 8);
    ck_assert_int_eq(dt.time.microsecond, 500000);
    ck_assert(dt.time.has_offset);
    ck_assert_int_eq(dt.time.offset_minutes, 60);
    ck_assert_str_eq(mcp_datetime_format(&A, &dt), "2026-12-03T08:00:00.500000+01:00");
    dt.time.offset_minutes = 0;
    ck_assert_str_eq(mcp_datetime_format(&A, &dt), "2026-12-03T08:00:00.500000Z");
    dt.date.month = 2;
    dt.date.day = 30;
    ck_assert_ptr_null(mcp_datetime_format(&A, &dt));
    dt.date.day = 28;
    dt.time.has_offset = false;
    ck_assert_ptr_null(mcp_datetime_format(&A, &dt)); /* a datetime has a time zone */
    ck_assert(!mcp_datetime_parse("2026-12-03T07:00:00", &dt));
    ck_assert(!mcp_datetime_parse("2026-12-03 07:00:00Z", &dt));
    ck_assert(!mcp_datetime_parse(NULL, &dt));
}
END_TEST

START_TEST(date_time_helpers)
{
    mcp_date d;
    ck_assert(mcp_date_parse("2024-02-29", &d));
    ck_assert(!mcp_date_parse("2023-02-29", &d));
    ck_assert(!mcp_date_parse("0000-01-01", &d));
    ck_assert_str_eq(mcp_date_format(&A, &(mcp_date){1, 1, 1}), "0001-01-01");
    mcp_time t;
    ck_assert(mcp_time_parse("07:00:00", &t));
    ck_assert(!t.has_offset);
    ck_assert_str_eq(mcp_time_format(&A, &t), "07:00:00");
    ck_assert(mcp_time_parse("23:59:59.1234567-05:30", &t));
    ck_assert_int_eq(t.microsecond, 123456);
    ck_assert_int_eq(t.offset_minutes, -330);
    ck_assert_str_eq(mcp_time_format(&A, &t), "23:59:59.123456-05:30");
    ck_assert(!mcp_time_parse("07:00", &t));
    ck_assert(!mcp_time_parse("24:00:00", &t));
}
END_TEST

START_TEST(timedelta_helpers)
{
    mcp_timedelta d;
    ck_assert(mcp_timedelta_parse("PT90M", &d));
    ck_assert_int_eq(d.days, 0);
    ck_assert_int_eq(d.seconds, 5400);
    ck_assert_str_eq(mcp_timedelta_format(&A, &d), "PT1H30M");
    ck_assert(mcp_timedelta_parse("P1Y2M3DT4H5M6S", &d));
    ck_assert_str_eq(mcp_timedelta_format(&A, &d), "P1Y63DT4H5M6S");
    ck_assert(mcp_timedelta_parse("P2W", &d));
    ck_assert_str_eq(mcp_timedelta_format(&A, &d), "P14D");
    ck_assert(mcp_timedelta_parse("PT0S", &d));
    ck_assert_str_eq(mcp_timedelta_format(&A, &d), "PT0S");
    ck_assert(!mcp_timedelta_parse("-P1D", &d));
    ck_assert(!mcp_timedelta_parse("PT1.5S", &d));
    ck_assert(!mcp_timedelta_parse("P1W2D", &d));
    ck_assert(!mcp_timedelta_parse("P1DT", &d));
    d = mcp_timedelta_from_us(-1);
    ck_assert_int_eq(d.days, -1);
    ck_assert_int_eq(d.seconds, 86399);
    ck_assert_int_eq(d.microseconds, 999999);
    ck_assert_ptr_null(mcp_timedelta_format(&A, &d)); /* negative: no text */
    int64_t us;
    ck_assert(mcp_timedelta_to_us(&d, &us));
    ck_assert(us == -1);
    d = mcp_timedelta_from_us(1500000);
    ck_assert_ptr_null(mcp_timedelta_format(&A, &d)); /* a fraction of a second: no text */
    d = mcp_timedelta_from_us(86400LL * 1000000 * 400);
    ck_assert_str_eq(mcp_timedelta_format(&A, &d), "P1Y35D");
}
END_TEST

START_TEST(uuid_url_decimal_helpers)
{
    mcp_uuid u;
    ck_assert(mcp_uuid_parse("6BA7B810-9DAD-11D1-80B4-00C04FD430C8", &u));
    ck_assert_int_eq(u.bytes[0], 0x6b);
    ck_assert_int_eq(u.bytes[15], 0xc8);
    ck_assert_str_eq(mcp_uuid_format(&A, &u), "6ba7b810-9dad-11d1-80b4-00c04fd430c8");
    ck_assert(!mcp_uuid_parse("6ba7b8109dad11d180b400c04fd430c8", &u));
    ck_assert_str_eq(mcp_url_normalize(&A, "HTTP://Example.COM:80"), "http://example.com/");
    ck_assert_str_eq(mcp_url_normalize(&A, "mailto:Someone@Example.org"), "mailto:Someone@Example.org");
    ck_assert_ptr_null(mcp_url_normalize(&A, "example.com"));
    ck_assert_ptr_null(mcp_url_normalize(&A, "http://example.com/\xc3\xa9"));
    ck_assert_str_eq(mcp_decimal_normalize(&A, "0001.50"), "1.50");
    ck_assert_str_eq(mcp_decimal_normalize(&A, "+.5"), "0.5");
    ck_assert_str_eq(mcp_decimal_normalize(&A, "-0"), "-0");
    ck_assert_str_eq(mcp_decimal_normalize(&A, "0.0000001"), "0.0000001");
    ck_assert_str_eq(mcp_decimal_normalize(&A, "5."), "5");
    ck_assert_ptr_null(mcp_decimal_normalize(&A, "1e5"));
    ck_assert_ptr_null(mcp_decimal_normalize(&A, "."));
}
END_TEST

START_TEST(reports)
{
    ck_assert_str_eq(judge(MCP_FMT_DATETIME, "2026-12-03"),
                     "datetime_parsing: Input should be a valid datetime, invalid datetime separator, expected `T`, "
                     "`t`, `_` or space");
    ck_assert_str_eq(judge(MCP_FMT_DATETIME, "2026-12-03T07:00:00"), "timezone_aware: Input should have timezone info");
    ck_assert_str_eq(judge(MCP_FMT_DATE, "2026-13-01"),
                     "date_parsing: Input should be a valid date in the format YYYY-MM-DD, month value is outside "
                     "expected range of 1-12");
    ck_assert_str_eq(
        judge(MCP_FMT_TIME, "25:00"),
        "time_parsing: Input should be in a valid time format, hour value is outside expected range of 0-23");
    ck_assert_str_eq(judge(MCP_FMT_TIMEDELTA, "P1X"),
                     "time_delta_parsing: Input should be a valid duration, quantity invalid in date part of duration");
    ck_assert_str_eq(judge(MCP_FMT_UUID, "x"),
                     "uuid_parsing: Input should be a valid UUID, invalid character: found `x` at 1");
    ck_assert_str_eq(judge(MCP_FMT_UUID, "2026-12-03"),
                     "uuid_parsing: Input should be a valid UUID, invalid group count: expected 5, found 3");
    ck_assert_str_eq(judge(MCP_FMT_URL, ""), "url_parsing: Input should be a valid URL, input is empty");
    ck_assert_str_eq(judge(MCP_FMT_URL, "http:/a.b"),
                     "url_syntax_violation: Input violated strict URL syntax rules, expected //");
    ck_assert_str_eq(judge(MCP_FMT_DECIMAL, "abc"), "decimal_parsing: Input should be a valid decimal");
    ck_assert_str_eq(judge(MCP_FMT_DECIMAL, "-Infinity"), "finite_number: Input should be a finite number");
    ck_assert_str_eq(judge(MCP_FMT_DATETIME, "2026-12-03t07:00:00.1234567z"), "2026-12-03T07:00:00.123456Z");
    ck_assert_str_eq(judge(MCP_FMT_TIMEDELTA, "PT36H"), "P1DT12H");
    /* not a string */
    mcp_json n = {.kind = MCP_JINT, .i = 5};
    const char *canon;
    bool oom = false;
    mcp_format_error e;
    ck_assert(!mcp_format_check(MCP_FMT_UUID, &n, &A, &canon, &oom, &e));
    ck_assert_str_eq(e.message, "UUID input should be a string, bytes or UUID object");
    ck_assert(mcp_format_check(MCP_FMT_DECIMAL, &n, &A, &canon, &oom, &e));
    ck_assert_str_eq(canon, "5");
    mcp_json f = {.kind = MCP_JFLOAT, .d = 1.5e-7};
    ck_assert(mcp_format_check(MCP_FMT_DECIMAL, &f, &A, &canon, &oom, &e));
    ck_assert_str_eq(canon, "0.00000015");
}
END_TEST

static Suite *formats_suite(void)
{
    Suite *s = suite_create("formats");
    TCase *t = tcase_create("formats");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, datetime_helpers);
    tcase_add_test(t, date_time_helpers);
    tcase_add_test(t, timedelta_helpers);
    tcase_add_test(t, uuid_url_decimal_helpers);
    tcase_add_test(t, reports);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    int failed = check_run(formats_suite(), true);
    return failed != 0;
}
