/* fuzz_formats: the checkers of the string-format types (lib/codec/formats.c),
 * on a text. The first byte chooses the format (its value mod 7: datetime,
 * date, time, timedelta, uuid, url, decimal), the rest is the text.
 *
 * Properties:
 *   - the verdict equals that of a reference written here independently, by
 *     the grammar of each format (datetime, date, time, timedelta, uuid,
 *     decimal; the URL Standard is too large to write twice, so a url has the
 *     other properties only);
 *   - a valid text's canonical form is valid, and its own canonical form
 *     (idempotent); parsing it with the public helper and formatting the result
 *     gives it back;
 *   - a refusal has a message that starts as pydantic's do and an error type
 *     of the format's (or, for a decimal, finite_number or string_pattern_mismatch).
 */
#include <string.h>

#include "fuzz_util.h"
#include "internal/formats.h"
#include "mcpidl/formats.h"

/* ---------------------------------------------------------------- references */

static int dig(const char *s, size_t n) /* n digits as a number, or -1 */
{
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static int mdays(int y, int m)
{
    static const int D[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0) ? 29 : D[m - 1];
}

/* YYYY-MM-DD */
static bool ref_date(const char *s, size_t n)
{
    if (n != 10 || s[4] != '-' || s[7] != '-')
        return false;
    int y = dig(s, 4), m = dig(s + 5, 2), d = dig(s + 8, 2);
    return y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= mdays(y, m);
}

/* HH:MM:SS[.d+][Z|z|(+|-)HH:MM], the offset required or not */
static bool ref_time(const char *s, size_t n, bool need_offset)
{
    if (n < 8 || s[2] != ':' || s[5] != ':')
        return false;
    int h = dig(s, 2), mi = dig(s + 3, 2), se = dig(s + 6, 2);
    if (h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59)
        return false;
    size_t i = 8;
    if (i < n && s[i] == '.') {
        size_t f = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == f)
            return false;
    }
    if (i == n)
        return !need_offset;
    if ((s[i] == 'Z' || s[i] == 'z') && i + 1 == n)
        return true;
    if ((s[i] == '+' || s[i] == '-') && n - i == 6 && s[i + 3] == ':') {
        int oh = dig(s + i + 1, 2), om = dig(s + i + 4, 2);
        return oh >= 0 && oh <= 23 && om >= 0 && om <= 59;
    }
    return false;
}

static bool ref_datetime(const char *s, size_t n)
{
    return n > 11 && ref_date(s, 10) && (s[10] == 'T' || s[10] == 't') && ref_time(s + 11, n - 11, true);
}

/* P[nY][nM][nD][T[nH][nM][nS]] or PnW (Ajv's reading of RFC 3339's duration), each
 * n below 2^32, the whole within 999,999,999 days (pydantic's bounds); -1 when
 * the numbers are beyond what this reference sums exactly (not judged). */
static int ref_duration(const char *s, size_t n)
{
    if (n < 2 || s[0] != 'P')
        return 0;
    size_t i = 1;
    static const char DATE[] = "YMD", TIME[] = "HMS";
    static const unsigned long long DSEC[] = {365ULL * 86400, 30ULL * 86400, 86400}, TSEC[] = {3600, 60, 1};
    unsigned long long days = 0, secs = 0;
    bool any = false, t = false;
    int rank = -1;
    /* PnW */
    size_t j = 1;
    while (j < n && s[j] >= '0' && s[j] <= '9')
        j++;
    if (j > 1 && j + 1 == n && s[j] == 'W') {
        if (j - 1 > 9)
            return -1;
        return dig(s + 1, j - 1) * 7LL <= 999999999LL ? 1 : -1;
    }
    while (i < n) {
        if (s[i] == 'T') {
            if (t || i + 1 == n)
                return 0;
            t = true;
            rank = -1;
            i++;
            continue;
        }
        size_t k = i;
        while (k < n && s[k] >= '0' && s[k] <= '9')
            k++;
        if (k == i || k == n)
            return 0;
        if (k - i > 9)
            return -1;
        unsigned long long v = (unsigned long long)dig(s + i, k - i);
        const char *units = t ? TIME : DATE;
        const char *u = strchr(units, s[k]);
        if (!u || !s[k] || (int)(u - units) <= rank)
            return 0;
        rank = (int)(u - units);
        if (t) {
            secs += v * TSEC[rank];
            if (secs > 4294967295ULL)
                return -1;
        } else {
            days += v * DSEC[rank] / 86400;
        }
        any = true;
        i = k + 1;
    }
    if (!any)
        return 0;
    return days + secs / 86400 <= 999999999ULL ? 1 : -1;
}

static bool ref_uuid(const char *s, size_t n)
{
    if (n != 36)
        return false;
    for (size_t i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        bool hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F');
        if (dash ? s[i] != '-' : !hex)
            return false;
    }
    return true;
}

/* ^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$ */
static bool ref_decimal(const char *s, size_t n)
{
    size_t i = 0, digits = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    if (i < n && s[i] == '.')
        i++;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    return i == n && digits > 0;
}

/* ---------------------------------------------------------------- the target */

static const char *canon_of(mcp_format f, const char *s, size_t n, mcp_arena *a)
{
    mcp_json v = {.kind = MCP_JSTRING, .s = s, .len = n};
    const char *canon = NULL;
    bool oom = false;
    mcp_format_error e;
    if (!mcp_format_check(f, &v, a, &canon, &oom, &e))
        return NULL;
    FUZZ_CHECK(canon != NULL);
    return canon;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    mcp_format f = (mcp_format)(MCP_FMT_DATETIME + data[0] % 7);
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    char *z = malloc(n + 1); /* NUL-terminated copy, for the public helpers */
    FUZZ_CHECK(z != NULL);
    memcpy(z, s, n);
    z[n] = 0;

    mcp_format_error e;
    memset(&e, 0, sizeof e);
    bool ok = mcp_format_check_text(f, s, n, &e);
    int ref = -1;
    switch (f) {
    case MCP_FMT_DATETIME:
        ref = ref_datetime(s, n);
        break;
    case MCP_FMT_DATE:
        ref = ref_date(s, n);
        break;
    case MCP_FMT_TIME:
        ref = ref_time(s, n, false);
        break;
    case MCP_FMT_TIMEDELTA:
        ref = ref_duration(s, n);
        break;
    case MCP_FMT_UUID:
        ref = ref_uuid(s, n);
        break;
    case MCP_FMT_DECIMAL:
        ref = ref_decimal(s, n);
        break;
    default:
        break;
    }
    if (ref >= 0)
        FUZZ_CHECK(ok == (ref == 1));

    if (!ok) {
        FUZZ_CHECK(e.message[0] != 0);
        FUZZ_CHECK(strncmp(e.message, "Input ", 6) == 0 || strncmp(e.message, "String should", 13) == 0 ||
                   strncmp(e.message, "UUID input", 10) == 0);
        const char *ty = mcp_verr_type_name(e.kind);
        FUZZ_CHECK(strcmp(ty, "unknown") != 0);
    } else {
        mcp_arena a;
        mcp_arena_init(&a);
        const char *c1 = canon_of(f, s, n, &a);
        FUZZ_CHECK(c1 != NULL);
        const char *c2 = canon_of(f, c1, strlen(c1), &a);
        FUZZ_CHECK(c2 != NULL && strcmp(c1, c2) == 0);
        const char *back = NULL;
        switch (f) {
        case MCP_FMT_DATETIME: {
            mcp_datetime v;
            FUZZ_CHECK(mcp_datetime_parse(z, &v) == (memchr(s, 0, n) == NULL));
            if (mcp_datetime_parse(c1, &v))
                back = mcp_datetime_format(&a, &v);
            break;
        }
        case MCP_FMT_DATE: {
            mcp_date v;
            if (mcp_date_parse(c1, &v))
                back = mcp_date_format(&a, &v);
            break;
        }
        case MCP_FMT_TIME: {
            mcp_time v;
            if (mcp_time_parse(c1, &v))
                back = mcp_time_format(&a, &v);
            break;
        }
        case MCP_FMT_TIMEDELTA: {
            mcp_timedelta v;
            if (mcp_timedelta_parse(c1, &v)) {
                back = mcp_timedelta_format(&a, &v);
                int64_t us;
                if (mcp_timedelta_to_us(&v, &us)) {
                    mcp_timedelta w = mcp_timedelta_from_us(us);
                    FUZZ_CHECK(w.days == v.days && w.seconds == v.seconds && w.microseconds == v.microseconds);
                }
            }
            break;
        }
        case MCP_FMT_UUID: {
            mcp_uuid v;
            if (mcp_uuid_parse(c1, &v))
                back = mcp_uuid_format(&a, &v);
            break;
        }
        case MCP_FMT_URL:
            back = mcp_url_normalize(&a, c1);
            break;
        case MCP_FMT_DECIMAL:
            back = mcp_decimal_normalize(&a, c1);
            break;
        default:
            break;
        }
        FUZZ_CHECK(back != NULL && strcmp(back, c1) == 0);
        mcp_arena_free(&a);
    }
    free(z);
    return 0;
}
