/* formats.c: the string-format types (mcpidl/formats.h): parsing, checking
 * and canonical forms.
 *
 * Each checker first parses as pydantic-core does (speedate for dates, times
 * and durations, the uuid crate, the url crate, Python's Decimal), so that a
 * value pydantic rejects gets pydantic's error type and text, then applies
 * the stricter rule of the published JSON Schema format, with a message in
 * pydantic's style of its own. A value is valid when it passes both.
 */
#include "internal/formats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mcpidl/buf.h"

/* ------------------------------------------------------------------ errors */

static const char *const PREFIX[] = {
    [MCP_FMT_DATETIME] = "Input should be a valid datetime, ",
    [MCP_FMT_DATE] = "Input should be a valid date in the format YYYY-MM-DD, ",
    [MCP_FMT_TIME] = "Input should be in a valid time format, ",
    [MCP_FMT_TIMEDELTA] = "Input should be a valid duration, ",
    [MCP_FMT_UUID] = "Input should be a valid UUID, ",
    [MCP_FMT_URL] = "Input should be a valid URL, ",
};
static const mcp_verr_kind PARSING[] = {
    [MCP_FMT_DATETIME] = MCP_VERR_DATETIME_PARSING, [MCP_FMT_DATE] = MCP_VERR_DATE_PARSING,
    [MCP_FMT_TIME] = MCP_VERR_TIME_PARSING,         [MCP_FMT_TIMEDELTA] = MCP_VERR_TIME_DELTA_PARSING,
    [MCP_FMT_UUID] = MCP_VERR_UUID_PARSING,         [MCP_FMT_URL] = MCP_VERR_URL_PARSING,
    [MCP_FMT_DECIMAL] = MCP_VERR_DECIMAL_PARSING,
};

/* A parsing error of format f: PREFIX + why. Returns false. */
static bool perr(mcp_format_error *e, mcp_format f, const char *why)
{
    if (e) {
        e->kind = PARSING[f];
        snprintf(e->message, sizeof e->message, "%s%s", PREFIX[f], why);
    }
    return false;
}

static bool kerr(mcp_format_error *e, mcp_verr_kind k)
{
    if (e) {
        e->kind = k;
        snprintf(e->message, sizeof e->message, "%s", mcp_verr_message(k));
    }
    return false;
}

static bool ci_eq(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((a[i] >= 'A' && a[i] <= 'Z' ? a[i] | 0x20 : a[i]) != b[i])
            return false;
    return true;
}

static bool isdig(char c) { return c >= '0' && c <= '9'; }
static bool ishex(char c) { return isdig(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static int hexv(char c) { return isdig(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

/* ------------------------------------------------------------ dates, times */

#define TOO_SHORT "input is too short"
#define EXTRA "unexpected extra characters at the end of the input"

static bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
static int days_in(int y, int m)
{
    static const int D[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : D[m - 1];
}

/* speedate's Date::parse_bytes_partial on s[0..10); the caller checks n >= 10. */
static const char *date_fields(const char *s, mcp_date *d)
{
    for (int i = 0; i < 4; i++)
        if (!isdig(s[i]))
            return "invalid character in year";
    if (s[4] != '-')
        return "invalid date separator, expected `-`";
    if (!isdig(s[5]) || !isdig(s[6]))
        return "invalid character in month";
    if (s[7] != '-')
        return "invalid date separator, expected `-`";
    if (!isdig(s[8]) || !isdig(s[9]))
        return "invalid character in day";
    d->year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    d->month = (s[5] - '0') * 10 + (s[6] - '0');
    d->day = (s[8] - '0') * 10 + (s[9] - '0');
    if (d->month < 1 || d->month > 12)
        return "month value is outside expected range of 1-12";
    if (d->day < 1 || d->day > days_in(d->year ? d->year : 2000, d->month))
        return "day value is outside expected range";
    if (d->year == 0)
        return "year 0 is out of range";
    return NULL;
}

/* How a time was written, for the strict checks after pydantic's. */
typedef struct time_form {
    bool seconds;      /* :SS present */
    bool comma;        /* the fraction's separator was ',' */
    bool offset_colon; /* +HH:MM rather than +HHMM (or Z) */
} time_form;

/* speedate's Time::parse_bytes_offset on s[0..n): the error text, or NULL. */
static const char *time_fields(const char *s, size_t n, mcp_time *t, time_form *tf)
{
    memset(t, 0, sizeof *t);
    memset(tf, 0, sizeof *tf);
    if (n < 5)
        return TOO_SHORT;
    if (!isdig(s[0]) || !isdig(s[1]))
        return "invalid character in hour";
    t->hour = (s[0] - '0') * 10 + (s[1] - '0');
    if (s[2] != ':')
        return "invalid time separator, expected `:`";
    if (t->hour > 23)
        return "hour value is outside expected range of 0-23";
    if (!isdig(s[3]) || !isdig(s[4]))
        return "invalid character in minute";
    t->minute = (s[3] - '0') * 10 + (s[4] - '0');
    if (t->minute > 59)
        return "minute value is outside expected range of 0-59";
    size_t i = 5;
    if (i < n && s[i] == ':') {
        if (i + 2 >= n || !isdig(s[i + 1]) || !isdig(s[i + 2]))
            return "invalid character in second";
        t->second = (s[i + 1] - '0') * 10 + (s[i + 2] - '0');
        if (t->second > 59)
            return "second value is outside expected range of 0-59";
        tf->seconds = true;
        i += 3;
        if (i < n && (s[i] == '.' || s[i] == ',')) {
            tf->comma = s[i] == ',';
            i++;
            size_t start = i;
            int us = 0, nd = 0;
            while (i < n && isdig(s[i])) {
                if (nd < 6) {
                    us = us * 10 + (s[i] - '0');
                    nd++;
                }
                i++;
            }
            if (i == start)
                return "second fraction digits missing after `.`";
            while (nd < 6) {
                us *= 10;
                nd++;
            }
            t->microsecond = us;
        }
    }
    if (i < n) {
        char c = s[i];
        if (c == 'Z' || c == 'z') {
            t->has_offset = true;
            tf->offset_colon = true;
            i++;
        } else if (c == '+' || c == '-') {
            i++;
            if (i + 1 >= n || !isdig(s[i]) || !isdig(s[i + 1]))
                return "invalid timezone hour";
            int h = (s[i] - '0') * 10 + (s[i + 1] - '0');
            i += 2;
            if (i < n && s[i] == ':') {
                tf->offset_colon = true;
                i++;
            }
            if (i + 1 >= n || !isdig(s[i]) || !isdig(s[i + 1]))
                return "invalid timezone minute";
            int m = (s[i] - '0') * 10 + (s[i + 1] - '0');
            i += 2;
            if (h >= 24)
                return "timezone offset must be less than 24 hours";
            if (m > 59)
                return "timezone minute value is outside expected range of 0-59";
            t->has_offset = true;
            t->offset_minutes = (c == '-' ? -1 : 1) * (h * 60 + m);
        } else {
            return "invalid timezone sign";
        }
    }
    if (i < n)
        return EXTRA;
    return NULL;
}

/* Whether s[0..n) is a number pydantic takes as a Unix timestamp. */
static bool timestamp_like(const char *s, size_t n, bool frac)
{
    size_t i = 0;
    if (i < n && s[i] == '-')
        i++;
    size_t d0 = i;
    while (i < n && isdig(s[i]))
        i++;
    if (i == d0)
        return false;
    if (frac && i < n && s[i] == '.') {
        i++;
        while (i < n && isdig(s[i]))
            i++;
    }
    return i == n;
}

static bool check_date(const char *s, size_t n, mcp_date *d, mcp_format_error *e)
{
    const char *why = n < 10 ? TOO_SHORT : date_fields(s, d);
    if (!why && n > 10)
        why = EXTRA;
    if (why) {
        if (timestamp_like(s, n, false)) {
            /* pydantic takes an integer as a Unix timestamp (seconds, or milliseconds
             * beyond 2e10), a date only when it is a midnight */
            long long ts = 0;
            bool big = n > 18;
            for (size_t i = s[0] == '-'; i < n && !big; i++)
                ts = ts * 10 + (s[i] - '0');
            if (big || (ts % 86400 != 0 && !(ts > 20000000000LL && ts % 86400000 == 0)))
                return perr(e, MCP_FMT_DATE, "Timestamp is not an exact date");
            return perr(e, MCP_FMT_DATE, "expected YYYY-MM-DD, not a timestamp");
        }
        return perr(e, MCP_FMT_DATE, why);
    }
    return true;
}

static bool check_time(const char *s, size_t n, mcp_time *t, mcp_format_error *e)
{
    time_form tf;
    const char *why = time_fields(s, n, t, &tf);
    if (why)
        return perr(e, MCP_FMT_TIME, why);
    if (!tf.seconds)
        return perr(e, MCP_FMT_TIME, "expected HH:MM:SS[.ffffff][Z|+HH:MM|-HH:MM] (RFC 3339), seconds missing");
    if (tf.comma || (t->has_offset && !tf.offset_colon))
        return perr(e, MCP_FMT_TIME, "expected HH:MM:SS[.ffffff][Z|+HH:MM|-HH:MM] (RFC 3339)");
    return true;
}

static bool check_datetime(const char *s, size_t n, mcp_datetime *dt, mcp_format_error *e)
{
    const char *why = n < 10 ? TOO_SHORT : date_fields(s, &dt->date);
    char sep = 0;
    time_form tf = {0};
    if (!why) {
        sep = n > 10 ? s[10] : 0;
        if (sep != 'T' && sep != 't' && sep != '_' && sep != ' ')
            why = "invalid datetime separator, expected `T`, `t`, `_` or space";
        else
            why = time_fields(s + 11, n - 11, &dt->time, &tf);
    }
    if (why) {
        if (timestamp_like(s, n, true))
            return perr(e, MCP_FMT_DATETIME, "expected an RFC 3339 date-time, not a timestamp");
        return perr(e, MCP_FMT_DATETIME, why);
    }
    if (!dt->time.has_offset) {
        if (e) {
            e->kind = MCP_VERR_TIMEZONE_AWARE;
            snprintf(e->message, sizeof e->message, "%s", mcp_verr_message(MCP_VERR_TIMEZONE_AWARE));
        }
        return false;
    }
    if (sep != 'T' && sep != 't')
        return perr(e, MCP_FMT_DATETIME, "invalid datetime separator, expected `T` or `t` (RFC 3339)");
    if (!tf.seconds)
        return perr(e, MCP_FMT_DATETIME,
                    "expected YYYY-MM-DDTHH:MM:SS[.ffffff](Z|+HH:MM|-HH:MM) (RFC 3339), seconds missing");
    if (tf.comma || !tf.offset_colon)
        return perr(e, MCP_FMT_DATETIME, "expected YYYY-MM-DDTHH:MM:SS[.ffffff](Z|+HH:MM|-HH:MM) (RFC 3339)");
    return true;
}

/* ---------------------------------------------------------------- durations */

#define DAYS_MAX 999999999LL
#define DUR_ISO "expected a duration of the form P[nY][nM][nD][T[nH][nM][nS]] or PnW (RFC 3339), such as PT1H30M"

/* speedate's ISO 8601 duration parser after the 'P' at s[i-1], with the
 * strict rule checked on the way (*strict_why set at the first breach). */
static const char *dur_iso(const char *s, size_t n, size_t i, bool neg, mcp_timedelta *out, const char **strict_why)
{
    static const char ORDER_D[] = "YMWD", ORDER_T[] = "HMS";
    bool got_t = false, last_frac = false, any = false, saw_w = false;
    uint64_t days = 0, secs = 0;
    double us_acc = 0;
    int rank = -1; /* strict order of the components seen */
    size_t start = i;
    bool t_empty = false;
    while (i < n) {
        if (s[i] == 'T') {
            if (got_t)
                return "`t` character repeated in duration";
            got_t = true;
            t_empty = true;
            rank = -1;
            i++;
            continue;
        }
        if (!isdig(s[i]))
            return "invalid digit in duration";
        uint64_t v = 0;
        while (i < n && isdig(s[i])) {
            v = v * 10 + (uint64_t)(s[i] - '0');
            if (v > UINT32_MAX)
                return "a numeric value in the duration is too large";
            i++;
        }
        double frac = 0;
        bool has_frac = false;
        if (i < n && (s[i] == '.' || s[i] == ',')) {
            if (s[i] == ',' && !*strict_why)
                *strict_why = DUR_ISO;
            has_frac = true;
            i++;
            double scale = 0.1;
            size_t fd = i;
            while (i < n && isdig(s[i])) {
                frac += (s[i] - '0') * scale;
                scale /= 10;
                i++;
            }
            if (i == fd && !*strict_why)
                *strict_why = DUR_ISO;
        }
        if (last_frac)
            return "quantity fraction invalid in duration";
        last_frac = has_frac;
        char u = i < n ? s[i] : 0;
        uint64_t unit; /* seconds */
        const char *pos;
        if (!got_t) {
            switch (u) {
            case 'Y':
                unit = 365 * 86400ULL;
                break;
            case 'M':
                unit = 30 * 86400ULL;
                break;
            case 'W':
                unit = 7 * 86400ULL;
                break;
            case 'D':
                unit = 86400ULL;
                break;
            default:
                return "quantity invalid in date part of duration";
            }
            pos = strchr(ORDER_D, u);
            int r = (int)(pos - ORDER_D);
            if (r <= rank && !*strict_why)
                *strict_why = DUR_ISO;
            rank = r;
            if ((has_frac || (u == 'W' && any) || (u != 'W' && saw_w)) && !*strict_why)
                *strict_why = DUR_ISO;
            saw_w |= u == 'W';
            if (v * (unit / 86400) > (uint64_t)DAYS_MAX * 2)
                return "durations may not exceed 999,999,999 days";
            days += v * (unit / 86400);
            us_acc += frac * (double)unit * 1e6;
        } else {
            switch (u) {
            case 'H':
                unit = 3600;
                break;
            case 'M':
                unit = 60;
                break;
            case 'S':
                unit = 1;
                break;
            default:
                return "quantity invalid in time part of duration";
            }
            pos = strchr(ORDER_T, u);
            int r = (int)(pos - ORDER_T);
            if (r <= rank && !*strict_why)
                *strict_why = DUR_ISO;
            rank = r;
            if ((has_frac || saw_w) && !*strict_why)
                *strict_why = DUR_ISO;
            if (v * unit > UINT32_MAX || secs + v * unit > UINT32_MAX)
                return "a numeric value in the duration is too large";
            secs += v * unit;
            us_acc += frac * (double)unit * 1e6;
            t_empty = false;
        }
        any = true;
        i++;
    }
    if (!any)
        return TOO_SHORT;
    (void)start;
    if (t_empty && !*strict_why)
        *strict_why = DUR_ISO;
    uint64_t us = (uint64_t)llround(us_acc);
    secs += us / 1000000;
    us %= 1000000;
    days += secs / 86400;
    secs %= 86400;
    if (days > (uint64_t)DAYS_MAX)
        return "durations may not exceed 999,999,999 days";
    if (!neg || (days == 0 && secs == 0 && us == 0)) {
        *out = (mcp_timedelta){(int64_t)days, (int32_t)secs, (int32_t)us};
    } else {
        /* Python's normalization of -(days, secs, us) */
        int64_t d = -(int64_t)days;
        int64_t sc = -(int64_t)secs, u2 = -(int64_t)us;
        if (u2 < 0) {
            u2 += 1000000;
            sc -= 1;
        }
        if (sc < 0) {
            sc += 86400;
            d -= 1;
        }
        *out = (mcp_timedelta){d, (int32_t)sc, (int32_t)u2};
    }
    return NULL;
}

/* Whether s[0..n) is one of the other forms pydantic takes for a duration
 * ([-]HH:MM[:SS[.f]], [-]N day[s][, HH:MM:SS]): then only our rule rejects it. */
static bool dur_other_ok(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    mcp_time t;
    time_form tf;
    if (n - i >= 5 && isdig(s[i]) && isdig(s[i + 1]) && s[i + 2] == ':' && !time_fields(s + i, n - i, &t, &tf) &&
        !t.has_offset)
        return true;
    return false;
}

static bool check_timedelta(const char *s, size_t n, mcp_timedelta *out, mcp_format_error *e)
{
    if (n == 0)
        return perr(e, MCP_FMT_TIMEDELTA, TOO_SHORT);
    size_t i = 0;
    bool neg = false, plus = false;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        plus = !neg;
        i = 1;
    }
    if (i < n && s[i] == 'P') {
        const char *strict_why = NULL;
        const char *why = dur_iso(s, n, i + 1, neg, out, &strict_why);
        if (why)
            return perr(e, MCP_FMT_TIMEDELTA, why);
        if (strict_why || plus || neg)
            return perr(e, MCP_FMT_TIMEDELTA, DUR_ISO);
        return true;
    }
    if (dur_other_ok(s, n))
        return perr(e, MCP_FMT_TIMEDELTA, DUR_ISO);
    if (i < n && !isdig(s[i]))
        return perr(e, MCP_FMT_TIMEDELTA, n - i < 5 ? "invalid digit in duration" : "invalid character in hour");
    return perr(e, MCP_FMT_TIMEDELTA, DUR_ISO);
}

/* -------------------------------------------------------------------- UUIDs */

static bool check_uuid(const char *s, size_t n, mcp_uuid *out, mcp_format_error *e)
{
    char why[160];
    /* The uuid crate: a prefix, then every character, then the groups. */
    size_t off = 0, end = n;
    bool pydantic_form = false;
    if (n == 45 && memcmp(s, "urn:uuid:", 9) == 0)
        off = 9;
    else if (n == 38 && s[0] == '{' && s[37] == '}') {
        off = 1;
        end = 37;
    }
    size_t hyphens = 0;
    for (size_t i = off; i < end; i++) {
        if (s[i] == '-') {
            hyphens++;
            continue;
        }
        if (!ishex(s[i])) {
            /* the character as the crate shows it: one UTF-8 character */
            size_t k = 1;
            unsigned char c = (unsigned char)s[i];
            if (c >= 0xC0)
                while (i + k < end && ((unsigned char)s[i + k] & 0xC0) == 0x80 && k < 4)
                    k++;
            /* its position counts characters, from 1 */
            size_t pos = 1;
            for (size_t j = off; j < i; j++)
                if (((unsigned char)s[j] & 0xC0) != 0x80)
                    pos++;
            if (c == 0)
                snprintf(why, sizeof why, "invalid character: found `\\0` at %zu", pos);
            else
                snprintf(why, sizeof why, "invalid character: found `%.*s` at %zu", (int)k, s + i, pos);
            return perr(e, MCP_FMT_UUID, why);
        }
    }
    size_t len = end - off;
    if (hyphens == 0) {
        if (len != 32) {
            size_t chars = 0;
            for (size_t j = off; j < end; j++)
                chars += ((unsigned char)s[j] & 0xC0) != 0x80;
            snprintf(why, sizeof why, "invalid length: expected length 32 for simple format, found %zu", chars);
            return perr(e, MCP_FMT_UUID, why);
        }
        pydantic_form = true;
    } else if (hyphens != 4) {
        snprintf(why, sizeof why, "invalid group count: expected 5, found %zu", hyphens + 1);
        return perr(e, MCP_FMT_UUID, why);
    } else {
        static const size_t GL[] = {8, 4, 4, 4, 12};
        size_t g = 0, gl = 0;
        for (size_t i = off; i <= end; i++) {
            if (i == end || s[i] == '-') {
                if (gl != GL[g]) {
                    snprintf(why, sizeof why, "invalid group length in group %zu: expected %zu, found %zu", g, GL[g],
                             gl);
                    return perr(e, MCP_FMT_UUID, why);
                }
                g++;
                gl = 0;
            } else {
                gl++;
            }
        }
    }
    if (pydantic_form || off)
        return perr(e, MCP_FMT_UUID, "expected the hyphenated form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (RFC 9562)");
    if (out) {
        size_t b = 0;
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '-')
                continue;
            if (b % 2 == 0)
                out->bytes[b / 2] = (uint8_t)(hexv(s[i]) << 4);
            else
                out->bytes[b / 2] |= (uint8_t)hexv(s[i]);
            b++;
        }
    }
    return true;
}

/* --------------------------------------------------------------------- URLs */

static bool special_scheme(const char *s, size_t n)
{
    static const char *const SP[] = {"http", "https", "ws", "wss", "ftp", "file"};
    for (size_t i = 0; i < sizeof SP / sizeof *SP; i++)
        if (strlen(SP[i]) == n) {
            size_t j = 0;
            while (j < n && (s[j] | 0x20) == SP[i][j])
                j++;
            if (j == n)
                return true;
        }
    return false;
}

static bool url_unreserved(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isdig(c) || c == '-' || c == '.' || c == '_' || c == '~';
}
static bool url_subdelim(char c) { return c && strchr("!$&'()*+,;=", c) != NULL; }

/* RFC 3986: pchar-ish run of s[i..n) until a byte in `stop`; extra: bytes also
 * allowed. Returns the index of the first byte that is neither; *bad_pct set
 * on a '%' without two hex digits. */
static size_t url_run(const char *s, size_t n, size_t i, const char *stop, const char *extra, bool *bad_pct)
{
    while (i < n && !strchr(stop, s[i])) {
        char c = s[i];
        if (c == '%') {
            if (i + 2 >= n || !ishex(s[i + 1]) || !ishex(s[i + 2])) {
                *bad_pct = true;
                return i;
            }
            i += 3;
            continue;
        }
        if (url_unreserved(c) || url_subdelim(c) || (c && strchr(extra, c)))
            i++;
        else
            return i;
    }
    return i;
}

typedef struct url_parts {
    size_t scheme_end; /* index of ':' */
    bool has_authority;
    size_t host_start, host_end; /* within the authority, after userinfo@ */
    size_t port_start, port_end; /* digits after ':' (port_start == port_end: none or empty) */
    bool has_port;
    size_t path_start, path_end;
    bool slashes; /* a special scheme without its "//" (or with more) */
} url_parts;

/* A violation of the URL Standard's syntax, which pydantic's strict mode reports. */
static bool url_violation(mcp_format_error *e, const char *why)
{
    if (e) {
        e->kind = MCP_VERR_URL_SYNTAX_VIOLATION;
        snprintf(e->message, sizeof e->message, "Input violated strict URL syntax rules, %s", why);
    }
    return false;
}

#define URL_RFC "expected an absolute URI (RFC 3986) in its normal form"

/* A character that may not stand where it is: pydantic's (the URL Standard's)
 * words for an ASCII one, ours for the rest (the URL Standard would
 * percent-encode it, RFC 3986 has no room for it). */
static bool url_bad_char(mcp_format_error *e, char c)
{
    unsigned char u = (unsigned char)c;
    if (u < 0x80)
        return url_violation(e, "non-URL code point");
    return perr(e, MCP_FMT_URL, URL_RFC ", ASCII only");
}

static long atoi_n(const char *s, size_t n)
{
    long v = 0;
    for (size_t i = 0; i < n && v < 100000; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdig(s[i]))
            return false;
    return n > 0;
}

/* A special scheme's host whose last label is a number is an IPv4 address
 * for the URL Standard: only the dotted quad in decimal is its normal form. */
static bool url_ipv4(const char *h, size_t n, mcp_format_error *e)
{
    size_t end = n && h[n - 1] == '.' ? n - 1 : n;
    size_t last = end;
    while (last > 0 && h[last - 1] != '.')
        last--;
    bool numeric_last = all_digits(h + last, end - last) ||
                        (end - last >= 2 && h[last] == '0' && (h[last + 1] | 0x20) == 'x');
    if (!numeric_last)
        return true;
    size_t parts = 0, i = 0;
    bool canonical = end == n;
    while (i <= end) {
        size_t j = i;
        while (j < end && h[j] != '.')
            j++;
        bool dec = all_digits(h + i, j - i);
        bool hex = j - i >= 2 && h[i] == '0' && (h[i + 1] | 0x20) == 'x';
        for (size_t k = i + 2; hex && k < j; k++)
            hex = ishex(h[k]);
        if (!dec && !hex)
            return perr(e, MCP_FMT_URL, "invalid IPv4 address");
        if (!dec || (j - i > 1 && h[i] == '0') || j - i > 3 || atoi_n(h + i, j - i) > 255)
            canonical = false;
        parts++;
        i = j + 1;
    }
    if (parts > 4)
        return perr(e, MCP_FMT_URL, "invalid IPv4 address");
    if (parts != 4 || !canonical)
        return perr(e, MCP_FMT_URL, URL_RFC ": an IPv4 address as four decimal numbers");
    return true;
}

/* An IPv6 address (RFC 3986's IPv6address) into 8 groups; false when malformed. */
static bool ipv6_parse(const char *s, size_t n, unsigned g[8])
{
    unsigned v[8];
    int nv = 0, gap = -1;
    size_t i = 0;
    if (n >= 2 && s[0] == ':' && s[1] == ':') {
        gap = 0;
        i = 2;
    } else if (n && s[0] == ':') {
        return false;
    }
    while (i < n) {
        if (nv == 8)
            return false;
        size_t j = i;
        while (j < n && ishex(s[j]) && j - i < 5)
            j++;
        if (j < n && s[j] == '.') {
            /* a trailing IPv4 address: two groups */
            unsigned q[4];
            int nq = 0;
            size_t k = i;
            while (nq < 4) {
                size_t m = k;
                while (m < n && isdig(s[m]))
                    m++;
                if (m == k || m - k > 3 || (m - k > 1 && s[k] == '0') || atoi_n(s + k, m - k) > 255)
                    return false;
                q[nq++] = (unsigned)atoi_n(s + k, m - k);
                k = m;
                if (nq < 4) {
                    if (k >= n || s[k] != '.')
                        return false;
                    k++;
                }
            }
            if (k != n || nv > 6)
                return false;
            v[nv++] = q[0] << 8 | q[1];
            v[nv++] = q[2] << 8 | q[3];
            i = n;
            break;
        }
        if (j == i || j - i > 4)
            return false;
        unsigned x = 0;
        for (size_t k = i; k < j; k++)
            x = x << 4 | (unsigned)hexv(s[k]);
        v[nv++] = x;
        i = j;
        if (i == n)
            break;
        if (s[i] != ':')
            return false;
        i++;
        if (i < n && s[i] == ':') {
            if (gap >= 0)
                return false;
            gap = nv;
            i++;
        } else if (i == n) {
            return false;
        }
    }
    if (gap < 0 ? nv != 8 : nv > 7)
        return false;
    int fill = 8 - nv, o = 0;
    for (int k = 0; k < nv; k++) {
        if (k == gap)
            for (int z = 0; z < fill; z++)
                g[o++] = 0;
        g[o++] = v[k];
    }
    if (gap == nv)
        for (int z = 0; z < fill; z++)
            g[o++] = 0;
    return o == 8;
}

/* The URL Standard's serialization of an IPv6 address (without brackets). */
static void ipv6_text(const unsigned g[8], char *out)
{
    int best = -1, bestlen = 1;
    for (int k = 0; k < 8;) {
        if (g[k]) {
            k++;
            continue;
        }
        int m = k;
        while (m < 8 && !g[m])
            m++;
        if (m - k > bestlen) {
            best = k;
            bestlen = m - k;
        }
        k = m;
    }
    int o = 0;
    for (int k = 0; k < 8; k++) {
        if (k == best) {
            o += sprintf(out + o, k == 0 ? "::" : ":");
            k += bestlen - 1;
            continue;
        }
        o += sprintf(out + o, "%x%s", g[k], k < 7 ? ":" : "");
    }
    out[o] = 0;
}

static bool check_url_parse(const char *s, size_t n, url_parts *p, mcp_format_error *e)
{
    url_parts tmp;
    if (!p)
        p = &tmp;
    memset(p, 0, sizeof *p);
    if (n == 0)
        return perr(e, MCP_FMT_URL, "input is empty");
    /* the URL Standard trims C0 controls and spaces at both ends */
    if ((unsigned char)s[0] <= 0x20 || (unsigned char)s[n - 1] <= 0x20) {
        size_t a = 0;
        while (a < n && (unsigned char)s[a] <= 0x20)
            a++;
        if (a == n)
            return perr(e, MCP_FMT_URL, "input is empty");
        return url_violation(e, "leading or trailing control or space character are ignored in URLs");
    }
    if (memchr(s, '\t', n) || memchr(s, '\n', n) || memchr(s, '\r', n))
        return url_violation(e, "tabs or newlines are ignored in URLs");
    /* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" */
    size_t i = 0;
    bool alpha0 = (s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z';
    if (alpha0) {
        i = 1;
        while (i < n && (((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z') || isdig(s[i]) || s[i] == '+' || s[i] == '-' ||
                         s[i] == '.'))
            i++;
    }
    if (!alpha0 || i >= n || s[i] != ':')
        return perr(e, MCP_FMT_URL, "relative URL without a base");
    p->scheme_end = i;
    bool special = special_scheme(s, i);
    bool file = i == 4 && ci_eq(s, "file", 4);
    i++;
    bool bad_pct = false;
    /* A special scheme's authority follows "//"; without them, or with more, the URL
     * Standard skips the slashes it finds and reads the authority all the same,
     * reporting the violation only when nothing worse follows. */
    bool slashes = false;
    if (special && !file && !(n - i >= 3 && s[i] == '/' && s[i + 1] == '/' && s[i + 2] != '/' && s[i + 2] != '\\') &&
        !(n - i == 2 && s[i] == '/' && s[i + 1] == '/')) {
        slashes = p->slashes = true;
        while (i < n && (s[i] == '/' || s[i] == '\\'))
            i++;
        i -= 2; /* as if "//" stood before the authority */
    } else if (file && !(n - i >= 2 && s[i] == '/' && s[i + 1] == '/')) {
        return url_violation(e, "expected // after file:");
    }
    if (slashes || (n - i >= 2 && s[i] == '/' && s[i + 1] == '/')) {
        p->has_authority = true;
        i += 2;
        size_t auth = i, auth_end = i;
        while (auth_end < n && s[auth_end] != '/' && s[auth_end] != '?' && s[auth_end] != '#')
            auth_end++;
        /* userinfo: up to the last '@' */
        size_t at = auth_end;
        for (size_t k = auth; k < auth_end; k++)
            if (s[k] == '@')
                at = k;
        size_t h = auth;
        if (at < auth_end) {
            size_t r = url_run(s, at, auth, "", ":", &bad_pct);
            if (bad_pct)
                return url_violation(e, "expected 2 hex digits after %");
            if (r != at)
                return url_bad_char(e, s[r]);
            size_t colons = 0;
            for (size_t k = auth; k < at; k++)
                colons += s[k] == ':';
            if (colons > 1)
                return perr(e, MCP_FMT_URL, URL_RFC ": the URL Standard percent-encodes a second ':' in userinfo");
            for (size_t k = auth; k < at; k++)
                if (s[k] == ';' || s[k] == '=')
                    return perr(e, MCP_FMT_URL, URL_RFC ": the URL Standard percent-encodes ';' and '=' in userinfo");
            h = at + 1;
            if (at == auth || s[at - 1] == ':')
                return perr(e, MCP_FMT_URL, URL_RFC ": an empty user name or password is left out");
            if (file)
                return perr(e, MCP_FMT_URL, URL_RFC ": a file URL has no userinfo");
        }
        p->host_start = h;
        size_t hend;
        if (h < auth_end && s[h] == '[') {
            size_t k = h + 1;
            while (k < auth_end && s[k] != ']')
                k++;
            unsigned g[8];
            if (k >= auth_end || !ipv6_parse(s + h + 1, k - h - 1, g))
                return perr(e, MCP_FMT_URL, "invalid IPv6 address");
            char norm[48];
            ipv6_text(g, norm);
            if (strlen(norm) != k - h - 1 || memcmp(norm, s + h + 1, k - h - 1) != 0)
                return perr(e, MCP_FMT_URL, URL_RFC ": an IPv6 address as the URL Standard writes it");
            hend = k + 1;
            if (hend < auth_end && s[hend] != ':')
                return perr(e, MCP_FMT_URL, "invalid IPv6 address");
        } else {
            hend = url_run(s, auth_end, h, ":", "", &bad_pct);
            if (bad_pct)
                return special ? perr(e, MCP_FMT_URL, "invalid international domain name")
                               : url_violation(e, "expected 2 hex digits after %");
            if (hend < auth_end && s[hend] != ':') {
                if (special && (unsigned char)s[hend] < 0x80)
                    return perr(e, MCP_FMT_URL, "invalid international domain name");
                if (!special && (unsigned char)s[hend] < 0x80)
                    return perr(e, MCP_FMT_URL, "invalid domain character");
                return url_bad_char(e, s[hend]);
            }
            for (size_t k = h; special && k < hend; k++)
                if (s[k] == '%')
                    return perr(e, MCP_FMT_URL, URL_RFC ": no percent-encoding in a host");
            if (special && hend > h && !url_ipv4(s + h, hend - h, e))
                return false;
        }
        p->host_end = hend;
        if (hend == h && special && !file)
            return perr(e, MCP_FMT_URL, "empty host");
        if (hend < auth_end) {
            if (s[hend] != ':')
                return url_bad_char(e, s[hend]);
            if (file)
                return perr(e, MCP_FMT_URL, "invalid port number");
            p->has_port = true;
            p->port_start = hend + 1;
            size_t k = hend + 1;
            unsigned long port = 0;
            while (k < auth_end && isdig(s[k])) {
                port = port * 10 + (unsigned long)(s[k] - '0');
                if (port > 65535)
                    return perr(e, MCP_FMT_URL, "invalid port number");
                k++;
            }
            if (k != auth_end)
                return perr(e, MCP_FMT_URL, "invalid port number");
            p->port_end = k;
        }
        i = auth_end;
        if (file && n - i >= 2 && s[i] == '/' && s[i + 1] == '/')
            return perr(e, MCP_FMT_URL, URL_RFC ": a file URL's path does not start with //");
    }
    p->path_start = i;
    i = url_run(s, n, i, "?#", ":@/", &bad_pct);
    p->path_end = i;
    if (!bad_pct && !p->has_authority && p->path_end == p->path_start && (i == n || s[i] == '?' || s[i] == '#'))
        return perr(e, MCP_FMT_URL,
                    "expected an absolute URI (RFC 3986), with a path or an authority after the scheme");
    if (!bad_pct && i < n && s[i] == '?') {
        size_t q0 = i + 1;
        i = url_run(s, n, q0, "#", ":@/?", &bad_pct);
        for (size_t k = q0; special && k < i; k++)
            if (s[k] == '\'')
                return perr(e, MCP_FMT_URL, URL_RFC ": the URL Standard percent-encodes ' in a query");
    }
    if (!bad_pct && i < n && s[i] == '#')
        i = url_run(s, n, i + 1, "", ":@/?", &bad_pct);
    if (bad_pct)
        return url_violation(e, "expected 2 hex digits after %");
    if (i == n && slashes)
        return url_violation(e, "expected //");
    if (i < n) {
        /* the URL Standard percent-encodes what is not ASCII, but objects to some ASCII */
        for (size_t k = i; (unsigned char)s[i] >= 0x80 && k < n; k++)
            if ((unsigned char)s[k] < 0x80 && strchr(" \"<>[\\]^`{|}", s[k]))
                return url_violation(e, "non-URL code point");
        return url_bad_char(e, s[i]);
    }
    return true;
}

static const char *url_canon(mcp_arena *a, const char *s, size_t n, const url_parts *p)
{
    mcp_buf b;
    mcp_buf_init(&b);
    for (size_t i = 0; i < p->scheme_end; i++)
        mcp_buf_putc(&b, s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] | 0x20) : s[i]);
    bool special = special_scheme(s, p->scheme_end);
    size_t i = p->scheme_end;
    if (p->has_authority) {
        mcp_buf_put(&b, s + i, p->host_start - i); /* "://" and userinfo */
        for (size_t k = p->host_start; k < p->host_end; k++)
            mcp_buf_putc(&b, special && s[k] >= 'A' && s[k] <= 'Z' ? (char)(s[k] | 0x20) : s[k]);
        if (p->has_port && p->port_end > p->port_start) {
            size_t k = p->port_start;
            while (k + 1 < p->port_end && s[k] == '0')
                k++;
            char port[8];
            snprintf(port, sizeof port, "%.*s", (int)(p->port_end - k), s + k);
            static const struct {
                const char *scheme, *port;
            } DEF[] = {{"http", "80"}, {"https", "443"}, {"ws", "80"}, {"wss", "443"}, {"ftp", "21"}};
            bool dflt = false;
            for (size_t d = 0; d < sizeof DEF / sizeof *DEF; d++)
                if (strlen(DEF[d].scheme) == p->scheme_end && strncmp(b.data, DEF[d].scheme, p->scheme_end) == 0 &&
                    strcmp(port, DEF[d].port) == 0)
                    dflt = true;
            if (!dflt) {
                mcp_buf_putc(&b, ':');
                mcp_buf_puts(&b, port);
            }
        }
        if (special && p->path_start == p->path_end)
            mcp_buf_putc(&b, '/');
        mcp_buf_put(&b, s + p->path_start, n - p->path_start);
    } else {
        mcp_buf_put(&b, s + i, n - i);
    }
    const char *r = b.oom ? NULL : mcp_arena_strndup(a, b.data ? b.data : "", b.len);
    mcp_buf_free(&b);
    return r;
}

static bool check_url(const char *s, size_t n, url_parts *p, mcp_format_error *e)
{
    url_parts tmp;
    if (!p)
        p = &tmp;
    if (check_url_parse(s, n, p, e))
        return true;
    /* the missing "//" outranks the rules of our own (a URL's normal form) */
    if (p->slashes && e && e->kind == MCP_VERR_URL_PARSING && strstr(e->message, URL_RFC))
        return url_violation(e, "expected //");
    return false;
}

/* ----------------------------------------------------------------- decimals */

/* The published pattern ^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$ with ECMAScript's \d. */
static bool decimal_pattern(const char *s, size_t n)
{
    bool only_signs = true;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '-' && s[i] != '+' && s[i] != '.')
            only_signs = false;
    if (only_signs)
        return false;
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    while (i < n && isdig(s[i]))
        i++;
    if (i < n && s[i] == '.')
        i++;
    while (i < n && isdig(s[i]))
        i++;
    return i == n;
}

/* Python's str(Decimal(t)) for t matching the pattern (no exponent), in plain
 * notation always (format(Decimal(t), 'f')). */
static const char *decimal_canon_text(mcp_arena *a, const char *s, size_t n)
{
    mcp_buf b;
    mcp_buf_init(&b);
    size_t i = 0;
    bool neg = false;
    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        i++;
    }
    /* coefficient digits and exponent */
    mcp_buf coef;
    mcp_buf_init(&coef);
    long exp = 0;
    bool dot = false;
    for (; i < n; i++) {
        if (s[i] == '.') {
            dot = true;
            continue;
        }
        if (coef.len == 0 && s[i] == '0') {
            /* leading zero: dropped, but counts in the exponent after the dot */
        } else {
            mcp_buf_putc(&coef, s[i]);
        }
        if (dot)
            exp--;
    }
    if (coef.len == 0)
        mcp_buf_putc(&coef, '0');
    long nd = (long)coef.len;
    long leftdigits = exp + nd;
    if (neg)
        mcp_buf_putc(&b, '-');
    const char *c = coef.data;
    /* Python's str() switches to exponent form below 1e-6 ("1E-7"), which the
     * published pattern refuses: such a value is written as format(d, 'f') is */
    if (exp <= 0) {
        long dotplace = leftdigits;
        if (dotplace <= 0) {
            mcp_buf_puts(&b, "0.");
            for (long k = 0; k < -dotplace; k++)
                mcp_buf_putc(&b, '0');
            mcp_buf_put(&b, c, (size_t)nd);
        } else if (dotplace >= nd) {
            mcp_buf_put(&b, c, (size_t)nd);
        } else {
            mcp_buf_put(&b, c, (size_t)dotplace);
            mcp_buf_putc(&b, '.');
            mcp_buf_put(&b, c + dotplace, (size_t)(nd - dotplace));
        }
    } else {
        mcp_buf_putc(&b, c[0]);
        if (nd > 1) {
            mcp_buf_putc(&b, '.');
            mcp_buf_put(&b, c + 1, (size_t)(nd - 1));
        }
        mcp_buf_printf(&b, "E%+ld", leftdigits - 1);
    }
    const char *r = (b.oom || coef.oom) ? NULL : mcp_arena_strndup(a, b.data, b.len);
    mcp_buf_free(&b);
    mcp_buf_free(&coef);
    return r;
}

/* What Python's Decimal() makes of a string that fails the pattern: a
 * pydantic error (decimal_parsing, finite_number), or the pattern's. */
static bool decimal_string_error(const char *s, size_t n, mcp_format_error *e)
{
    /* Python strips whitespace, takes '_' between digits, an exponent,
     * Infinity/Inf/NaN/sNaN in any case. */
    size_t a = 0, b = n;
    while (a < b && strchr(" \t\n\r\f\v", s[a]) && s[a])
        a++;
    while (b > a && strchr(" \t\n\r\f\v", s[b - 1]) && s[b - 1])
        b--;
    size_t i = a;
    if (i < b && (s[i] == '+' || s[i] == '-'))
        i++;
    const char *rest = s + i;
    size_t rl = b - i;
    static const char *const NF[] = {"infinity", "inf", "nan", "snan"};
    for (size_t k = 0; k < 4; k++)
        if (rl == strlen(NF[k]) && ci_eq(rest, NF[k], rl))
            return kerr(e, MCP_VERR_FINITE_NUMBER);
    if (rl >= 3 && (ci_eq(rest, "nan", 3) || (rl >= 4 && ci_eq(rest, "snan", 4)))) {
        size_t k = i + (rest[0] == 's' || rest[0] == 'S' ? 4 : 3);
        while (k < b && isdig(s[k]))
            k++;
        if (k == b)
            return kerr(e, MCP_VERR_FINITE_NUMBER);
    }
    /* digits [. digits] | . digits, '_' between digits, then [eE][+-]digits */
    size_t nd = 0;
    bool ok = true;
    for (; i < b && (isdig(s[i]) || (s[i] == '_' && nd && i + 1 < b && isdig(s[i + 1]))); i++)
        nd += isdig(s[i]);
    if (i < b && s[i] == '.') {
        i++;
        size_t f0 = nd;
        for (; i < b && (isdig(s[i]) || (s[i] == '_' && nd > f0 && i + 1 < b && isdig(s[i + 1]))); i++)
            nd += isdig(s[i]);
    }
    if (!nd)
        ok = false;
    if (ok && i < b && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < b && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t e0 = i;
        while (i < b && (isdig(s[i]) || (s[i] == '_' && i > e0 && i + 1 < b && isdig(s[i + 1]))))
            i++;
        if (i == e0)
            ok = false;
    }
    if (!ok || i != b)
        return kerr(e, MCP_VERR_DECIMAL_PARSING);
    if (e) {
        e->kind = MCP_VERR_STRING_PATTERN;
        snprintf(e->message, sizeof e->message, "String should match pattern '%s'",
                 "^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$");
    }
    return false;
}

/* ------------------------------------------------------------ canonical text */

static int fmt_offset(char *p, const mcp_time *t)
{
    if (!t->has_offset)
        return 0;
    if (t->offset_minutes == 0)
        return sprintf(p, "Z");
    int m = t->offset_minutes < 0 ? -t->offset_minutes : t->offset_minutes;
    return sprintf(p, "%c%02d:%02d", t->offset_minutes < 0 ? '-' : '+', m / 60, m % 60);
}

static bool time_ok(const mcp_time *t)
{
    return t->hour >= 0 && t->hour <= 23 && t->minute >= 0 && t->minute <= 59 && t->second >= 0 && t->second <= 59 &&
           t->microsecond >= 0 && t->microsecond <= 999999 &&
           (!t->has_offset || (t->offset_minutes > -1440 && t->offset_minutes < 1440));
}

static bool date_ok(const mcp_date *d)
{
    return d->year >= 1 && d->year <= 9999 && d->month >= 1 && d->month <= 12 && d->day >= 1 &&
           d->day <= days_in(d->year, d->month);
}

static int fmt_time(char *p, const mcp_time *t)
{
    int k = sprintf(p, "%02d:%02d:%02d", t->hour, t->minute, t->second);
    if (t->microsecond)
        k += sprintf(p + k, ".%06d", t->microsecond);
    return k + fmt_offset(p + k, t);
}

const char *mcp_date_format(mcp_arena *a, const mcp_date *v)
{
    if (!date_ok(v))
        return NULL;
    return mcp_arena_printf(a, "%04d-%02d-%02d", v->year, v->month, v->day);
}

const char *mcp_time_format(mcp_arena *a, const mcp_time *v)
{
    char buf[48];
    if (!time_ok(v))
        return NULL;
    fmt_time(buf, v);
    return mcp_arena_strdup(a, buf);
}

const char *mcp_datetime_format(mcp_arena *a, const mcp_datetime *v)
{
    char buf[64];
    if (!date_ok(&v->date) || !time_ok(&v->time) || !v->time.has_offset)
        return NULL;
    int k = sprintf(buf, "%04d-%02d-%02dT", v->date.year, v->date.month, v->date.day);
    fmt_time(buf + k, &v->time);
    return mcp_arena_strdup(a, buf);
}

const char *mcp_timedelta_format(mcp_arena *a, const mcp_timedelta *v)
{
    if (v->seconds < 0 || v->seconds >= 86400 || v->microseconds < 0 || v->microseconds >= 1000000 ||
        v->days > DAYS_MAX || v->days < -DAYS_MAX - 1)
        return NULL;
    /* the published format (RFC 3339's duration) has neither a sign nor fractions */
    if (v->days < 0 || v->microseconds)
        return NULL;
    /* pydantic: the sign, then the magnitude */
    int64_t days = v->days, secs = v->seconds, us = v->microseconds;
    bool neg = days < 0;
    if (neg) {
        /* -(days*86400e6 + secs*1e6 + us) as magnitude parts */
        days = -days;
        if (us) {
            us = 1000000 - us;
            secs += 1;
        }
        if (secs) {
            secs = 86400 - secs;
            days -= 1;
        }
    }
    if (days > DAYS_MAX)
        return NULL;
    char buf[96];
    int k = sprintf(buf, "%sP", neg ? "-" : "");
    int64_t years = days / 365, d = days % 365;
    if (years)
        k += sprintf(buf + k, "%lldY", (long long)years);
    if (d)
        k += sprintf(buf + k, "%lldD", (long long)d);
    if (secs || us || (!years && !d)) {
        k += sprintf(buf + k, "T");
        int64_t h = secs / 3600, m = secs / 60 % 60, s = secs % 60;
        if (h)
            k += sprintf(buf + k, "%lldH", (long long)h);
        if (m)
            k += sprintf(buf + k, "%lldM", (long long)m);
        if (s || us || (!h && !m)) {
            k += sprintf(buf + k, "%lld", (long long)s);
            if (us) {
                char f[24];
                snprintf(f, sizeof f, "%06lld", (long long)us);
                int fl = 6;
                while (fl > 0 && f[fl - 1] == '0')
                    fl--;
                k += sprintf(buf + k, ".%.*s", fl, f);
            }
            k += sprintf(buf + k, "S");
        }
    }
    return mcp_arena_strdup(a, buf);
}

const char *mcp_uuid_format(mcp_arena *a, const mcp_uuid *v)
{
    char buf[40];
    int k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            buf[k++] = '-';
        k += sprintf(buf + k, "%02x", v->bytes[i]);
    }
    return mcp_arena_strdup(a, buf);
}

mcp_timedelta mcp_timedelta_from_us(int64_t us)
{
    int64_t days = us / 86400000000LL, rem = us % 86400000000LL;
    if (rem < 0) {
        rem += 86400000000LL;
        days -= 1;
    }
    return (mcp_timedelta){days, (int32_t)(rem / 1000000), (int32_t)(rem % 1000000)};
}

bool mcp_timedelta_to_us(const mcp_timedelta *v, int64_t *us)
{
    const int64_t DAY = 86400000000LL;
    if (v->days > INT64_MAX / DAY - 1 || v->days < INT64_MIN / DAY + 1)
        return false;
    *us = v->days * DAY + (int64_t)v->seconds * 1000000 + v->microseconds;
    return true;
}

/* ------------------------------------------------------------ the checkers */

bool mcp_datetime_parse(const char *text, mcp_datetime *out)
{
    mcp_datetime tmp;
    return text && check_datetime(text, strlen(text), out ? out : &tmp, NULL);
}
bool mcp_date_parse(const char *text, mcp_date *out)
{
    mcp_date tmp;
    return text && check_date(text, strlen(text), out ? out : &tmp, NULL);
}
bool mcp_time_parse(const char *text, mcp_time *out)
{
    mcp_time tmp;
    return text && check_time(text, strlen(text), out ? out : &tmp, NULL);
}
bool mcp_timedelta_parse(const char *text, mcp_timedelta *out)
{
    mcp_timedelta tmp;
    return text && check_timedelta(text, strlen(text), out ? out : &tmp, NULL);
}
bool mcp_uuid_parse(const char *text, mcp_uuid *out) { return text && check_uuid(text, strlen(text), out, NULL); }

const char *mcp_url_normalize(mcp_arena *a, const char *text)
{
    url_parts p;
    size_t n = text ? strlen(text) : 0;
    if (!text || !check_url(text, n, &p, NULL))
        return NULL;
    return url_canon(a, text, n, &p);
}

const char *mcp_decimal_normalize(mcp_arena *a, const char *text)
{
    if (!text || !decimal_pattern(text, strlen(text)))
        return NULL;
    return decimal_canon_text(a, text, strlen(text));
}

bool mcp_format_check_text(mcp_format f, const char *s, size_t n, mcp_format_error *e)
{
    switch (f) {
    case MCP_FMT_DATETIME: {
        mcp_datetime v;
        return check_datetime(s, n, &v, e);
    }
    case MCP_FMT_DATE: {
        mcp_date v;
        return check_date(s, n, &v, e);
    }
    case MCP_FMT_TIME: {
        mcp_time v;
        return check_time(s, n, &v, e);
    }
    case MCP_FMT_TIMEDELTA: {
        mcp_timedelta v;
        return check_timedelta(s, n, &v, e);
    }
    case MCP_FMT_UUID:
        return check_uuid(s, n, NULL, e);
    case MCP_FMT_URL:
        return check_url(s, n, NULL, e);
    case MCP_FMT_DECIMAL:
        return decimal_pattern(s, n) || decimal_string_error(s, n, e);
    default:
        return false;
    }
}

static const mcp_verr_kind TYPE_KIND[] = {
    [MCP_FMT_DATETIME] = MCP_VERR_DATETIME_TYPE, [MCP_FMT_DATE] = MCP_VERR_DATE_TYPE,
    [MCP_FMT_TIME] = MCP_VERR_TIME_TYPE,         [MCP_FMT_TIMEDELTA] = MCP_VERR_TIME_DELTA_TYPE,
    [MCP_FMT_UUID] = MCP_VERR_UUID_TYPE,         [MCP_FMT_URL] = MCP_VERR_URL_TYPE,
    [MCP_FMT_DECIMAL] = MCP_VERR_DECIMAL_TYPE,
};

bool mcp_format_check(mcp_format f, const mcp_json *v, mcp_arena *a, const char **canon, bool *oom, mcp_format_error *e)
{
    *canon = NULL;
    if (f < MCP_FMT_DATETIME || f > MCP_FMT_DECIMAL)
        return kerr(e, MCP_VERR_STRING_TYPE);
    if (f == MCP_FMT_DECIMAL && (v->kind == MCP_JINT || v->kind == MCP_JBIGINT || v->kind == MCP_JFLOAT)) {
        mcp_buf b;
        mcp_buf_init(&b);
        if (v->kind == MCP_JINT)
            mcp_buf_printf(&b, "%lld", (long long)v->i);
        else if (v->kind == MCP_JBIGINT)
            mcp_buf_put(&b, v->s, v->len);
        else if (!isfinite(v->d)) {
            mcp_buf_free(&b);
            return kerr(e, MCP_VERR_FINITE_NUMBER);
        } else
            mcp_report_number(&b, v->d); /* Rust's Display of the f64, as pydantic-core */
        if (b.oom) {
            mcp_buf_free(&b);
            *oom = true;
            return false;
        }
        /* an integer keeps its digits (str(Decimal(int))); "-0" of an integer is "0" */
        *canon = decimal_canon_text(a, b.data, b.len);
        mcp_buf_free(&b);
        if (!*canon)
            *oom = true;
        return *canon != NULL;
    }
    if (v->kind != MCP_JSTRING)
        return kerr(e, TYPE_KIND[f]);
    const char *s = v->s;
    size_t n = v->len;
    switch (f) {
    case MCP_FMT_DATETIME: {
        mcp_datetime x;
        if (!check_datetime(s, n, &x, e))
            return false;
        *canon = mcp_datetime_format(a, &x);
        break;
    }
    case MCP_FMT_DATE: {
        mcp_date x;
        if (!check_date(s, n, &x, e))
            return false;
        *canon = mcp_date_format(a, &x);
        break;
    }
    case MCP_FMT_TIME: {
        mcp_time x;
        if (!check_time(s, n, &x, e))
            return false;
        *canon = mcp_time_format(a, &x);
        break;
    }
    case MCP_FMT_TIMEDELTA: {
        mcp_timedelta x;
        if (!check_timedelta(s, n, &x, e))
            return false;
        *canon = mcp_timedelta_format(a, &x);
        break;
    }
    case MCP_FMT_UUID: {
        mcp_uuid x;
        if (!check_uuid(s, n, &x, e))
            return false;
        *canon = mcp_uuid_format(a, &x);
        break;
    }
    case MCP_FMT_URL: {
        url_parts p;
        if (!check_url(s, n, &p, e))
            return false;
        *canon = url_canon(a, s, n, &p);
        break;
    }
    case MCP_FMT_DECIMAL:
        if (!decimal_pattern(s, n))
            return decimal_string_error(s, n, e);
        *canon = decimal_canon_text(a, s, n);
        break;
    default:
        break;
    }
    if (!*canon)
        *oom = true;
    return *canon != NULL;
}
