/* report.h: validation reports, in the form the MCP Python SDK (pydantic) prints.
 *
 *     1 validation error for WeatherData
 *     humidity
 *       Field required [type=missing, input_value={'temperature': 16.2}, input_type=dict]
 *
 * A validator never stops at the first problem: it adds every error to the
 * report, each with its location (a path of keys, indices and union-arm tags),
 * its kind, and the offending input value.
 */
#ifndef MCPIDL_REPORT_H
#define MCPIDL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcpidl/api.h"
#include "mcpidl/arena.h"
#include "mcpidl/buf.h"
#include "mcpidl/json.h"

MCPIDL_BEGIN_DECLS

/* The error kinds (IDL.md, "The call result"): type names and message forms. */
typedef enum mcp_verr_kind {
    MCP_VERR_MISSING,            /* Field required */
    MCP_VERR_MODEL_TYPE,         /* Input should be a valid dictionary or instance of NAME */
    MCP_VERR_DICT_TYPE,          /* Input should be a valid dictionary */
    MCP_VERR_LIST_TYPE,          /* Input should be a valid list */
    MCP_VERR_TUPLE_TYPE,         /* Input should be a valid tuple */
    MCP_VERR_SET_TYPE,           /* Input should be a valid set */
    MCP_VERR_STRING_TYPE,        /* Input should be a valid string */
    MCP_VERR_INT_TYPE,           /* Input should be a valid integer */
    MCP_VERR_INT_FROM_FLOAT,     /* Input should be a valid integer, got a number with a fractional part */
    MCP_VERR_INT_PARSING,        /* Input should be a valid integer, unable to parse string as an integer */
    MCP_VERR_INT_PARSING_SIZE,   /* Unable to parse input string as an integer, exceeded maximum size */
    MCP_VERR_FLOAT_TYPE,         /* Input should be a valid number */
    MCP_VERR_FINITE_NUMBER,      /* Input should be a finite number */
    MCP_VERR_BOOL_TYPE,          /* Input should be a valid boolean */
    MCP_VERR_NONE_REQUIRED,      /* Input should be None */
    MCP_VERR_GREATER_THAN,       /* Input should be greater than N */
    MCP_VERR_GREATER_THAN_EQUAL, /* Input should be greater than or equal to N */
    MCP_VERR_LESS_THAN,          /* Input should be less than N */
    MCP_VERR_LESS_THAN_EQUAL,    /* Input should be less than or equal to N */
    MCP_VERR_MULTIPLE_OF,        /* Input should be a multiple of N */
    MCP_VERR_STRING_TOO_SHORT,   /* String should have at least N character(s) */
    MCP_VERR_STRING_TOO_LONG,    /* String should have at most N character(s) */
    MCP_VERR_STRING_PATTERN,     /* String should match pattern 'P' */
    MCP_VERR_TOO_SHORT,          /* List should have at least N item(s) after validation, not M */
    MCP_VERR_TOO_LONG,           /* List should have at most N item(s) after validation, not M */
    MCP_VERR_UNIQUE_ITEMS,       /* Set items should be unique */
    MCP_VERR_LITERAL,            /* Input should be 'a' or 'b' */
    MCP_VERR_ENUM,               /* Input should be 'red' or 'green' */
    MCP_VERR_EXTRA_FORBIDDEN,    /* Extra inputs are not permitted */
    MCP_VERR_STRING_UNICODE,     /* Input should be a valid string, unable to parse raw data as a unicode string */
    MCP_VERR_VALUE_ERROR,        /* Value error, WHY (a C value no JSON can carry) */
    /* the string-format types (mcpidl/formats.h) */
    MCP_VERR_DATETIME_TYPE,        /* Input should be a valid datetime */
    MCP_VERR_DATETIME_PARSING,     /* Input should be a valid datetime, WHY */
    MCP_VERR_TIMEZONE_AWARE,       /* Input should have timezone info */
    MCP_VERR_DATE_TYPE,            /* Input should be a valid date */
    MCP_VERR_DATE_PARSING,         /* Input should be a valid date in the format YYYY-MM-DD, WHY */
    MCP_VERR_TIME_TYPE,            /* Input should be a valid time */
    MCP_VERR_TIME_PARSING,         /* Input should be in a valid time format, WHY */
    MCP_VERR_TIME_DELTA_TYPE,      /* Input should be a valid duration */
    MCP_VERR_TIME_DELTA_PARSING,   /* Input should be a valid duration, WHY */
    MCP_VERR_UUID_TYPE,            /* UUID input should be a string, bytes or UUID object */
    MCP_VERR_UUID_PARSING,         /* Input should be a valid UUID, WHY */
    MCP_VERR_URL_TYPE,             /* URL input should be a string or URL */
    MCP_VERR_URL_PARSING,          /* Input should be a valid URL, WHY */
    MCP_VERR_URL_SYNTAX_VIOLATION, /* Input violated strict URL syntax rules, WHY */
    MCP_VERR_DECIMAL_TYPE,         /* Decimal input should be an integer, float, string or Decimal object */
    MCP_VERR_DECIMAL_PARSING,      /* Input should be a valid decimal */
    MCP_VERR_KIND_COUNT
} mcp_verr_kind;

/* "missing", "int_type", ... ("unknown" for a value out of range). */
MCPIDL_API const char *mcp_verr_type_name(mcp_verr_kind k);
/* The message of a kind that takes no parameter ("Field required", ...), or
 * NULL for the kinds whose message holds a number, a name or values. */
MCPIDL_API const char *mcp_verr_message(mcp_verr_kind k);

/* One segment of a location: a key, an index, or a union-arm tag. */
typedef struct mcp_loc_seg {
    const char *key; /* NULL for an index */
    size_t key_len;
    size_t index;
} mcp_loc_seg;

typedef struct mcp_verror {
    mcp_verr_kind kind;
    const char *loc;       /* joined with '.', "" at the root */
    const char *message;   /* the full message */
    const mcp_json *input; /* the offending value (never NULL) */
    size_t loc_len;        /* bytes in loc (a key may hold a NUL) */
    size_t loc_depth;      /* its segments: 0 at the root (no location line;
                             * a single empty key still has one) */
} mcp_verror;

#define MCP_LOC_MAX 256
/* The errors a report keeps: a report counts every error, but keeps (and
 * prints) only the first MCP_REPORT_MAX_ITEMS, so that a hostile input of a
 * hundred thousand bad elements costs a readable report, not megabytes. */
#define MCP_REPORT_MAX_ITEMS 100

typedef struct mcp_report {
    mcp_arena *arena;
    mcp_verror *items; /* the first min(len, MCP_REPORT_MAX_ITEMS) errors */
    size_t len, cap;   /* len: every error added; cap: room in items */
    bool oom;
    /* The current location, maintained by the validator. */
    mcp_loc_seg path[MCP_LOC_MAX];
    size_t depth; /* may exceed MCP_LOC_MAX; deeper segments are not recorded */
} mcp_report;

MCPIDL_API void mcp_report_init(mcp_report *r, mcp_arena *arena);
static inline void mcp_report_push_key(mcp_report *r, const char *key, size_t len)
{
    if (r->depth < MCP_LOC_MAX) { /* member by member: no compound literal, which C++ lacks */
        r->path[r->depth].key = key;
        r->path[r->depth].key_len = len;
        r->path[r->depth].index = 0;
    }
    r->depth++;
}
static inline void mcp_report_push_index(mcp_report *r, size_t i)
{
    if (r->depth < MCP_LOC_MAX) {
        r->path[r->depth].key = NULL;
        r->path[r->depth].key_len = 0;
        r->path[r->depth].index = i;
    }
    r->depth++;
}
static inline void mcp_report_pop(mcp_report *r) { r->depth--; }

/* Add an error at the current location. `message` is the full text (copied
 * into the arena, like the location). The location is written as pydantic
 * prints it: segments joined with '.', indices in decimal, keys raw but
 * within backquotes when they hold a '.' (`a.b`). Only the first MCP_LOC_MAX
 * segments are kept. A NULL input counts as None. Out of memory: the error is
 * dropped and r->oom set. */
MCPIDL_API void mcp_report_add(mcp_report *r, mcp_verr_kind kind, const mcp_json *input, const char *message);
/* Add an error whose message is the kind's fixed text (mcp_verr_message; a
 * kind without one, misused here, gets its type name as the message). */
MCPIDL_API void mcp_report_add_simple(mcp_report *r, mcp_verr_kind kind, const mcp_json *input);

/* A constraint's number as pydantic's messages print it ("Input should be
 * greater than N", multiple_of): Rust's Display of an f64, the shortest digits
 * that read back, always in plain decimal and without ".0": 1.0 -> "1",
 * 1.5 -> "1.5", 1e-7 -> "0.0000001", 1e20 -> "100000000000000000000",
 * -0.0 -> "-0", NaN, inf, -inf. (An integer bound prints as itself.) */
MCPIDL_API void mcp_report_number(mcp_buf *b, double d);

/* The whole report, as pydantic prints a ValidationError:
 *   "N validation error(s) for TITLE", then per error: the location line
 *   (omitted at the root), "  MESSAGE [type=T, input_value=REPR, input_type=PYTYPE]".
 * Beyond MCP_REPORT_MAX_ITEMS errors, the first ones are printed, then the
 * line "... and K more errors" (N in the first line stays the whole count).
 * Lines joined with "\n", no trailing newline, no "For further information"
 * lines. input_value is mcp_json_py_repr_short: Python's repr, shortened in
 * the middle when longer than 50 bytes of UTF-8 (the first 25 bytes, "...",
 * the last 24, each cut moved off a multi-byte character, as pydantic-core
 * does); bounded work whatever the size of the input. */
MCPIDL_API void mcp_report_format(mcp_buf *b, const mcp_report *r, const char *title);

MCPIDL_END_DECLS

#endif
