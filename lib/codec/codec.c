/* codec.c: the table-driven codec. JSON values in, C values out (validating
 * every rule of the published schema, reporting like pydantic); C values back
 * out as JSON values.
 *
 * Recursion follows the value, whose depth the strict parser bounds, and the
 * descriptor, which the compiler bounds.
 */
#include "internal/utf8.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "internal/codec.h"
#include "internal/formats.h"
#include "internal/pyrepr.h"
#include "mcpidl/jsonw.h"

typedef struct dec_ctx {
    mcp_arena *a;
    mcp_report *rep;
    pcre2_match_data *md; /* for every pattern of one decode, made at the first */
} dec_ctx;

static bool dec(dec_ctx *c, const mcp_type *t, const mcp_json *v, void *out);

/* ------------------------------------------------------------------ messages */

static void bound_text(mcp_buf *b, mcp_bound n)
{
    if (n.is_int)
        mcp_buf_printf(b, "%lld", (long long)n.i);
    else
        mcp_report_number(b, n.d); /* pydantic writes bounds as Rust does: 1.0 -> 1, 1e-7 -> 0.0000001 */
}

static void add_bound_error(dec_ctx *c, mcp_verr_kind k, const char *prefix, mcp_bound n, const mcp_json *v)
{
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_puts(&b, prefix);
    bound_text(&b, n);
    mcp_report_add(c->rep, k, v, b.data ? b.data : prefix);
    mcp_buf_free(&b);
}

static void add_count_error(dec_ctx *c, mcp_verr_kind k, const mcp_json *v, const char *fmt, long long n,
                            const char *unit, long long actual, bool with_actual)
{
    char msg[200];
    if (with_actual)
        snprintf(msg, sizeof msg, fmt, n, unit, n == 1 ? "" : "s", actual);
    else
        snprintf(msg, sizeof msg, fmt, n, unit, n == 1 ? "" : "s");
    mcp_report_add(c->rep, k, v, msg);
}

/* "'a' or 'b'", "'a', 'b' or 'c'" with Python reprs. */
static void expected_list(mcp_buf *b, const mcp_literal *vals, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            mcp_buf_puts(b, i + 1 == n ? " or " : ", ");
        const mcp_literal *l = &vals[i];
        mcp_json tmp = {.kind = l->kind, .b = l->i != 0, .i = l->i, .s = l->s, .len = l->len};
        mcp_json_py_repr(b, &tmp);
    }
}

/* ------------------------------------------------------------------ numbers */

static int cmp_bound(double x, int64_t xi, bool x_is_int, mcp_bound b)
{
    if (x_is_int && b.is_int)
        return xi < b.i ? -1 : xi > b.i;
    double y = b.is_int ? (double)b.i : b.d;
    return x < y ? -1 : x > y;
}

/* Whether x is a multiple of the bound (check_number's rule). */
static bool is_multiple(const mcp_constraints *k, double x, int64_t xi, bool is_int)
{
    if (is_int && k->multiple_of.is_int)
        return k->multiple_of.i == -1 || xi % k->multiple_of.i == 0;
    if (k->multiple_of.is_int)
        return fmod(x, (double)k->multiple_of.i) == 0; /* exact, even beyond 2^53 */
    double q = x / k->multiple_of.d;
    return isfinite(q) && q == floor(q);
}

/* Whether a number meets every bound of k: check_number without a report
 * (true exactly when check_number would add no error). */
static bool number_ok(const mcp_constraints *k, double x, int64_t xi, bool is_int)
{
    unsigned fl = k->flags;
    return (!(fl & MCP_C_EXCLUSIVE_MINIMUM) || cmp_bound(x, xi, is_int, k->exclusive_minimum) > 0) &&
           (!(fl & MCP_C_MINIMUM) || cmp_bound(x, xi, is_int, k->minimum) >= 0) &&
           (!(fl & MCP_C_EXCLUSIVE_MAXIMUM) || cmp_bound(x, xi, is_int, k->exclusive_maximum) < 0) &&
           (!(fl & MCP_C_MAXIMUM) || cmp_bound(x, xi, is_int, k->maximum) <= 0) &&
           (!(fl & MCP_C_MULTIPLE_OF) || is_multiple(k, x, xi, is_int));
}

static bool check_number(dec_ctx *c, const mcp_constraints *k, const mcp_json *v, double x, int64_t xi, bool is_int)
{
    if (!k || number_ok(k, x, xi, is_int))
        return true;
    bool ok = true;
    if ((k->flags & MCP_C_EXCLUSIVE_MINIMUM) && cmp_bound(x, xi, is_int, k->exclusive_minimum) <= 0) {
        add_bound_error(c, MCP_VERR_GREATER_THAN, "Input should be greater than ", k->exclusive_minimum, v);
        ok = false;
    }
    if ((k->flags & MCP_C_MINIMUM) && cmp_bound(x, xi, is_int, k->minimum) < 0) {
        add_bound_error(c, MCP_VERR_GREATER_THAN_EQUAL, "Input should be greater than or equal to ", k->minimum, v);
        ok = false;
    }
    if ((k->flags & MCP_C_EXCLUSIVE_MAXIMUM) && cmp_bound(x, xi, is_int, k->exclusive_maximum) >= 0) {
        add_bound_error(c, MCP_VERR_LESS_THAN, "Input should be less than ", k->exclusive_maximum, v);
        ok = false;
    }
    if ((k->flags & MCP_C_MAXIMUM) && cmp_bound(x, xi, is_int, k->maximum) > 0) {
        add_bound_error(c, MCP_VERR_LESS_THAN_EQUAL, "Input should be less than or equal to ", k->maximum, v);
        ok = false;
    }
    if (k->flags & MCP_C_MULTIPLE_OF) {
        if (!is_multiple(k, x, xi, is_int)) {
            add_bound_error(c, MCP_VERR_MULTIPLE_OF, "Input should be a multiple of ", k->multiple_of, v);
            ok = false;
        }
    }
    return ok;
}

static bool dec_int(dec_ctx *c, const mcp_type *t, const mcp_json *v, int64_t *out)
{
    int64_t x;
    switch (v->kind) {
    case MCP_JINT:
        x = v->i;
        break;
    case MCP_JBIGINT:
        mcp_report_add_simple(c->rep, MCP_VERR_INT_PARSING_SIZE, v);
        return false;
    case MCP_JFLOAT:
        if (!isfinite(v->d)) {
            mcp_report_add_simple(c->rep, MCP_VERR_FINITE_NUMBER, v);
            return false;
        }
        if (v->d != floor(v->d)) {
            mcp_report_add_simple(c->rep, MCP_VERR_INT_FROM_FLOAT, v);
            return false;
        }
        if (!(v->d >= -9223372036854775808.0 && v->d < 9223372036854775808.0)) {
            mcp_report_add_simple(c->rep, MCP_VERR_INT_PARSING_SIZE, v);
            return false;
        }
        x = (int64_t)v->d;
        break;
    default:
        mcp_report_add_simple(c->rep, MCP_VERR_INT_TYPE, v);
        return false;
    }
    *out = x;
    return check_number(c, t->c, v, (double)x, x, true);
}

static bool dec_float(dec_ctx *c, const mcp_type *t, const mcp_json *v, double *out)
{
    double x;
    switch (v->kind) {
    case MCP_JINT:
        x = (double)v->i;
        break;
    case MCP_JBIGINT:
        x = strtod(v->s, NULL);
        break;
    case MCP_JFLOAT:
        x = v->d;
        break;
    default:
        mcp_report_add_simple(c->rep, MCP_VERR_FLOAT_TYPE, v);
        return false;
    }
    if (!isfinite(x)) {
        mcp_report_add_simple(c->rep, MCP_VERR_FINITE_NUMBER, v);
        return false;
    }
    *out = x;
    return check_number(c, t->c, v, x, 0, false);
}

/* ------------------------------------------------------------------ strings */


static pcre2_code *pattern_code(mcp_pattern *p)
{
    void *code = __atomic_load_n(&p->compiled, __ATOMIC_ACQUIRE);
    if (code)
        return code;
    int err;
    PCRE2_SIZE off;
    pcre2_code *fresh = pcre2_compile((PCRE2_SPTR)p->source, PCRE2_ZERO_TERMINATED,
                                      PCRE2_UTF | PCRE2_ALT_BSUX | PCRE2_DOLLAR_ENDONLY, &err, &off, NULL);
    if (!fresh)
        return NULL;
    /* Machine code for the pattern when the platform allows it; pcre2_match
     * then runs it (same results), else the interpreter as before. */
    (void)pcre2_jit_compile(fresh, PCRE2_JIT_COMPLETE);
    void *expected = NULL;
    if (!__atomic_compare_exchange_n(&p->compiled, &expected, (void *)fresh, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        pcre2_code_free(fresh); /* another thread won */
        return expected;
    }
    return fresh;
}

/* pcre2's memory (the match data, and the interpreter's frames when there is
 * no JIT) comes from the request's arena: no malloc per match. */
static void *arena_malloc(PCRE2_SIZE n, void *arena) { return mcp_arena_alloc(arena, n); }
static void arena_free(void *p, void *arena) { (void)p, (void)arena; }

/* One match data serves every pattern of a decode (one value, one thread). */
static pcre2_match_data *match_data(dec_ctx *c)
{
    if (!c->md) {
        pcre2_general_context *gc = pcre2_general_context_create(arena_malloc, arena_free, c->a);
        c->md = gc ? pcre2_match_data_create(1, gc) : NULL;
    }
    return c->md;
}

static bool pattern_matches(dec_ctx *c, mcp_pattern *p, const char *s, size_t n)
{
    pcre2_code *code = pattern_code(p);
    pcre2_match_data *md = code ? match_data(c) : NULL;
    if (!md)
        return false;
    /* pcre2_match would first check the subject's UTF-8 (and fail on bad
     * text, a mismatch here); checked once here, the JIT code runs directly,
     * without pcre2_match's checks. A pattern the JIT could not compile goes
     * to the interpreter. */
    if (!mcp_utf8_valid(s, n))
        return false;
    int rc = pcre2_jit_match(code, (PCRE2_SPTR)s, n, 0, 0, md, NULL);
    if (rc == PCRE2_ERROR_JIT_BADOPTION)
        rc = pcre2_match(code, (PCRE2_SPTR)s, n, 0, PCRE2_NO_UTF_CHECK, md, NULL);
    return rc >= 0;
}

/* Whether a string meets k's length bounds and pattern: check_length without
 * a report (true exactly when check_length would add no error). The common
 * bounds are decided without counting characters: a string has at most as
 * many as bytes, and at least one when its first byte starts one. */
static bool string_ok(dec_ctx *c, const mcp_constraints *k, const mcp_json *v)
{
    if (k->flags & (MCP_C_MIN_LENGTH | MCP_C_MAX_LENGTH)) {
        bool min_sure = !(k->flags & MCP_C_MIN_LENGTH) || k->min_length <= 0 ||
                        (k->min_length == 1 && v->len && ((unsigned char)v->s[0] & 0xc0) != 0x80);
        bool max_sure = !(k->flags & MCP_C_MAX_LENGTH) || (int64_t)v->len <= k->max_length;
        if (!min_sure || !max_sure) {
            size_t n = mcp_utf8_chars(v->s, v->len);
            if ((k->flags & MCP_C_MIN_LENGTH) && (int64_t)n < k->min_length)
                return false;
            if ((k->flags & MCP_C_MAX_LENGTH) && (int64_t)n > k->max_length)
                return false;
        }
    }
    return !k->pattern || pattern_matches(c, k->pattern, v->s, v->len);
}

static bool check_length(dec_ctx *c, const mcp_constraints *k, const mcp_json *v)
{
    if (!k || string_ok(c, k, v))
        return true;
    bool ok = true;
    if (k->flags & (MCP_C_MIN_LENGTH | MCP_C_MAX_LENGTH)) {
        size_t n = mcp_utf8_chars(v->s, v->len);
        if ((k->flags & MCP_C_MIN_LENGTH) && (int64_t)n < k->min_length) {
            add_count_error(c, MCP_VERR_STRING_TOO_SHORT, v, "String should have at least %lld %s%s",
                            (long long)k->min_length, "character", 0, false);
            ok = false;
        }
        if ((k->flags & MCP_C_MAX_LENGTH) && (int64_t)n > k->max_length) {
            add_count_error(c, MCP_VERR_STRING_TOO_LONG, v, "String should have at most %lld %s%s",
                            (long long)k->max_length, "character", 0, false);
            ok = false;
        }
    }
    if (ok && k->pattern && !pattern_matches(c, k->pattern, v->s, v->len)) {
        mcp_buf b;
        mcp_buf_init(&b);
        mcp_buf_printf(&b, "String should match pattern '%s'", k->pattern->source);
        mcp_report_add(c->rep, MCP_VERR_STRING_PATTERN, v, b.data ? b.data : "String should match pattern");
        mcp_buf_free(&b);
        ok = false;
    }
    return ok;
}

/* ------------------------------------------------------------------ sequences */

static uint64_t json_hash(const mcp_json *v)
{
    uint64_t h = 1469598103934665603u ^ (uint64_t)v->kind;
    switch (v->kind) {
    case MCP_JINT:
    case MCP_JFLOAT: {
        double d = v->kind == MCP_JINT ? (double)v->i : v->d;
        if (d == 0)
            d = 0; /* -0.0 == 0.0 */
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        return bits * 0x9E3779B97F4A7C15u ^ 7; /* ints and floats that are equal hash alike */
    }
    case MCP_JBOOL:
        return h + v->b;
    case MCP_JSTRING:
    case MCP_JBIGINT:
        for (size_t i = 0; i < v->len; i++)
            h = (h ^ (unsigned char)v->s[i]) * 1099511628211u;
        return h;
    case MCP_JARRAY:
        for (size_t i = 0; i < v->n; i++)
            h = (h ^ json_hash(v->items[i])) * 1099511628211u;
        return h;
    case MCP_JOBJECT: {
        uint64_t sum = 0; /* member order does not matter */
        for (size_t i = 0; i < v->n; i++) {
            uint64_t k = 1469598103934665603u;
            for (size_t j = 0; j < v->members[i].key_len; j++)
                k = (k ^ (unsigned char)v->members[i].key[j]) * 1099511628211u;
            sum += k * 31 + json_hash(v->members[i].value);
        }
        return h ^ sum;
    }
    default:
        return h;
    }
}

typedef struct hashed {
    uint64_t h;
    size_t i;
} hashed;

static int hashed_cmp(const void *a, const void *b)
{
    const hashed *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Whether an array holds two equal items: O(n log n) by hashing, equal hashes compared. */
static bool has_duplicates(dec_ctx *c, const mcp_json *v)
{
    if (v->n < 2)
        return false;
    if (v->n <= 8) {
        for (size_t i = 1; i < v->n; i++)
            for (size_t j = 0; j < i; j++)
                if (mcp_json_equal(v->items[i], v->items[j]))
                    return true;
        return false;
    }
    hashed *hs = mcp_arena_alloc(c->a, v->n * sizeof *hs);
    if (!hs)
        return false;
    for (size_t i = 0; i < v->n; i++)
        hs[i] = (hashed){json_hash(v->items[i]), i};
    qsort(hs, v->n, sizeof *hs, hashed_cmp);
    for (size_t i = 0; i < v->n;) {
        size_t j = i + 1;
        while (j < v->n && hs[j].h == hs[i].h)
            j++;
        for (size_t p = i; p < j; p++)
            for (size_t q = p + 1; q < j; q++)
                if (mcp_json_equal(v->items[hs[p].i], v->items[hs[q].i]))
                    return true;
        i = j;
    }
    return false;
}

typedef struct seq {
    size_t len;
    void *items;
} seq;

static bool literal_matches(const mcp_literal *l, const mcp_json *v)
{
    switch (l->kind) {
    case MCP_JSTRING:
        return v->kind == MCP_JSTRING && v->len == l->len && memcmp(v->s, l->s, l->len) == 0;
    case MCP_JINT:
        return (v->kind == MCP_JINT && v->i == l->i) || (v->kind == MCP_JFLOAT && v->d == (double)l->i);
    case MCP_JBOOL:
        return v->kind == MCP_JBOOL && v->b == (l->i != 0);
    case MCP_JNULL:
        return v->kind == MCP_JNULL;
    default:
        return false;
    }
}

/* A value that decodes without a word to say: a leaf (number, string, bool,
 * Literal or enum) that is valid, decoded into out as dec would. False, with
 * nothing written and nothing reported, for anything else: the caller then
 * steps into the value's location and calls dec, which says what is wrong
 * (or decodes what is not a leaf). Most values are valid leaves; this spares
 * them the location's push and pop and dec's general dispatch. */
static inline bool dec_leaf(dec_ctx *c, const mcp_type *t, const mcp_json *v, void *out)
{
    switch (t->kind) {
    case MCP_T_FLOAT: {
        double x;
        if (v->kind == MCP_JFLOAT)
            x = v->d;
        else if (v->kind == MCP_JINT)
            x = (double)v->i;
        else
            return false;
        if (!isfinite(x) || (t->c && !number_ok(t->c, x, 0, false)))
            return false;
        *(double *)out = x;
        return true;
    }
    case MCP_T_INT:
        if (v->kind != MCP_JINT || (t->c && !number_ok(t->c, (double)v->i, v->i, true)))
            return false;
        *(int64_t *)out = v->i;
        return true;
    case MCP_T_STR:
        if (v->kind != MCP_JSTRING || v->has_nul || (t->c && !string_ok(c, t->c, v)))
            return false;
        memcpy(out, &v->s, sizeof v->s);
        return true;
    case MCP_T_BOOL:
        if (v->kind != MCP_JBOOL)
            return false;
        *(bool *)out = v->b;
        return true;
    case MCP_T_LITERAL:
    case MCP_T_ENUM:
        for (uint32_t i = 0; i < t->nvalues; i++)
            if (literal_matches(&t->values[i], v)) {
                *(int *)out = (int)i;
                return true;
            }
        return false;
    default:
        return false;
    }
}

static inline bool dec_quiet(dec_ctx *c, const mcp_type *t, const mcp_json *v, void *out)
{
    if (t->kind != MCP_T_OPTIONAL)
        return dec_leaf(c, t, v, out);
    if (v->kind == MCP_JNULL)
        return true;
    if (!dec_leaf(c, t->elem, v, (char *)out + t->elem_offset))
        return false;
    *(bool *)out = true;
    return true;
}

static const char *seq_noun(const mcp_type *t)
{
    return t->kind == MCP_T_SET ? "Set" : t->variadic || t->kind == MCP_T_TUPLE ? "Tuple" : "List";
}

static bool dec_list(dec_ctx *c, const mcp_type *t, const mcp_json *v, seq *out)
{
    if (v->kind != MCP_JARRAY) {
        mcp_report_add_simple(c->rep,
                              t->kind == MCP_T_SET ? MCP_VERR_SET_TYPE
                              : t->variadic        ? MCP_VERR_TUPLE_TYPE
                                                   : MCP_VERR_LIST_TYPE,
                              v);
        return false;
    }
    const mcp_constraints *k = t->c;
    char fmt[100];
    if (k && (k->flags & MCP_C_MAX_ITEMS) && (int64_t)v->n > k->max_items) {
        snprintf(fmt, sizeof fmt, "%s should have at most %%lld %%s%%s after validation, not %%lld", seq_noun(t));
        add_count_error(c, MCP_VERR_TOO_LONG, v, fmt, (long long)k->max_items, "item", (long long)v->n, true);
        return false;
    }
    size_t esz = t->elem->size;
    char *items = v->n ? mcp_arena_alloc(c->a, v->n * esz) : NULL;
    if (v->n && !items) {
        c->rep->oom = true;
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < v->n; i++) {
        if (dec_quiet(c, t->elem, v->items[i], items + i * esz))
            continue;
        mcp_report_push_index(c->rep, i);
        ok &= dec(c, t->elem, v->items[i], items + i * esz);
        mcp_report_pop(c->rep);
    }
    if (!ok)
        return false;
    if (k && (k->flags & MCP_C_MIN_ITEMS) && (int64_t)v->n < k->min_items) {
        snprintf(fmt, sizeof fmt, "%s should have at least %%lld %%s%%s after validation, not %%lld", seq_noun(t));
        add_count_error(c, MCP_VERR_TOO_SHORT, v, fmt, (long long)k->min_items, "item", (long long)v->n, true);
        return false;
    }
    if (t->kind == MCP_T_SET && has_duplicates(c, v)) {
        mcp_report_add_simple(c->rep, MCP_VERR_UNIQUE_ITEMS, v);
        return false;
    }
    out->len = v->n;
    out->items = items;
    return true;
}

static bool dec_tuple(dec_ctx *c, const mcp_type *t, const mcp_json *v, char *out)
{
    if (v->kind != MCP_JARRAY) {
        mcp_report_add_simple(c->rep, MCP_VERR_TUPLE_TYPE, v);
        return false;
    }
    if (v->n > t->nitems) {
        add_count_error(c, MCP_VERR_TOO_LONG, v, "Tuple should have at most %lld %s%s after validation, not %lld",
                        (long long)t->nitems, "item", (long long)v->n, true);
        return false;
    }
    bool ok = true;
    for (uint32_t i = 0; i < t->nitems; i++) {
        mcp_report_push_index(c->rep, i);
        if (i < v->n)
            ok &= dec(c, t->items[i], v->items[i], out + t->offsets[i]);
        else {
            mcp_report_add_simple(c->rep, MCP_VERR_MISSING, v);
            ok = false;
        }
        mcp_report_pop(c->rep);
    }
    return ok;
}

/* A dict[int, T] key: -?(0|[1-9][0-9]*) within int64. */
static bool parse_int_key(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && s[i] == '-') {
        neg = true;
        i++;
    }
    if (i == n || (s[i] == '0' && i + 1 < n))
        return false;
    uint64_t x = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
    }
    if (neg ? x > (uint64_t)INT64_MAX + 1 : x > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? (int64_t)(0 - x) : (int64_t)x;
    return true;
}

/* A dict's key that its type refuses, reported at KEY.[key] with the key as
 * the input (the current location is KEY). False. */
static bool bad_key(dec_ctx *c, const mcp_json *dict, const mcp_json_member *m, mcp_verr_kind kind)
{
    mcp_json *kv = mcp_arena_alloc(c->a, sizeof *kv);
    if (kv)
        *kv = (mcp_json){.kind = MCP_JSTRING,
                         .s = m->key,
                         .len = m->key_len,
                         .has_nul = m->key_len && memchr(m->key, 0, m->key_len) != NULL};
    mcp_report_push_key(c->rep, "[key]", 5);
    mcp_report_add_simple(c->rep, kind, kv ? kv : dict);
    mcp_report_pop(c->rep);
    return false;
}

static bool dec_dict(dec_ctx *c, const mcp_type *t, const mcp_json *v, seq *out)
{
    if (v->kind != MCP_JOBJECT) {
        mcp_report_add_simple(c->rep, MCP_VERR_DICT_TYPE, v);
        return false;
    }
    char *items = v->n ? mcp_arena_alloc(c->a, v->n * t->item_size) : NULL;
    if (v->n && !items) {
        c->rep->oom = true;
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < v->n; i++) {
        const mcp_json_member *m = &v->members[i];
        char *item = items + i * t->item_size;
        mcp_report_push_key(c->rep, m->key, m->key_len);
        if (t->int_keys) {
            int64_t k;
            if (parse_int_key(m->key, m->key_len, &k))
                memcpy(item, &k, sizeof k);
            else
                ok = bad_key(c, v, m, MCP_VERR_INT_PARSING);
        } else if (m->key_len && memchr(m->key, 0, m->key_len)) {
            /* The C key is NUL-terminated: a key holding U+0000 is refused
             * as a str value holding one is (string_type). */
            ok = bad_key(c, v, m, MCP_VERR_STRING_TYPE);
        } else {
            memcpy(item, &m->key, sizeof m->key);
        }
        if (!dec_quiet(c, t->elem, m->value, item + t->elem_offset))
            ok &= dec(c, t->elem, m->value, item + t->elem_offset);
        mcp_report_pop(c->rep);
    }
    if (!ok)
        return false;
    out->len = v->n;
    out->items = items;
    return true;
}

static bool dec_union(dec_ctx *c, const mcp_type *t, const mcp_json *v, char *out)
{
    size_t before = c->rep->len;
    for (uint32_t i = 0; i < t->nitems; i++) {
        const mcp_type *arm = t->items[i];
        if (arm->kind == MCP_T_NONE && v->kind != MCP_JNULL)
            continue; /* pydantic: a nullable union reports only its other arms */
        memset(out + t->offsets[0], 0, t->size - t->offsets[0]);
        mcp_report_push_key(c->rep, arm->tag, strlen(arm->tag));
        bool ok = dec(c, arm, v, out + t->offsets[0]);
        mcp_report_pop(c->rep);
        if (ok) {
            c->rep->len = before; /* the arms tried before are not errors */
            uint32_t which = i + 1;
            memcpy(out, &which, sizeof which);
            return true;
        }
    }
    return false;
}

static bool dec_choice(dec_ctx *c, const mcp_type *t, const mcp_json *v, int *out)
{
    for (uint32_t i = 0; i < t->nvalues; i++)
        if (literal_matches(&t->values[i], v)) {
            *out = (int)i;
            return true;
        }
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_puts(&b, "Input should be ");
    expected_list(&b, t->values, t->nvalues);
    mcp_report_add(c->rep, t->kind == MCP_T_ENUM ? MCP_VERR_ENUM : MCP_VERR_LITERAL, v,
                   b.data ? b.data : "Input should be one of the values");
    mcp_buf_free(&b);
    return false;
}

static bool dec_default(dec_ctx *c, const mcp_field *f, char *out)
{
    mcp_json *dv = mcp_json_parse(c->a, f->default_json, strlen(f->default_json), NULL, NULL, NULL);
    if (!dv) {
        c->rep->oom = true;
        return false;
    }
    return dec(c, f->type, dv, out);
}

/* Whether n bytes at x and y are equal: memcmp without the call, for keys of
 * a few bytes (two overlapping words from 8 bytes up, to 16). */
static inline bool same_bytes(const char *x, const char *y, size_t n)
{
    uint64_t a, b, a2, b2;
    if (n >= 8) {
        if (n > 16)
            return memcmp(x, y, n) == 0;
        memcpy(&a, x, 8), memcpy(&b, y, 8);
        memcpy(&a2, x + n - 8, 8), memcpy(&b2, y + n - 8, 8);
        return ((a ^ b) | (a2 ^ b2)) == 0;
    }
    if (n >= 4) {
        uint32_t p, q, p2, q2;
        memcpy(&p, x, 4), memcpy(&q, y, 4);
        memcpy(&p2, x + n - 4, 4), memcpy(&q2, y + n - 4, 4);
        return ((p ^ q) | (p2 ^ q2)) == 0;
    }
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return false;
    return true;
}

static inline bool key_is(const mcp_json_member *m, const mcp_field *f)
{
    return m->key_len == f->name_len && same_bytes(m->key, f->name, f->name_len);
}

/* The value of field f in object v, or NULL. An object's keys are unique (the
 * parser refuses a repeat, the setters replace), so any match is the match;
 * text usually lists the fields in their order, so the member after the
 * last one found (*next) is tried first. */
static const mcp_json *member_value(const mcp_json *v, const mcp_field *f, size_t *next)
{
    if (*next < v->n && key_is(&v->members[*next], f))
        return v->members[(*next)++].value;
    for (size_t j = 0; j < v->n; j++)
        if (key_is(&v->members[j], f)) {
            *next = j + 1;
            return v->members[j].value;
        }
    return NULL;
}

static bool dec_object(dec_ctx *c, const mcp_type *t, const mcp_json *v, char *out)
{
    if (v->kind != MCP_JOBJECT) {
        if (t->is_record) {
            mcp_report_add_simple(c->rep, MCP_VERR_DICT_TYPE, v);
        } else {
            mcp_buf b;
            mcp_buf_init(&b);
            mcp_buf_printf(&b, "Input should be a valid dictionary or instance of %s", t->tag);
            mcp_report_add(c->rep, MCP_VERR_MODEL_TYPE, v, b.data ? b.data : "Input should be a valid dictionary");
            mcp_buf_free(&b);
        }
        return false;
    }
    bool ok = true;
    size_t next = 0, found = 0;
    for (uint32_t i = 0; i < t->nfields; i++) {
        const mcp_field *f = &t->fields[i];
        const mcp_json *fv = member_value(v, f, &next);
        if (fv) {
            found++;
            if (f->has_offset >= 0)
                out[f->has_offset] = 1;
            if (dec_quiet(c, f->type, fv, out + f->offset))
                continue;
        }
        mcp_report_push_key(c->rep, f->name, f->name_len);
        if (fv) {
            ok &= dec(c, f->type, fv, out + f->offset);
        } else if (f->required) {
            mcp_report_add_simple(c->rep, MCP_VERR_MISSING, v);
            ok = false;
        } else if (f->default_json) {
            ok &= dec_default(c, f, out + f->offset);
        }
        mcp_report_pop(c->rep);
    }
    if (t->extra_forbid && found < v->n) /* keys are unique: found == n leaves no other */
        for (size_t j = 0; j < v->n; j++) {
            const mcp_json_member *m = &v->members[j];
            bool known = false;
            for (uint32_t i = 0; i < t->nfields && !known; i++)
                known = m->key_len == t->fields[i].name_len && memcmp(m->key, t->fields[i].name, m->key_len) == 0;
            if (!known) {
                mcp_report_push_key(c->rep, m->key, m->key_len);
                mcp_report_add_simple(c->rep, MCP_VERR_EXTRA_FORBIDDEN, m->value);
                mcp_report_pop(c->rep);
                ok = false;
            }
        }
    return ok;
}

/* The first NaN or infinite float inside v (json-c values can carry them;
 * parsed text cannot), or NULL. Depth-first with an explicit stack. */
static const mcp_json *non_finite(const mcp_json *v)
{
    if (v->kind == MCP_JFLOAT)
        return isfinite(v->d) ? NULL : v;
    if (v->kind != MCP_JARRAY && v->kind != MCP_JOBJECT)
        return NULL;
    const mcp_json *stack_small[64];
    const mcp_json **stack = stack_small;
    size_t cap = 64, sp = 0;
    const mcp_json *found = NULL;
    stack[sp++] = v;
    while (sp && !found) {
        const mcp_json *x = stack[--sp];
        for (size_t i = 0; i < x->n && !found; i++) {
            const mcp_json *k = x->kind == MCP_JARRAY ? x->items[i] : x->members[i].value;
            if (k->kind == MCP_JFLOAT && !isfinite(k->d)) {
                found = k;
            } else if (k->kind == MCP_JARRAY || k->kind == MCP_JOBJECT) {
                if (sp == cap) {
                    const mcp_json **bigger = malloc(2 * cap * sizeof *bigger);
                    if (!bigger)
                        break; /* out of memory: judge what was seen */
                    memcpy(bigger, stack, sp * sizeof *stack);
                    if (stack != stack_small)
                        free(stack);
                    stack = bigger;
                    cap *= 2;
                }
                stack[sp++] = k;
            }
        }
    }
    if (stack != stack_small)
        free(stack);
    return found;
}

static bool dec(dec_ctx *c, const mcp_type *t, const mcp_json *v, void *out)
{
    switch (t->kind) {
    case MCP_T_INT:
        return dec_int(c, t, v, out);
    case MCP_T_FLOAT:
        return dec_float(c, t, v, out);
    case MCP_T_STR:
        if (v->kind != MCP_JSTRING || v->has_nul) {
            mcp_report_add_simple(c->rep, MCP_VERR_STRING_TYPE, v);
            return false;
        }
        memcpy(out, &v->s, sizeof v->s);
        return check_length(c, t->c, v);
    case MCP_T_BYTES:
        if (v->kind != MCP_JSTRING) {
            mcp_report_add_simple(c->rep, MCP_VERR_STRING_TYPE, v);
            return false;
        }
        ((mcp_bytes *)out)->len = v->len;
        ((mcp_bytes *)out)->data = v->s;
        return check_length(c, t->c, v);
    case MCP_T_BOOL:
        if (v->kind != MCP_JBOOL) {
            mcp_report_add_simple(c->rep, MCP_VERR_BOOL_TYPE, v);
            return false;
        }
        *(bool *)out = v->b;
        return true;
    case MCP_T_NONE:
        if (v->kind != MCP_JNULL) {
            mcp_report_add_simple(c->rep, MCP_VERR_NONE_REQUIRED, v);
            return false;
        }
        return true;
    case MCP_T_ANY: {
        const mcp_json *bad = non_finite(v);
        if (bad) {
            mcp_report_add_simple(c->rep, MCP_VERR_FINITE_NUMBER, bad);
            return false;
        }
        memcpy(out, &v, sizeof v);
        return true;
    }
    case MCP_T_LIST:
    case MCP_T_SET:
        return dec_list(c, t, v, out);
    case MCP_T_TUPLE:
        return dec_tuple(c, t, v, out);
    case MCP_T_DICT:
        return dec_dict(c, t, v, out);
    case MCP_T_OPTIONAL:
        if (v->kind == MCP_JNULL)
            return true;
        *(bool *)out = true;
        return dec(c, t->elem, v, (char *)out + t->elem_offset);
    case MCP_T_PTR: {
        if (v->kind == MCP_JNULL && t->nullable)
            return true;
        void *target = mcp_arena_alloc(c->a, t->elem->size);
        if (!target) {
            c->rep->oom = true;
            return false;
        }
        memcpy(out, &target, sizeof target);
        return dec(c, t->elem, v, target);
    }
    case MCP_T_UNION:
        return dec_union(c, t, v, out);
    case MCP_T_LITERAL:
    case MCP_T_ENUM:
        return dec_choice(c, t, v, out);
    case MCP_T_OBJECT:
        return dec_object(c, t, v, out);
    case MCP_T_FORMAT: {
        const char *canon;
        bool oom = false;
        mcp_format_error e;
        if (!mcp_format_check(t->format, v, c->a, &canon, &oom, &e)) {
            if (oom)
                c->rep->oom = true;
            else
                mcp_report_add(c->rep, e.kind, v, e.message);
            return false;
        }
        memcpy(out, &canon, sizeof canon);
        return true;
    }
    }
    return false;
}

bool mcp_decode(const mcp_type *t, const mcp_json *v, void *out, mcp_arena *a, mcp_report *rep)
{
    dec_ctx c = {a, rep, NULL};
    size_t before = rep->len;
    bool ok = dec(&c, t, v, out);
    return ok && rep->len == before && !rep->oom;
}

/* ------------------------------------------------------------------ C -> JSON */


static mcp_json *literal_json(mcp_arena *a, const mcp_literal *l)
{
    switch (l->kind) {
    case MCP_JSTRING:
        return mcp_json_new_string(a, l->s, l->len);
    case MCP_JINT:
        return mcp_json_new_int(a, l->i);
    case MCP_JBOOL:
        return mcp_json_new_bool(a, l->i != 0);
    default:
        return mcp_json_new_null(a);
    }
}

/* The encoder's state: where it is in the value (rep's location stack) and
 * what went wrong first. A fault of the handler's C value is reported like a
 * validation error at its location (`author.name`, `items.3`), in pydantic's
 * words where pydantic has some (a NULL string is None where a string should
 * be), else as a value_error that says what the C value holds. */
typedef struct enc_ctx {
    mcp_arena *a;
    mcp_report *rep;
    bool failed;
    bool oom;
} enc_ctx;

static mcp_json *to_json(enc_ctx *c, const mcp_type *t, const char *p);

static mcp_json *oom(enc_ctx *c)
{
    c->failed = c->oom = true;
    return NULL;
}

/* The first fault only: the encoder stops there. */
static mcp_json *fault(enc_ctx *c, mcp_verr_kind kind, const mcp_json *input, const char *message)
{
    if (!c->failed) {
        c->failed = true;
        if (message)
            mcp_report_add(c->rep, kind, input, message);
        else
            mcp_report_add_simple(c->rep, kind, input);
    }
    return NULL;
}

static mcp_json *value_error(enc_ctx *c, const char *why)
{
    const char *m = mcp_arena_printf(c->a, "Value error, %s", why);
    return m ? fault(c, MCP_VERR_VALUE_ERROR, NULL, m) : oom(c);
}

/* A string that is not UTF-8, as the input of a report: its bytes as they
 * are (the report writes what it cannot print as escapes). */
static mcp_json *not_unicode(enc_ctx *c, const char *s, size_t n)
{
    mcp_json *v = mcp_arena_alloc(c->a, sizeof *v);
    if (!v)
        return oom(c);
    *v = (mcp_json){.kind = MCP_JSTRING, .s = s, .len = n};
    return fault(c, MCP_VERR_STRING_UNICODE, v, NULL);
}

static int member_key_cmp(const void *x, const void *y)
{
    const mcp_json_member *a = *(const mcp_json_member *const *)x, *b = *(const mcp_json_member *const *)y;
    size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int r = memcmp(a->key, b->key, n);
    return r ? r : (a->key_len > b->key_len) - (a->key_len < b->key_len);
}

/* Whether two members of a dict built from a handler's C value have the same
 * key (JSON objects here have unique keys: json.h). Sorted pointers: n log n. */
static bool has_repeated_key(mcp_arena *a, const mcp_json *obj)
{
    const mcp_json_member **v = mcp_arena_alloc(a, obj->n * sizeof *v);
    if (!v)
        return false;
    for (size_t i = 0; i < obj->n; i++)
        v[i] = &obj->members[i];
    qsort(v, obj->n, sizeof *v, member_key_cmp);
    for (size_t i = 1; i < obj->n; i++)
        if (member_key_cmp(&v[i - 1], &v[i]) == 0)
            return true;
    return false;
}

static mcp_json *seq_to_json(enc_ctx *c, const mcp_type *t, const seq *s, size_t esz, size_t elem_off)
{
    mcp_json *arr = t->kind == MCP_T_DICT ? mcp_json_new_object(c->a) : mcp_json_new_array(c->a);
    if (!arr)
        return oom(c);
    if (s->len && !s->items)
        return value_error(c, mcp_arena_printf(c->a, "items is NULL but len is %zu", s->len));
    if (s->len) {
        if (t->kind == MCP_T_DICT)
            arr->members = mcp_arena_alloc(c->a, s->len * sizeof *arr->members);
        else
            arr->items = mcp_arena_alloc(c->a, s->len * sizeof *arr->items);
        if (!arr->members && !arr->items)
            return oom(c);
    }
    for (size_t i = 0; i < s->len; i++) {
        const char *item = (const char *)s->items + i * esz;
        if (t->kind != MCP_T_DICT) {
            mcp_report_push_index(c->rep, i);
            mcp_json *v = to_json(c, t->elem, item + elem_off);
            mcp_report_pop(c->rep);
            if (!v)
                return NULL;
            arr->items[arr->n++] = v;
            continue;
        }
        /* The key first, as pydantic validates it: a bad key is reported
         * at KEY.[key] (None for a NULL one), a bad value at KEY. */
        const char *key;
        size_t key_len;
        if (t->int_keys) {
            int64_t k;
            memcpy(&k, item, sizeof k);
            key = mcp_arena_printf(c->a, "%lld", (long long)k);
            if (!key)
                return oom(c);
            key_len = strlen(key);
        } else {
            memcpy(&key, item, sizeof key);
            bool bad = !key || !mcp_utf8_valid(key, strlen(key));
            if (bad) {
                mcp_report_push_key(c->rep, key ? key : "None", key ? strlen(key) : 4);
                mcp_report_push_key(c->rep, "[key]", 5);
                if (key)
                    not_unicode(c, key, strlen(key));
                else
                    fault(c, MCP_VERR_STRING_TYPE, NULL, NULL);
                mcp_report_pop(c->rep);
                mcp_report_pop(c->rep);
                return NULL;
            }
            key_len = strlen(key);
        }
        mcp_report_push_key(c->rep, key, key_len);
        mcp_json *v = to_json(c, t->elem, item + elem_off);
        mcp_report_pop(c->rep);
        if (!v)
            return NULL;
        arr->members[arr->n++] = (mcp_json_member){key, key_len, v};
    }
    if (t->kind == MCP_T_DICT && arr->n > 1 && has_repeated_key(c->a, arr))
        return value_error(c, "the dict holds the same key twice");
    return arr;
}

static mcp_json *to_json(enc_ctx *c, const mcp_type *t, const char *p)
{
    mcp_arena *a = c->a;
    switch (t->kind) {
    case MCP_T_INT: {
        int64_t x;
        memcpy(&x, p, sizeof x);
        return mcp_json_new_int(a, x);
    }
    case MCP_T_FLOAT: {
        double d;
        memcpy(&d, p, sizeof d);
        return mcp_json_new_float(a, d);
    }
    case MCP_T_STR: {
        const char *s;
        memcpy(&s, p, sizeof s);
        if (!s)
            return fault(c, MCP_VERR_STRING_TYPE, NULL, NULL);
        size_t n = strlen(s);
        if (!mcp_utf8_valid(s, n))
            return not_unicode(c, s, n);
        mcp_json *v = mcp_arena_alloc(a, sizeof *v);
        if (v)
            *v = (mcp_json){.kind = MCP_JSTRING, .s = s, .len = n};
        return v;
    }
    case MCP_T_BYTES: {
        const mcp_bytes *b = (const mcp_bytes *)p;
        if (!b->data && b->len)
            return value_error(c, mcp_arena_printf(a, "bytes have data NULL but len %zu", b->len));
        if (!mcp_utf8_valid(b->data ? b->data : "", b->len))
            return not_unicode(c, b->data, b->len);
        return mcp_json_new_string(a, b->data ? b->data : "", b->len);
    }
    case MCP_T_BOOL:
        return mcp_json_new_bool(a, *(const bool *)p);
    case MCP_T_NONE:
        return mcp_json_new_null(a);
    case MCP_T_ANY: {
        const mcp_json *v;
        memcpy(&v, p, sizeof v);
        return v ? (mcp_json *)v : mcp_json_new_null(a);
    }
    case MCP_T_LIST:
    case MCP_T_SET:
        return seq_to_json(c, t, (const seq *)p, t->elem->size, 0);
    case MCP_T_DICT:
        return seq_to_json(c, t, (const seq *)p, t->item_size, t->elem_offset);
    case MCP_T_TUPLE: {
        mcp_json *arr = mcp_json_new_array(a);
        for (uint32_t i = 0; arr && i < t->nitems; i++) {
            mcp_report_push_index(c->rep, i);
            mcp_json *v = to_json(c, t->items[i], p + t->offsets[i]);
            mcp_report_pop(c->rep);
            if (!v || !mcp_json_append(a, arr, v))
                return v ? oom(c) : NULL;
        }
        return arr ? arr : oom(c);
    }
    case MCP_T_OPTIONAL:
        if (!*(const bool *)p)
            return mcp_json_new_null(a);
        return to_json(c, t->elem, p + t->elem_offset);
    case MCP_T_PTR: {
        const char *target;
        memcpy(&target, p, sizeof target);
        if (!target)
            return t->nullable ? mcp_json_new_null(a) : value_error(c, "the pointer to the value is NULL");
        return to_json(c, t->elem, target);
    }
    case MCP_T_UNION: {
        uint32_t which;
        memcpy(&which, p, sizeof which);
        if (which == 0 || which > t->nitems)
            return value_error(c, mcp_arena_printf(a, "the union has no arm set (which is %u; its arms are 1 to %u)",
                                                   which, t->nitems));
        return to_json(c, t->items[which - 1], p + t->offsets[0]);
    }
    case MCP_T_LITERAL:
    case MCP_T_ENUM: {
        int i = *(const int *)p;
        if (i < 0 || (uint32_t)i >= t->nvalues) {
            mcp_buf b;
            mcp_buf_init(&b);
            mcp_buf_puts(&b, "Input should be ");
            expected_list(&b, t->values, t->nvalues);
            const char *m = b.data ? mcp_arena_strdup(a, b.data) : NULL;
            mcp_buf_free(&b);
            return m ? fault(c, t->kind == MCP_T_ENUM ? MCP_VERR_ENUM : MCP_VERR_LITERAL, mcp_json_new_int(a, i), m)
                     : oom(c);
        }
        return literal_json(a, &t->values[i]);
    }
    case MCP_T_FORMAT: {
        const char *s;
        memcpy(&s, p, sizeof s);
        if (!s)
            return fault(c, MCP_VERR_STRING_TYPE, NULL, NULL);
        mcp_json *text = mcp_arena_alloc(a, sizeof *text);
        if (!text)
            return oom(c);
        *text = (mcp_json){.kind = MCP_JSTRING, .s = s, .len = strlen(s)};
        if (!mcp_utf8_valid(s, text->len))
            return not_unicode(c, s, text->len);
        const char *canon;
        bool no_memory = false;
        mcp_format_error e;
        /* a text the handler wrote is judged as a client's would be */
        if (!mcp_format_check(t->format, text, a, &canon, &no_memory, &e))
            return no_memory ? oom(c) : fault(c, e.kind, text, mcp_arena_strdup(a, e.message));
        return mcp_json_new_string(a, canon, strlen(canon));
    }
    case MCP_T_OBJECT: {
        mcp_json *o = mcp_json_new_object(a);
        if (!o)
            return oom(c);
        o->members = mcp_arena_alloc(a, (t->nfields ? t->nfields : 1) * sizeof *o->members);
        if (!o->members)
            return oom(c);
        for (uint32_t i = 0; i < t->nfields; i++) {
            const mcp_field *f = &t->fields[i];
            if (f->has_offset >= 0 && !p[f->has_offset])
                continue;
            mcp_report_push_key(c->rep, f->name, f->name_len);
            mcp_json *v = to_json(c, f->type, p + f->offset);
            mcp_report_pop(c->rep);
            if (!v)
                return NULL;
            o->members[o->n++] = (mcp_json_member){f->name, f->name_len, v};
        }
        return o;
    }
    }
    return value_error(c, "the type table names an unknown kind");
}

mcp_json *mcp_to_json_report(const mcp_type *t, const void *value, mcp_arena *a, mcp_report *rep)
{
    enc_ctx c = {a, rep, false, false};
    mcp_json *v = to_json(&c, t, value);
    if (!v && (c.oom || !c.failed))
        rep->oom = true;
    return v;
}

mcp_json *mcp_to_json(const mcp_type *t, const void *value, mcp_arena *a, const char **why)
{
    /* the location stack is written before it is read: not cleared */
    mcp_report rep;
    rep.arena = a;
    rep.items = NULL;
    rep.len = rep.cap = 0;
    rep.oom = false;
    rep.depth = 0;
    mcp_json *v = mcp_to_json_report(t, value, a, &rep);
    if (!v && why) {
        /* "LOCATION: MESSAGE", or MESSAGE at the root */
        const mcp_verror *e = rep.len ? &rep.items[0] : NULL;
        if (!e || rep.oom)
            *why = "out of memory";
        else if (e->loc_depth == 0)
            *why = e->message;
        else
            *why = mcp_arena_printf(a, "%.*s: %s", (int)e->loc_len, e->loc, e->message);
        if (!*why)
            *why = "out of memory";
    }
    return v;
}

/* ------------------------------------------------------------------ C -> JSON text */

/* The compact text of a C value whose structuredContent the general path
 * would write unchanged: what mcp_json_write(mcp_to_json(v), -1) writes when
 * decoding that JSON as t succeeds and encoding the decoded value again
 * writes the same text. The general path checks this by doing it (to_json,
 * mcp_decode, to_json, compare); this writer knows it of the kinds it takes,
 * and refuses (false) everything else:
 *   - the faults to_json reports (a NULL string or items, an enum out of
 *     range, a NULL non-nullable pointer, invalid UTF-8, a repeated dict key)
 *     and non-finite floats, which validation refuses;
 *   - unions (which arm decodes first may not be the one set), sets (their
 *     items' uniqueness is checked), formats (their text canonicalised),
 *     constraints other than a number's bounds (checked here with the
 *     decoder's own number_ok), a record's absent optional key that has a
 *     default or is required (decoding supplies or refuses it), dicts of
 *     more than 32 items (their keys' uniqueness is checked pairwise here),
 *     and values nested deeper than 64 levels.
 * Every other kind decodes as written: an int or float (finite, within its
 * bounds) to itself, a string or bytes (valid UTF-8, no NUL: a C string
 * holds none) to itself, a Literal or enum to a constant that writes the
 * same text, null to an unset Optional or nullable pointer, a list, tuple,
 * dict or object item by item; an Any value is shared by both encodings
 * (decoding refuses only its non-finite floats, which mcp_json_write refuses
 * too). The caller still checks the text it derives for UTF-8, as the
 * general path does. */
static bool write_plain(mcp_buf *b, const mcp_type *t, const char *p, int depth);

/* mcp_buf_putc, in place while there is room. */
static inline void put1(mcp_buf *b, char c)
{
    if (b->len + 1 < b->cap && !b->oom) {
        b->data[b->len++] = c;
        b->data[b->len] = 0;
    } else {
        mcp_buf_putc(b, c);
    }
}


/* A C string as a JSON string; false, with nothing written, for NULL or
 * bytes that are not UTF-8 (the general path reports them). */
static bool put_plain_string(mcp_buf *b, const char *s)
{
    if (!s)
        return false;
    size_t n = strlen(s);
    if (!mcp_utf8_valid(s, n))
        return false;
    mcp_json_string(b, s, n);
    return true;
}

static bool write_seq(mcp_buf *b, const mcp_type *t, const char *p, int depth)
{
    const seq *s = (const seq *)p;
    if (s->len && !s->items)
        return false;
    bool dict = t->kind == MCP_T_DICT;
    size_t esz = dict ? t->item_size : t->elem->size, off = dict ? t->elem_offset : 0;
    if (dict && s->len > 32)
        return false;
    put1(b, dict ? '{' : '[');
    for (size_t i = 0; i < s->len; i++) {
        const char *item = (const char *)s->items + i * esz;
        if (i)
            put1(b, ',');
        if (dict) {
            if (t->int_keys) {
                int64_t k;
                memcpy(&k, item, sizeof k);
                for (size_t j = 0; j < i; j++) {
                    int64_t k2;
                    memcpy(&k2, (const char *)s->items + j * esz, sizeof k2);
                    if (k2 == k)
                        return false;
                }
                put1(b, '"');
                mcp_json_int(b, k);
                put1(b, '"');
            } else {
                const char *key;
                memcpy(&key, item, sizeof key);
                for (size_t j = 0; key && j < i; j++) {
                    const char *k2;
                    memcpy(&k2, (const char *)s->items + j * esz, sizeof k2);
                    if (strcmp(k2, key) == 0)
                        return false;
                }
                if (!put_plain_string(b, key))
                    return false;
            }
            put1(b, ':');
        }
        if (!write_plain(b, t->elem, item + off, depth + 1))
            return false;
    }
    put1(b, dict ? '}' : ']');
    return true;
}

static bool write_plain(mcp_buf *b, const mcp_type *t, const char *p, int depth)
{
    if (depth > 64 || b->oom)
        return false;
    if (t->c && t->kind != MCP_T_INT && t->kind != MCP_T_FLOAT)
        return false;
    switch (t->kind) {
    case MCP_T_INT: {
        int64_t x;
        memcpy(&x, p, sizeof x);
        if (t->c && (t->c->pattern || !number_ok(t->c, (double)x, x, true)))
            return false;
        mcp_json_int(b, x);
        return true;
    }
    case MCP_T_FLOAT: {
        double d;
        memcpy(&d, p, sizeof d);
        if (!isfinite(d) || (t->c && (t->c->pattern || !number_ok(t->c, d, 0, false))))
            return false;
        return mcp_json_double(b, d);
    }
    case MCP_T_STR: {
        const char *s;
        memcpy(&s, p, sizeof s);
        return put_plain_string(b, s);
    }
    case MCP_T_BYTES: {
        const mcp_bytes *x = (const mcp_bytes *)p;
        if (!x->data && x->len)
            return false;
        if (!mcp_utf8_valid(x->data ? x->data : "", x->len))
            return false;
        mcp_json_string(b, x->data ? x->data : "", x->len);
        return true;
    }
    case MCP_T_BOOL:
        if (*(const bool *)p)
            mcp_buf_put(b, "true", 4);
        else
            mcp_buf_put(b, "false", 5);
        return true;
    case MCP_T_NONE:
        mcp_buf_put(b, "null", 4);
        return true;
    case MCP_T_ANY: {
        const mcp_json *v;
        memcpy(&v, p, sizeof v);
        if (!v) {
            mcp_buf_put(b, "null", 4);
            return true;
        }
        return mcp_json_write(b, v, -1);
    }
    case MCP_T_LIST:
    case MCP_T_TUPLE:
        if (t->kind == MCP_T_TUPLE) {
            put1(b, '[');
            for (uint32_t i = 0; i < t->nitems; i++) {
                if (i)
                    put1(b, ',');
                if (!write_plain(b, t->items[i], p + t->offsets[i], depth + 1))
                    return false;
            }
            put1(b, ']');
            return true;
        }
        return write_seq(b, t, p, depth);
    case MCP_T_DICT:
        return write_seq(b, t, p, depth);
    case MCP_T_OPTIONAL:
        if (!*(const bool *)p) {
            mcp_buf_put(b, "null", 4);
            return true;
        }
        return write_plain(b, t->elem, p + t->elem_offset, depth);
    case MCP_T_PTR: {
        const char *target;
        memcpy(&target, p, sizeof target);
        if (!target) {
            if (!t->nullable)
                return false;
            mcp_buf_put(b, "null", 4);
            return true;
        }
        return write_plain(b, t->elem, target, depth + 1);
    }
    case MCP_T_LITERAL:
    case MCP_T_ENUM: {
        int i = *(const int *)p;
        if (i < 0 || (uint32_t)i >= t->nvalues)
            return false;
        const mcp_literal *l = &t->values[i];
        switch (l->kind) {
        case MCP_JSTRING:
            mcp_json_string(b, l->s, l->len);
            break;
        case MCP_JINT:
            mcp_json_int(b, l->i);
            break;
        case MCP_JBOOL:
            if (l->i)
                mcp_buf_put(b, "true", 4);
            else
                mcp_buf_put(b, "false", 5);
            break;
        default:
            mcp_buf_put(b, "null", 4);
            break;
        }
        return true;
    }
    case MCP_T_OBJECT: {
        put1(b, '{');
        bool first = true;
        for (uint32_t i = 0; i < t->nfields; i++) {
            const mcp_field *f = &t->fields[i];
            if (f->has_offset >= 0 && !p[f->has_offset]) {
                if (f->required || f->default_json)
                    return false;
                continue;
            }
            if (!first)
                put1(b, ',');
            first = false;
            mcp_json_string(b, f->name, f->name_len);
            put1(b, ':');
            if (!write_plain(b, f->type, p + f->offset, depth + 1))
                return false;
        }
        put1(b, '}');
        return true;
    }
    case MCP_T_SET:
    case MCP_T_UNION:
    case MCP_T_FORMAT:
        return false;
    }
    return false;
}

bool mcp_write_plain(const mcp_type *t, const void *value, mcp_buf *out)
{
    size_t mark = out->len;
    if (write_plain(out, t, value, 0) && !out->oom)
        return true;
    if (out->len > mark) {
        out->len = mark;
        out->data[mark] = 0;
    }
    return false;
}
