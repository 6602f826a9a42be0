/* report.c: validation reports in pydantic's words and layout. */
#include "internal/pyrepr.h"
#include "mcpidl/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mcpidl/jsonw.h"

static const struct {
    const char *type;
    const char *message; /* NULL: the message takes a parameter */
} kinds[MCP_VERR_KIND_COUNT] = {
    [MCP_VERR_MISSING] = {"missing", "Field required"},
    [MCP_VERR_MODEL_TYPE] = {"model_type", NULL},
    [MCP_VERR_DICT_TYPE] = {"dict_type", "Input should be a valid dictionary"},
    [MCP_VERR_LIST_TYPE] = {"list_type", "Input should be a valid list"},
    [MCP_VERR_TUPLE_TYPE] = {"tuple_type", "Input should be a valid tuple"},
    [MCP_VERR_SET_TYPE] = {"set_type", "Input should be a valid set"},
    [MCP_VERR_STRING_TYPE] = {"string_type", "Input should be a valid string"},
    [MCP_VERR_INT_TYPE] = {"int_type", "Input should be a valid integer"},
    [MCP_VERR_INT_FROM_FLOAT] = {"int_from_float",
                                 "Input should be a valid integer, got a number with a fractional part"},
    [MCP_VERR_INT_PARSING] = {"int_parsing", "Input should be a valid integer, unable to parse string as an integer"},
    [MCP_VERR_INT_PARSING_SIZE] = {"int_parsing_size",
                                   "Unable to parse input string as an integer, exceeded maximum size"},
    [MCP_VERR_FLOAT_TYPE] = {"float_type", "Input should be a valid number"},
    [MCP_VERR_FINITE_NUMBER] = {"finite_number", "Input should be a finite number"},
    [MCP_VERR_BOOL_TYPE] = {"bool_type", "Input should be a valid boolean"},
    [MCP_VERR_NONE_REQUIRED] = {"none_required", "Input should be None"},
    [MCP_VERR_GREATER_THAN] = {"greater_than", NULL},
    [MCP_VERR_GREATER_THAN_EQUAL] = {"greater_than_equal", NULL},
    [MCP_VERR_LESS_THAN] = {"less_than", NULL},
    [MCP_VERR_LESS_THAN_EQUAL] = {"less_than_equal", NULL},
    [MCP_VERR_MULTIPLE_OF] = {"multiple_of", NULL},
    [MCP_VERR_STRING_TOO_SHORT] = {"string_too_short", NULL},
    [MCP_VERR_STRING_TOO_LONG] = {"string_too_long", NULL},
    [MCP_VERR_STRING_PATTERN] = {"string_pattern_mismatch", NULL},
    [MCP_VERR_TOO_SHORT] = {"too_short", NULL},
    [MCP_VERR_TOO_LONG] = {"too_long", NULL},
    [MCP_VERR_UNIQUE_ITEMS] = {"unique_items", "Set items should be unique"},
    [MCP_VERR_LITERAL] = {"literal_error", NULL},
    [MCP_VERR_ENUM] = {"enum", NULL},
    [MCP_VERR_EXTRA_FORBIDDEN] = {"extra_forbidden", "Extra inputs are not permitted"},
    [MCP_VERR_STRING_UNICODE] = {"string_unicode",
                                 "Input should be a valid string, unable to parse raw data as a unicode string"},
    [MCP_VERR_VALUE_ERROR] = {"value_error", NULL},
    [MCP_VERR_DATETIME_TYPE] = {"datetime_type", "Input should be a valid datetime"},
    [MCP_VERR_DATETIME_PARSING] = {"datetime_parsing", NULL},
    [MCP_VERR_TIMEZONE_AWARE] = {"timezone_aware", "Input should have timezone info"},
    [MCP_VERR_DATE_TYPE] = {"date_type", "Input should be a valid date"},
    [MCP_VERR_DATE_PARSING] = {"date_parsing", NULL},
    [MCP_VERR_TIME_TYPE] = {"time_type", "Input should be a valid time"},
    [MCP_VERR_TIME_PARSING] = {"time_parsing", NULL},
    [MCP_VERR_TIME_DELTA_TYPE] = {"time_delta_type", "Input should be a valid duration"},
    [MCP_VERR_TIME_DELTA_PARSING] = {"time_delta_parsing", NULL},
    [MCP_VERR_UUID_TYPE] = {"uuid_type", "UUID input should be a string, bytes or UUID object"},
    [MCP_VERR_UUID_PARSING] = {"uuid_parsing", NULL},
    [MCP_VERR_URL_TYPE] = {"url_type", "URL input should be a string or URL"},
    [MCP_VERR_URL_PARSING] = {"url_parsing", NULL},
    [MCP_VERR_URL_SYNTAX_VIOLATION] = {"url_syntax_violation", NULL},
    [MCP_VERR_DECIMAL_TYPE] = {"decimal_type", "Decimal input should be an integer, float, string or Decimal object"},
    [MCP_VERR_DECIMAL_PARSING] = {"decimal_parsing", "Input should be a valid decimal"},
};

const char *mcp_verr_type_name(mcp_verr_kind k)
{
    if ((unsigned)k >= MCP_VERR_KIND_COUNT || !kinds[k].type)
        return "unknown";
    return kinds[k].type;
}

const char *mcp_verr_message(mcp_verr_kind k)
{
    if ((unsigned)k >= MCP_VERR_KIND_COUNT)
        return NULL;
    return kinds[k].message;
}

void mcp_report_init(mcp_report *r, mcp_arena *arena)
{
    /* Not the path: 6 KB that every decode would clear, of which a segment
     * is only read below depth, where push wrote it. */
    r->arena = arena;
    r->items = NULL;
    r->len = r->cap = 0;
    r->oom = false;
    r->depth = 0;
}

/* ---- locations ---------------------------------------------------------- */

static size_t index_text(size_t i, char out[24]) { return (size_t)snprintf(out, 24, "%zu", i); }

/* The location of the current path, as pydantic's Location displays it. */
static char *loc_text(mcp_report *r, size_t depth, size_t *len)
{
    size_t n = 0;
    char tmp[24];
    for (size_t i = 0; i < depth; i++) {
        const mcp_loc_seg *g = &r->path[i];
        size_t k = g->key ? g->key_len : index_text(g->index, tmp);
        if (g->key && k && memchr(g->key, '.', k))
            k += 2;
        n += k + (i > 0);
    }
    char *p = mcp_arena_alloc(r->arena, n + 1);
    if (!p)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < depth; i++) {
        const mcp_loc_seg *g = &r->path[i];
        if (i)
            p[o++] = '.';
        if (!g->key) {
            size_t k = index_text(g->index, tmp);
            memcpy(p + o, tmp, k);
            o += k;
            continue;
        }
        bool quote = g->key_len && memchr(g->key, '.', g->key_len);
        if (quote)
            p[o++] = '`';
        if (g->key_len)
            memcpy(p + o, g->key, g->key_len);
        o += g->key_len;
        if (quote)
            p[o++] = '`';
    }
    p[o] = 0;
    *len = o;
    return p;
}

/* ---- adding ------------------------------------------------------------- */

static const mcp_json none_value = {.kind = MCP_JNULL};

/* One error at the current location; `message` copied into the arena unless
 * it is one of the static texts of `kinds`. */
static void add_error(mcp_report *r, mcp_verr_kind kind, const mcp_json *input, const char *message, bool copy)
{
    if (!r->arena) {
        r->oom = true;
        return;
    }
    if (r->len >= MCP_REPORT_MAX_ITEMS) {
        r->len++; /* counted, not kept */
        return;
    }
    if (r->len == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8;
        if (cap < r->cap || cap > SIZE_MAX / sizeof *r->items) {
            r->oom = true;
            return;
        }
        mcp_verror *items = mcp_arena_realloc(r->arena, r->items, r->len * sizeof *items, cap * sizeof *items);
        if (!items) {
            r->oom = true;
            return;
        }
        r->items = items;
        r->cap = cap;
    }
    size_t depth = r->depth < MCP_LOC_MAX ? r->depth : MCP_LOC_MAX;
    size_t loc_len = 0;
    char *loc = loc_text(r, depth, &loc_len);
    const char *msg = copy ? mcp_arena_strdup(r->arena, message ? message : "") : message;
    if (!loc || !msg) {
        r->oom = true;
        return;
    }
    r->items[r->len++] = (mcp_verror){
        .kind = kind,
        .loc = loc,
        .message = msg,
        .input = input ? input : &none_value,
        .loc_len = loc_len,
        .loc_depth = depth,
    };
}

void mcp_report_add(mcp_report *r, mcp_verr_kind kind, const mcp_json *input, const char *message)
{
    add_error(r, kind, input, message, true);
}

void mcp_report_add_simple(mcp_report *r, mcp_verr_kind kind, const mcp_json *input)
{
    const char *m = mcp_verr_message(kind);
    add_error(r, kind, input, m ? m : mcp_verr_type_name(kind), false);
}

/* ---- numbers in messages ------------------------------------------------ */

void mcp_report_number(mcp_buf *b, double d)
{
    if (isnan(d)) {
        mcp_buf_puts(b, "NaN");
        return;
    }
    if (isinf(d)) {
        mcp_buf_puts(b, d < 0 ? "-inf" : "inf");
        return;
    }
    if (signbit(d))
        mcp_buf_putc(b, '-');
    char dig[32];
    int e10 = 0;
    int nd = mcp_double_shortest(d, dig, &e10); /* |d| = 0.DIG * 10^e10 */
    if (nd <= 0) {
        mcp_buf_putc(b, '0');
        return;
    }
    if (e10 <= 0) {
        mcp_buf_put(b, "0.", 2);
        for (int i = 0; i < -e10; i++)
            mcp_buf_putc(b, '0');
        mcp_buf_put(b, dig, (size_t)nd);
    } else if (e10 < nd) {
        mcp_buf_put(b, dig, (size_t)e10);
        mcp_buf_putc(b, '.');
        mcp_buf_put(b, dig + e10, (size_t)(nd - e10));
    } else {
        mcp_buf_put(b, dig, (size_t)nd);
        for (int i = nd; i < e10; i++)
            mcp_buf_putc(b, '0');
    }
}

/* ---- formatting --------------------------------------------------------- */

void mcp_report_format(mcp_buf *b, const mcp_report *r, const char *title)
{
    mcp_buf_printf(b, "%zu validation error%s for ", r->len, r->len == 1 ? "" : "s");
    mcp_buf_puts(b, title ? title : "");
    size_t kept = r->len < MCP_REPORT_MAX_ITEMS ? r->len : MCP_REPORT_MAX_ITEMS;
    for (size_t i = 0; i < kept; i++) {
        const mcp_verror *e = &r->items[i];
        mcp_buf_putc(b, '\n');
        if (e->loc_depth) {
            mcp_buf_put(b, e->loc, e->loc_len);
            mcp_buf_putc(b, '\n');
        }
        mcp_buf_put(b, "  ", 2);
        mcp_buf_puts(b, e->message ? e->message : "");
        mcp_buf_puts(b, " [type=");
        mcp_buf_puts(b, mcp_verr_type_name(e->kind));
        mcp_buf_puts(b, ", input_value=");
        mcp_json_py_repr_short(b, e->input);
        mcp_buf_puts(b, ", input_type=");
        mcp_buf_puts(b, mcp_json_py_type(e->input));
        mcp_buf_putc(b, ']');
    }
    if (r->len > kept)
        mcp_buf_printf(b, "\n... and %zu more error%s", r->len - kept, r->len - kept == 1 ? "" : "s");
}
