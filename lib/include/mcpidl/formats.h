/* formats.h: the IDL's string-format types (datetime, date, time, timedelta,
 * uuid, url, decimal) as C values.
 *
 * In a generated struct each of these types is a `const char *`: the value's
 * text, always in its canonical form (the form the MCP Python SDK writes:
 * "2026-12-03T07:00:00Z", "PT1H30M", lowercase UUIDs, "1.50"). A handler
 * reads its arguments as text and writes its results as text; the helpers
 * below turn the text into fields and back, so that no handler needs its own
 * date parser. The runtime checks every value on the way in and on the way
 * out by the same rules as the *_parse functions here, and writes outputs in
 * canonical form.
 *
 * Rules (strict: a value must satisfy both the published JSON Schema format
 * and pydantic's parser):
 *   datetime   RFC 3339 date-time: YYYY-MM-DDTHH:MM:SS[.f](Z|+HH:MM|-HH:MM)
 *              (T and Z also in lowercase; a time zone is required)
 *   date       RFC 3339 full-date: YYYY-MM-DD (year 0001..9999)
 *   time       RFC 3339 partial-time or full-time: HH:MM:SS[.f][Z|+HH:MM|-HH:MM]
 *   timedelta  RFC 3339 duration (the JSON Schema `duration` format, as Ajv's
 *              ajv-formats reads it): P[nY][nM][nD][T[nH][nM][nS]] with at least
 *              one component (and one after T), or PnW; no sign, no fractions.
 *              Y counts 365 days, M 30 days, W 7 (as pydantic). A negative
 *              duration, or one with a fraction of a second, has no text.
 *   uuid       RFC 9562 text form: 8-4-4-4-12 hexadecimal digits, any case
 *   url        RFC 3986 absolute URI (scheme ":" ...), ASCII only
 *   decimal    a JSON number, or a string matching ^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$
 * Fractions of a second keep 6 digits (microseconds; further digits are cut).
 */
#ifndef MCPIDL_FORMATS_H
#define MCPIDL_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcpidl/api.h"
#include "mcpidl/arena.h"

MCPIDL_BEGIN_DECLS

/* A calendar date (proleptic Gregorian). */
typedef struct mcp_date {
    int year;  /* 1..9999 */
    int month; /* 1..12 */
    int day;   /* 1..31 */
} mcp_date;

/* A time of day, with or without a UTC offset. */
typedef struct mcp_time {
    int hour;           /* 0..23 */
    int minute;         /* 0..59 */
    int second;         /* 0..59 */
    int microsecond;    /* 0..999999 */
    bool has_offset;    /* false: a local ("naive") time */
    int offset_minutes; /* east of UTC, -1439..1439; 0 is written "Z" */
} mcp_time;

/* A date and time; `time.has_offset` is always true for a valid datetime. */
typedef struct mcp_datetime {
    mcp_date date;
    mcp_time time;
} mcp_datetime;

/* A duration, normalized as Python's timedelta: 0 <= seconds < 86400,
 * 0 <= microseconds < 1000000, days carries the sign (-1 day + 86399 s is
 * minus one second). |days| <= 999999999. */
typedef struct mcp_timedelta {
    int64_t days;
    int32_t seconds;
    int32_t microseconds;
} mcp_timedelta;

/* A UUID's 16 bytes, in network order (the order of the text). */
typedef struct mcp_uuid {
    uint8_t bytes[16];
} mcp_uuid;

/* Parse text (NUL-terminated) by the rules above: true and *out filled, or
 * false when the text is not a valid value of the type. */
MCPIDL_API bool mcp_datetime_parse(const char *text, mcp_datetime *out);
MCPIDL_API bool mcp_date_parse(const char *text, mcp_date *out);
MCPIDL_API bool mcp_time_parse(const char *text, mcp_time *out);
MCPIDL_API bool mcp_timedelta_parse(const char *text, mcp_timedelta *out);
MCPIDL_API bool mcp_uuid_parse(const char *text, mcp_uuid *out);

/* The canonical text of a value, allocated in the arena; NULL when the value
 * is out of range (a month of 13, a 30th of February, a negative timedelta or
 * one with microseconds, ...) or out of memory. */
MCPIDL_API const char *mcp_datetime_format(mcp_arena *a, const mcp_datetime *v);
MCPIDL_API const char *mcp_date_format(mcp_arena *a, const mcp_date *v);
MCPIDL_API const char *mcp_time_format(mcp_arena *a, const mcp_time *v);
MCPIDL_API const char *mcp_timedelta_format(mcp_arena *a, const mcp_timedelta *v);
MCPIDL_API const char *mcp_uuid_format(mcp_arena *a, const mcp_uuid *v);

/* A timedelta from a count of microseconds (any int64), and back (false
 * when the duration does not fit in an int64 of microseconds). */
MCPIDL_API mcp_timedelta mcp_timedelta_from_us(int64_t us);
MCPIDL_API bool mcp_timedelta_to_us(const mcp_timedelta *v, int64_t *us);

/* url and decimal stay text. The canonical form of a valid value (for a
 * url: scheme and, for http, https, ws, wss and ftp, host in lowercase, the
 * default port dropped, an empty path written "/"; for a decimal: Python's
 * str(Decimal(text)), always in plain notation:
 * "0.0000001", not "1E-7", which the published pattern refuses), in the arena; NULL when text is not valid or out of memory. */
MCPIDL_API const char *mcp_url_normalize(mcp_arena *a, const char *text);
MCPIDL_API const char *mcp_decimal_normalize(mcp_arena *a, const char *text);

MCPIDL_END_DECLS

#endif
