/* diff.c: the changes between two versions of a contract (diff.h).
 *
 * One walk over both IRs side by side. Every change found is judged by two
 * facts about the values at its place: whether NEW lost some that OLD allowed,
 * and whether it gained some that OLD did not. Where those values flow (into
 * the server: input; out of it: output) turns them into "breaks clients" and
 * "breaks servers", and gives the change its kind. Where a direct comparison
 * cannot say (two different types), a subset test on the types decides.
 */
#include "diff.h"

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpidl/buf.h"

typedef enum side { IN, OUT } side;

/* What a change is about, for its kind. */
typedef enum aspect { A_TYPE, A_VALUES, A_NULL } aspect;

typedef enum kind {
    K_REMOVED,
    K_ADDED,
    K_REQUIRED,
    K_INPUT_REMOVED,
    K_INPUT_NARROWED,
    K_INPUT_VALUES,
    K_INPUT_WIDENED,
    K_OUTPUT_REMOVED,
    K_OUTPUT_OPTIONAL,
    K_OUTPUT_WIDENED,
    K_OUTPUT_VALUES,
    K_OUTPUT_NARROWED,
    K_DEFAULT,
    K_DESCRIPTION,
    K_RENAMED,
    NKINDS
} kind;

static const char *const KIND_NAMES[NKINDS] = {
    "removed",         "added",          "required",        "input-removed",   "input-narrowed",
    "input-values",    "input-widened",  "output-removed",  "output-optional", "output-widened",
    "output-values",   "output-narrowed", "default-changed", "description",     "type-renamed",
};

bool diff_kind_known(const char *k)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (strcmp(KIND_NAMES[i], k) == 0)
            return true;
    return false;
}

const char *diff_kind_list(void)
{
    return "removed, added, required, input-removed, input-narrowed, input-values, input-widened, output-removed, "
           "output-optional, output-widened, output-values, output-narrowed, default-changed, description, "
           "type-renamed";
}

/* One diagnostic to print: a head (error, warning or note in NEW) or a note
 * that belongs to the head before it (in OLD or NEW). */
typedef struct entry {
    idl_severity sev;
    bool in_old;
    idl_loc loc;
    idl_loc key;     /* the place of its head: the sort key */
    size_t seq;
    const char *msg;
} entry;

/* Whether the values of one named type are values of another: being decided, or decided. */
typedef enum sub_state { SUB_DECIDING, SUB_TRUE, SUB_FALSE } sub_state;
typedef struct sub_pair {
    const ir_def *o, *n;   /* of either version: pointers, not indices */
    sub_state state;
} sub_pair;

/* A pair of named types already compared on one side. */
typedef struct seen_pair {
    size_t o, n;
    side s;
} seen_pair;

typedef struct differ {
    mcp_arena *a;
    const diff_source *o, *n;
    const diff_options *opt;
    entry *items;
    size_t len, cap;
    seen_pair *seen;
    size_t nseen, capseen;
    sub_pair *subs;
    size_t nsubs, capsubs;
    size_t errors;
    bool oom;
    idl_loc field;     /* the key of the field (or the returns mapping) being compared, in NEW */
} differ;

/* ---------------------------------------------------------------- reporting */

static bool allowed(const differ *d, kind k)
{
    for (size_t i = 0; i < d->opt->nallow; i++)
        if (strcmp(d->opt->allow[i], KIND_NAMES[k]) == 0)
            return true;
    return false;
}

static void push(differ *d, entry e)
{
    if (d->oom)
        return;
    if (d->len == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 32;
        entry *items = mcp_arena_realloc(d->a, d->items, d->cap * sizeof *items, cap * sizeof *items);
        if (!items) {
            d->oom = true;
            return;
        }
        d->items = items;
        d->cap = cap;
    }
    e.seq = d->len;
    d->items[d->len++] = e;
}

static char *vformat(differ *d, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *s = n < 0 ? NULL : mcp_arena_alloc(d->a, (size_t)n + 1);
    if (!s) {
        d->oom = true;
        return NULL;
    }
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

/* A change at `loc` of NEW: "SUBJECT: WHAT; EFFECT [KIND]". `client` and
 * `server`: whether it breaks clients, servers. */
static void report(differ *d, idl_loc loc, kind k, bool client, bool server, const char *subject, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
static void report(differ *d, idl_loc loc, kind k, bool client, bool server, const char *subject, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = vformat(d, fmt, ap);
    va_end(ap);
    if (!what)
        return;
    bool ok = (client || server) && allowed(d, k);
    const char *effect = client && server ? "breaks clients and servers"
                         : client         ? "breaks clients"
                         : server         ? "breaks servers"
                                          : "compatible";
    idl_severity sev = ok ? IDL_NOTE : client ? IDL_ERROR : server ? (d->opt->werror ? IDL_ERROR : IDL_WARNING) : IDL_NOTE;
    char *msg = mcp_arena_printf(d->a, "%s: %s; %s%s [%s]", subject, what, effect, ok ? " (allowed)" : "",
                                 KIND_NAMES[k]);
    if (!msg) {
        d->oom = true;
        return;
    }
    if (sev == IDL_ERROR)
        d->errors++;
    push(d, (entry){.sev = sev, .loc = loc, .key = loc, .msg = msg});
}

/* A note after the last change, at `loc` of OLD (in_old) or NEW. */
static void note(differ *d, bool in_old, idl_loc loc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void note(differ *d, bool in_old, idl_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(d, fmt, ap);
    va_end(ap);
    if (!msg || d->len == 0)
        return;
    push(d, (entry){.sev = IDL_NOTE, .in_old = in_old, .loc = loc, .key = d->items[d->len - 1].key, .msg = msg});
}

/* A change of the values at a place on side `s`: NEW lost some OLD allowed,
 * gained some it did not, or neither (compatible). */
static void judge(differ *d, idl_loc loc, side s, aspect asp, bool lost, bool gained, const char *subject,
                  const char *fmt, ...) __attribute__((format(printf, 8, 9)));
static void judge(differ *d, idl_loc loc, side s, aspect asp, bool lost, bool gained, const char *subject,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = vformat(d, fmt, ap);
    va_end(ap);
    if (!what)
        return;
    bool client = s == IN ? lost : gained, server = s == IN ? gained : lost;
    kind k;
    if (s == IN)
        k = lost ? (asp == A_VALUES ? K_INPUT_VALUES : K_INPUT_NARROWED) : gained ? K_INPUT_WIDENED : K_DESCRIPTION;
    else
        k = gained ? (asp == A_VALUES ? K_OUTPUT_VALUES : asp == A_NULL ? K_OUTPUT_OPTIONAL : K_OUTPUT_WIDENED)
            : lost ? K_OUTPUT_NARROWED
                   : K_DESCRIPTION;
    report(d, loc, k, client, server, subject, "%s", what);
}

/* ---------------------------------------------------------------- text */

static void put_value(mcp_buf *b, const mcp_json *v)
{
    if (v && v->kind == MCP_JSTRING) {
        mcp_buf_putc(b, '\'');
        mcp_buf_put(b, v->s, v->len);
        mcp_buf_putc(b, '\'');
    } else if (v) {
        if (!mcp_json_write(b, v, -1))
            mcp_buf_puts(b, "?");
    }
}

static const char *value_text(differ *d, const mcp_json *v)
{
    mcp_buf b;
    mcp_buf_init(&b);
    put_value(&b, v);
    const char *s = b.oom ? NULL : mcp_arena_strndup(d->a, b.data ? b.data : "", b.len);
    mcp_buf_free(&b);
    if (!s)
        d->oom = true;
    return s ? s : "";
}

static void put_type(mcp_buf *b, const ir_type *t, int depth)
{
    if (depth > 20) {
        mcp_buf_puts(b, "...");
        return;
    }
    switch (t->kind) {
    case IR_INT: mcp_buf_puts(b, "int"); return;
    case IR_FLOAT: mcp_buf_puts(b, "float"); return;
    case IR_STR: mcp_buf_puts(b, "str"); return;
    case IR_BOOL: mcp_buf_puts(b, "bool"); return;
    case IR_BYTES: mcp_buf_puts(b, "bytes"); return;
    case IR_NONE: mcp_buf_puts(b, "None"); return;
    case IR_ANY: mcp_buf_puts(b, "any"); return;
    case IR_CONTENT: mcp_buf_puts(b, "content"); return;
    case IR_NAMED: mcp_buf_puts(b, t->def->name); return;
    case IR_LIST:
    case IR_SET:
        mcp_buf_puts(b, t->kind == IR_SET ? "set[" : t->tuple_variadic ? "tuple[" : "list[");
        put_type(b, t->elem, depth + 1);
        mcp_buf_puts(b, t->tuple_variadic ? ", ...]" : "]");
        return;
    case IR_DICT:
        mcp_buf_puts(b, t->int_keys ? "dict[int, " : "dict[str, ");
        put_type(b, t->elem, depth + 1);
        mcp_buf_putc(b, ']');
        return;
    case IR_TUPLE:
        mcp_buf_puts(b, "tuple[");
        for (size_t i = 0; i < t->nitems; i++) {
            if (i)
                mcp_buf_puts(b, ", ");
            put_type(b, t->items[i], depth + 1);
        }
        mcp_buf_putc(b, ']');
        return;
    case IR_UNION:
        if (t->nitems == 2 && t->items[1]->kind == IR_NONE) {
            mcp_buf_puts(b, "Optional[");
            put_type(b, t->items[0], depth + 1);
            mcp_buf_putc(b, ']');
            return;
        }
        for (size_t i = 0; i < t->nitems; i++) {
            if (i)
                mcp_buf_puts(b, " | ");
            put_type(b, t->items[i], depth + 1);
        }
        return;
    case IR_LITERAL:
        mcp_buf_puts(b, "Literal[");
        for (size_t i = 0; i < t->nvalues; i++) {
            if (i)
                mcp_buf_puts(b, ", ");
            put_value(b, t->values[i]);
        }
        mcp_buf_putc(b, ']');
        return;
    }
}

static const char *type_text(differ *d, const ir_type *t)
{
    mcp_buf b;
    mcp_buf_init(&b);
    put_type(&b, t, 0);
    const char *s = b.oom ? NULL : mcp_arena_strndup(d->a, b.data ? b.data : "", b.len);
    mcp_buf_free(&b);
    if (!s)
        d->oom = true;
    return s ? s : "";
}

static bool str_eq(const char *x, const char *y)
{
    return (!x && !y) || (x && y && strcmp(x, y) == 0);
}

/* ---------------------------------------------------------------- bounds */

/* A lower or upper bound of a number: minimum/exclusiveMinimum, or
 * maximum/exclusiveMaximum, the tighter of the two when both are given. */
typedef struct bound {
    bool set, excl;
    double v;
} bound;

static bound lower_of(const ir_constraints *c)
{
    bound b = {0};
    if (c->has_minimum)
        b = (bound){true, false, ir_number_value(c->minimum)};
    if (c->has_exclusive_minimum) {
        double v = ir_number_value(c->exclusive_minimum);
        if (!b.set || v >= b.v)
            b = (bound){true, true, v};
    }
    return b;
}

static bound upper_of(const ir_constraints *c)
{
    bound b = {0};
    if (c->has_maximum)
        b = (bound){true, false, ir_number_value(c->maximum)};
    if (c->has_exclusive_maximum) {
        double v = ir_number_value(c->exclusive_maximum);
        if (!b.set || v <= b.v)
            b = (bound){true, true, v};
    }
    return b;
}

/* > 0 when bound y admits fewer values than x, < 0 more, 0 the same. */
static int tighter(bound x, bound y, bool upper)
{
    if (x.set != y.set)
        return y.set ? 1 : -1;
    if (!x.set)
        return 0;
    if (x.v != y.v)
        return (upper ? y.v < x.v : y.v > x.v) ? 1 : -1;
    if (x.excl != y.excl)
        return y.excl ? 1 : -1;
    return 0;
}

static const char *bound_text(differ *d, bound b, bool upper)
{
    if (!b.set)
        return "none";
    const char *s = mcp_arena_printf(d->a, "%s %.17g", upper ? (b.excl ? "<" : "<=") : (b.excl ? ">" : ">="), b.v);
    if (!s)
        d->oom = true;
    return s ? s : "";
}

/* Whether every multiple of x is a multiple of y (y == 0: no constraint). */
static bool multiple_within(double x, double y)
{
    if (y == 0)
        return true;
    if (x == 0)
        return false;
    double q = x / y;
    return fabs(q - nearbyint(q)) < 1e-9;
}

/* Whether the constraints of n admit every value those of o admit. */
static bool constraints_within(const ir_constraints *o, const ir_constraints *n)
{
    if (tighter(lower_of(o), lower_of(n), false) > 0 || tighter(upper_of(o), upper_of(n), true) > 0)
        return false;
    if (n->has_multiple_of &&
        !(o->has_multiple_of && multiple_within(ir_number_value(o->multiple_of), ir_number_value(n->multiple_of))))
        return false;
    if ((n->has_min_length ? n->min_length : 0) > (o->has_min_length ? o->min_length : 0))
        return false;
    if (n->has_max_length && !(o->has_max_length && o->max_length <= n->max_length))
        return false;
    if ((n->has_min_items ? n->min_items : 0) > (o->has_min_items ? o->min_items : 0))
        return false;
    if (n->has_max_items && !(o->has_max_items && o->max_items <= n->max_items))
        return false;
    if (n->pattern && !str_eq(o->pattern, n->pattern))
        return false;
    return true;
}

/* ---------------------------------------------------------------- subset */

static bool sub(differ *d, const ir_type *o, const ir_type *n, int depth);

static bool is_enum(const ir_type *t) { return t->kind == IR_NAMED && t->def->kind == IR_DEF_ENUM; }

/* The constant values of a Literal or an enum. */
static const mcp_json *const *values_of(const ir_type *t, size_t *n)
{
    if (t->kind == IR_LITERAL) {
        *n = t->nvalues;
        return (const mcp_json *const *)t->values;
    }
    *n = t->def->nvalues;
    return (const mcp_json *const *)t->def->values;
}

static bool has_value(const mcp_json *const *vs, size_t n, const mcp_json *v)
{
    for (size_t i = 0; i < n; i++)
        if (mcp_json_equal(vs[i], v) && (vs[i]->kind == MCP_JBOOL) == (v->kind == MCP_JBOOL))
            return true;
    return false;
}

/* Whether the constant v is a value of t (its constraints aside, unless numeric). */
static bool value_in(const mcp_json *v, const ir_type *t)
{
    switch (t->kind) {
    case IR_ANY: return true;
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            if (value_in(v, t->items[i]))
                return true;
        return false;
    case IR_LITERAL: return has_value((const mcp_json *const *)t->values, t->nvalues, v);
    case IR_NAMED:
        return t->def->kind == IR_DEF_ENUM && has_value((const mcp_json *const *)t->def->values, t->def->nvalues, v);
    case IR_INT:
    case IR_FLOAT: {
        if (v->kind != MCP_JINT && !(t->kind == IR_FLOAT && v->kind == MCP_JFLOAT))
            return false;
        double x = v->kind == MCP_JINT ? (double)v->i : v->d;
        bound lo = lower_of(&t->c), hi = upper_of(&t->c);
        return !(lo.set && (x < lo.v || (lo.excl && x == lo.v))) && !(hi.set && (x > hi.v || (hi.excl && x == hi.v)));
    }
    case IR_STR:
    case IR_BYTES: {
        if (v->kind != MCP_JSTRING)
            return false;
        size_t chars = 0;
        for (size_t i = 0; i < v->len; i++)
            chars += ((unsigned char)v->s[i] & 0xC0) != 0x80;
        if ((t->c.has_min_length && (int64_t)chars < t->c.min_length) ||
            (t->c.has_max_length && (int64_t)chars > t->c.max_length))
            return false;
        return !t->c.pattern || idl_pattern_matches(t->c.pattern, strlen(t->c.pattern), v->s, v->len) == 1;
    }
    case IR_BOOL: return v->kind == MCP_JBOOL;
    case IR_NONE: return v->kind == MCP_JNULL;
    default: return false;
    }
}

/* Whether every value a model or record of od has is one of nd. */
static bool def_fields_sub(differ *d, const ir_def *od, const ir_def *nd, int depth)
{
    if (od == nd)
        return true;
    if (nd->extra_forbid && !od->extra_forbid)
        return false;
    for (size_t i = 0; i < nd->nfields; i++) {
        const ir_field *nf = &nd->fields[i], *of = NULL;
        for (size_t k = 0; k < od->nfields && !of; k++)
            if (strcmp(od->fields[k].name, nf->name) == 0)
                of = &od->fields[k];
        bool n_must = nd->kind == IR_DEF_MODEL || nf->required;
        bool o_has = of && (od->kind == IR_DEF_MODEL || of->required);
        if (n_must && !o_has)
            return false;
        if (of && !sub(d, of->type, nf->type, depth + 1))
            return false;
    }
    if (nd->extra_forbid)
        for (size_t k = 0; k < od->nfields; k++) {
            bool found = false;
            for (size_t i = 0; i < nd->nfields && !found; i++)
                found = strcmp(od->fields[k].name, nd->fields[i].name) == 0;
            if (!found)
                return false;
        }
    return true;
}

/* def_fields_sub, once per pair: a pair met again while it is being decided
 * is taken to hold (the types are recursive: a coinductive answer). */
static bool def_sub(differ *d, const ir_def *od, const ir_def *nd, int depth)
{
    if (od == nd)
        return true;
    for (size_t i = 0; i < d->nsubs; i++)
        if (d->subs[i].o == od && d->subs[i].n == nd)
            return d->subs[i].state != SUB_FALSE;
    if (d->nsubs == d->capsubs) {
        size_t cap = d->capsubs ? d->capsubs * 2 : 16;
        sub_pair *v = mcp_arena_realloc(d->a, d->subs, d->capsubs * sizeof *v, cap * sizeof *v);
        if (!v) {
            d->oom = true;
            return true;
        }
        d->subs = v;
        d->capsubs = cap;
    }
    size_t at = d->nsubs++;
    d->subs[at] = (sub_pair){od, nd, SUB_DECIDING};
    bool r = def_fields_sub(d, od, nd, depth);
    d->subs[at].state = r ? SUB_TRUE : SUB_FALSE;
    return r;
}

/* Whether every value of o is a value of n (for named types, see def_sub;
 * the depth is a guard against deep nesting). */
static bool sub(differ *d, const ir_type *o, const ir_type *n, int depth)
{
    if (depth > 32)
        return true;
    if (n->kind == IR_ANY)
        return true;
    if (o->kind == IR_UNION) {
        for (size_t i = 0; i < o->nitems; i++)
            if (!sub(d, o->items[i], n, depth + 1))
                return false;
        return true;
    }
    if (o->kind == IR_LITERAL || is_enum(o)) {
        size_t nv;
        const mcp_json *const *vs = values_of(o, &nv);
        for (size_t i = 0; i < nv; i++)
            if (!value_in(vs[i], n))
                return false;
        return true;
    }
    if (n->kind == IR_UNION) {
        for (size_t i = 0; i < n->nitems; i++)
            if (sub(d, o, n->items[i], depth + 1))
                return true;
        return false;
    }
    switch (o->kind) {
    case IR_INT: return (n->kind == IR_INT || n->kind == IR_FLOAT) && constraints_within(&o->c, &n->c);
    case IR_FLOAT: return n->kind == IR_FLOAT && constraints_within(&o->c, &n->c);
    case IR_STR:
    case IR_BYTES: return (n->kind == IR_STR || n->kind == IR_BYTES) && constraints_within(&o->c, &n->c);
    case IR_BOOL:
    case IR_NONE:
    case IR_CONTENT: return n->kind == o->kind;
    case IR_ANY: return false;
    case IR_LIST:
    case IR_SET:
        if (n->kind == IR_SET && o->kind != IR_SET)
            return false;
        return (n->kind == IR_LIST || n->kind == IR_SET) && constraints_within(&o->c, &n->c) &&
               sub(d, o->elem, n->elem, depth + 1);
    case IR_TUPLE:
        if (n->kind == IR_TUPLE) {
            if (n->nitems != o->nitems)
                return false;
            for (size_t i = 0; i < o->nitems; i++)
                if (!sub(d, o->items[i], n->items[i], depth + 1))
                    return false;
            return true;
        }
        if (n->kind != IR_LIST)
            return false;
        if ((n->c.has_min_items && (int64_t)o->nitems < n->c.min_items) ||
            (n->c.has_max_items && (int64_t)o->nitems > n->c.max_items))
            return false;
        for (size_t i = 0; i < o->nitems; i++)
            if (!sub(d, o->items[i], n->elem, depth + 1))
                return false;
        return true;
    case IR_DICT:
        if (n->kind == IR_DICT)
            return (o->int_keys || !n->int_keys) && sub(d, o->elem, n->elem, depth + 1);
        return false;
    case IR_NAMED:
        return n->kind == IR_NAMED && n->def->kind != IR_DEF_ENUM && def_sub(d, o->def, n->def, depth + 1);
    default: return false;
    }
}

/* ---------------------------------------------------------------- comparing */

static void cmp_type(differ *d, const char *subject, side s, const ir_type *o, const ir_type *n, idl_loc at);

static idl_loc loc_or(idl_loc a, idl_loc b) { return a.line ? a : b; }

/* The mapping in NEW that is the value of the key at `at` (by_key), or that
 * starts at `at`, found by a walk of the tree; NULL when none. */
static const idl_node *find_map(const idl_node *m, idl_loc at, bool by_key, int depth)
{
    if (!m || depth > 64)
        return NULL;
    if (m->kind == IDL_NODE_MAP) {
        for (size_t i = 0; i < m->n; i++) {
            const idl_node *k = m->pairs[i].key, *v = m->pairs[i].value;
            idl_loc l = by_key ? k->loc : v->loc;
            if (v->kind == IDL_NODE_MAP && l.line == at.line && l.col == at.col)
                return v;
            const idl_node *r = find_map(v, at, by_key, depth + 1);
            if (r)
                return r;
        }
    } else if (m->kind == IDL_NODE_SEQ) {
        for (size_t i = 0; i < m->n; i++) {
            const idl_node *r = find_map(m->items[i], at, by_key, depth + 1);
            if (r)
                return r;
        }
    }
    return NULL;
}

/* Where constraint `key` is written in NEW, or `at`. */
static idl_loc key_loc(const differ *d, idl_loc at, const char *key)
{
    if (!d->field.line || !key)
        return at;
    /* A field's key; else the mapping of a returns (which starts where its
     * first key does, so the keys are tried first). */
    const idl_node *m = find_map(d->n->root, d->field, true, 0);
    if (!m)
        m = find_map(d->n->root, d->field, false, 0);
    if (m)
        for (size_t i = 0; i < m->n; i++)
            if (strcmp(m->pairs[i].key->str, key) == 0)
                return m->pairs[i].key->loc;
    return at;
}

/* Length and item-count limits: `lo` the minimum (raised: fewer values). */
static void cmp_count(differ *d, idl_loc at, side s, const char *subject, const char *name, bool lo, bool ohas,
                      int64_t ov, bool nhas, int64_t nv)
{
    if (ohas == nhas && (!ohas || ov == nv))
        return;
    int64_t odef = lo ? 0 : INT64_MAX, o2 = ohas ? ov : odef, n2 = nhas ? nv : odef;
    at = key_loc(d, at, nhas ? name : NULL);
    bool fewer = lo ? n2 > o2 : n2 < o2, more = lo ? n2 < o2 : n2 > o2;
    if (ohas && nhas)
        judge(d, at, s, A_TYPE, fewer, more, subject, "%s %s from %lld to %lld", name, nv > ov ? "raised" : "lowered",
              (long long)ov, (long long)nv);
    else if (nhas)
        judge(d, at, s, A_TYPE, fewer, more, subject, "%s %lld added", name, (long long)nv);
    else
        judge(d, at, s, A_TYPE, fewer, more, subject, "%s %lld removed", name, (long long)ov);
}

static void cmp_bound(differ *d, idl_loc at, side s, const char *subject, bound ob, bound nb, bool upper)
{
    int t = tighter(ob, nb, upper);
    if (t == 0)
        return;
    const char *word = upper ? "upper bound" : "lower bound";
    at = key_loc(d, at, !nb.set ? NULL : upper ? (nb.excl ? "exclusiveMaximum" : "maximum")
                                               : (nb.excl ? "exclusiveMinimum" : "minimum"));
    if (ob.set && nb.set && ob.excl == nb.excl) {
        const char *key = upper ? (ob.excl ? "exclusiveMaximum" : "maximum") : (ob.excl ? "exclusiveMinimum" : "minimum");
        judge(d, at, s, A_TYPE, t > 0, t < 0, subject, "%s %s from %.17g to %.17g", key, nb.v > ob.v ? "raised" : "lowered",
              ob.v, nb.v);
    } else {
        judge(d, at, s, A_TYPE, t > 0, t < 0, subject, "%s changed from %s to %s", word, bound_text(d, ob, upper),
              bound_text(d, nb, upper));
    }
}

static void cmp_constraints(differ *d, idl_loc at, side s, const char *subject, const ir_constraints *o,
                            const ir_constraints *n)
{
    cmp_bound(d, at, s, subject, lower_of(o), lower_of(n), false);
    cmp_bound(d, at, s, subject, upper_of(o), upper_of(n), true);
    if (o->has_multiple_of != n->has_multiple_of ||
        (o->has_multiple_of && ir_number_value(o->multiple_of) != ir_number_value(n->multiple_of))) {
        double ov = o->has_multiple_of ? ir_number_value(o->multiple_of) : 0;
        double nv = n->has_multiple_of ? ir_number_value(n->multiple_of) : 0;
        bool fewer = n->has_multiple_of && !(o->has_multiple_of && multiple_within(ov, nv));
        idl_loc mat = key_loc(d, at, n->has_multiple_of ? "multipleOf" : NULL);
        bool more = o->has_multiple_of && !(n->has_multiple_of && multiple_within(nv, ov));
        if (o->has_multiple_of && n->has_multiple_of)
            judge(d, mat, s, A_TYPE, fewer, more, subject, "multipleOf changed from %.17g to %.17g", ov, nv);
        else if (n->has_multiple_of)
            judge(d, mat, s, A_TYPE, fewer, more, subject, "multipleOf %.17g added", nv);
        else
            judge(d, mat, s, A_TYPE, fewer, more, subject, "multipleOf %.17g removed", ov);
    }
    cmp_count(d, at, s, subject, "minLength", true, o->has_min_length, o->min_length, n->has_min_length, n->min_length);
    cmp_count(d, at, s, subject, "maxLength", false, o->has_max_length, o->max_length, n->has_max_length, n->max_length);
    cmp_count(d, at, s, subject, "minItems", true, o->has_min_items, o->min_items, n->has_min_items, n->min_items);
    cmp_count(d, at, s, subject, "maxItems", false, o->has_max_items, o->max_items, n->has_max_items, n->max_items);
    if (!str_eq(o->pattern, n->pattern)) {
        idl_loc pat = key_loc(d, at, n->pattern ? "pattern" : NULL);
        if (o->pattern && n->pattern)
            judge(d, pat, s, A_TYPE, true, true, subject, "pattern changed from '%s' to '%s'", o->pattern, n->pattern);
        else if (n->pattern)
            judge(d, pat, s, A_TYPE, true, false, subject, "pattern '%s' added", n->pattern);
        else
            judge(d, pat, s, A_TYPE, false, true, subject, "pattern '%s' removed", o->pattern);
    }
    if (!str_eq(o->format, n->format))
        report(d, at, K_DESCRIPTION, false, false, subject, "format changed from %s to %s (an annotation, not checked)",
               o->format ? o->format : "none", n->format ? n->format : "none");
}

/* Literal or enum values. */
static void cmp_values(differ *d, idl_loc at, side s, const char *subject, const ir_type *o, const ir_type *n)
{
    size_t on, nn;
    const mcp_json *const *ov = values_of(o, &on);
    const mcp_json *const *nv = values_of(n, &nn);
    mcp_buf gone, added;
    mcp_buf_init(&gone);
    mcp_buf_init(&added);
    for (size_t i = 0; i < on; i++)
        if (!has_value(nv, nn, ov[i])) {
            if (gone.len)
                mcp_buf_puts(&gone, ", ");
            put_value(&gone, ov[i]);
        }
    for (size_t i = 0; i < nn; i++)
        if (!has_value(ov, on, nv[i])) {
            if (added.len)
                mcp_buf_puts(&added, ", ");
            put_value(&added, nv[i]);
        }
    if (gone.oom || added.oom)
        d->oom = true;
    else {
        if (gone.len)
            judge(d, at, s, A_VALUES, true, false, subject, "value%s %s removed", strchr(gone.data, ',') ? "s" : "",
                  gone.data);
        if (added.len)
            judge(d, at, s, A_VALUES, false, true, subject, "value%s %s added", strchr(added.data, ',') ? "s" : "",
                  added.data);
    }
    mcp_buf_free(&gone);
    mcp_buf_free(&added);
}

static void cmp_fields(differ *d, const char *owner, side s, const ir_def *odef, const ir_def *ndef,
                       const ir_field *ofs, size_t on, const ir_field *nfs, size_t nn, bool oforbid, bool nforbid,
                       idl_loc owner_loc, const char *param_word);

/* Mark the pair (o, n) on side s as compared; false when it already was.
 * *other: whether it was compared on the other side. */
static bool first_visit(differ *d, const ir_def *o, const ir_def *n, side s, bool *other)
{
    *other = false;
    for (size_t i = 0; i < d->nseen; i++)
        if (d->seen[i].o == o->index && d->seen[i].n == n->index) {
            if (d->seen[i].s == s)
                return false;
            *other = true;
        }
    if (d->nseen == d->capseen) {
        size_t cap = d->capseen ? d->capseen * 2 : 16;
        seen_pair *v = mcp_arena_realloc(d->a, d->seen, d->capseen * sizeof *v, cap * sizeof *v);
        if (!v) {
            d->oom = true;
            return false;
        }
        d->seen = v;
        d->capseen = cap;
    }
    d->seen[d->nseen++] = (seen_pair){o->index, n->index, s};
    return true;
}

static const ir_field *find_field(const ir_field *fs, size_t n, const char *name);

static void cmp_def(differ *d, side s, const ir_def *o, const ir_def *n)
{
    bool other;
    if (!first_visit(d, o, n, s, &other))
        return;
    const char *subject = mcp_arena_printf(d->a, "type '%s'", n->name);
    if (!subject) {
        d->oom = true;
        return;
    }
    if (o->kind == IR_DEF_ENUM) {
        ir_type ot = {.kind = IR_NAMED, .def = (ir_def *)o}, nt = {.kind = IR_NAMED, .def = (ir_def *)n};
        cmp_values(d, n->loc, s, subject, &ot, &nt);
    } else {
        cmp_fields(d, n->name, s, o, n, o->fields, o->nfields, n->fields, n->nfields, o->extra_forbid, n->extra_forbid,
                   n->loc, "field");
    }
    if (other)
        return; /* the notes below were given on the other side */
    if (!str_eq(o->description, n->description))
        report(d, n->loc, K_DESCRIPTION, false, false, subject, "description changed");
    ir_type ot = {.kind = IR_NAMED, .def = (ir_def *)o}, nt = {.kind = IR_NAMED, .def = (ir_def *)n};
    bool equal = sub(d, &ot, &nt, 0) && sub(d, &nt, &ot, 0) && o->extra_forbid == n->extra_forbid &&
                 o->nfields == n->nfields;
    for (size_t i = 0; equal && i < o->nfields; i++) {
        const ir_field *nf = find_field(n->fields, n->nfields, o->fields[i].name);
        equal = nf && nf->required == o->fields[i].required;
    }
    if (strcmp(o->name, n->name) != 0)
        report(d, n->loc, K_RENAMED, false, false, subject, "renamed from '%s'%s (only names in the schemas change)", o->name,
               equal ? ", structurally equal" : "");
}

/* Whether two union arms are the same member, changed or not. */
static bool same_member(const ir_type *a, const ir_type *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == IR_NAMED)
        return strcmp(a->def->name, b->def->name) == 0;
    return true;
}

static void cmp_union(differ *d, const char *subject, side s, const ir_type *o, const ir_type *n, idl_loc at)
{
    const ir_type *one_o[1] = {o}, *one_n[1] = {n};
    size_t on = o->kind == IR_UNION ? o->nitems : 1, nn = n->kind == IR_UNION ? n->nitems : 1;
    const ir_type *const *oa = o->kind == IR_UNION ? (const ir_type *const *)o->items : one_o;
    const ir_type *const *na = n->kind == IR_UNION ? (const ir_type *const *)n->items : one_n;
    bool matched[64] = {0};
    if (nn > 64 || on > 64) {
        judge(d, at, s, A_TYPE, !sub(d, o, n, 0), !sub(d, n, o, 0), subject, "type changed from %s to %s", type_text(d, o),
              type_text(d, n));
        return;
    }
    /* Members matched by kind and name; then a lone model or record left on
     * each side is the same member renamed. */
    size_t pair[64];
    for (size_t i = 0; i < on; i++) {
        pair[i] = nn;
        for (size_t j = 0; j < nn && pair[i] == nn; j++)
            if (!matched[j] && same_member(oa[i], na[j])) {
                pair[i] = j;
                matched[j] = true;
            }
    }
    size_t lone_o = on, lone_n = nn, count_o = 0, count_n = 0;
    for (size_t i = 0; i < on; i++)
        if (pair[i] == nn && oa[i]->kind == IR_NAMED && !is_enum(oa[i]))
            lone_o = i, count_o++;
    for (size_t j = 0; j < nn; j++)
        if (!matched[j] && na[j]->kind == IR_NAMED && !is_enum(na[j]))
            lone_n = j, count_n++;
    if (count_o == 1 && count_n == 1) {
        pair[lone_o] = lone_n;
        matched[lone_n] = true;
    }
    for (size_t i = 0; i < on; i++) {
        size_t k = pair[i];
        if (k < nn) {
            cmp_type(d, subject, s, oa[i], na[k], at);
        } else if (oa[i]->kind == IR_NONE) {
            if (!sub(d, oa[i], n, 0))
                judge(d, at, s, A_NULL, true, false, subject, "%s null (%s is now %s)",
                      s == IN ? "no longer accepts" : "may no longer be", type_text(d, o), type_text(d, n));
        } else if (!sub(d, oa[i], n, 0)) {
            judge(d, at, s, A_TYPE, true, false, subject, "union member %s removed (%s is now %s)",
                  type_text(d, oa[i]), type_text(d, o), type_text(d, n));
        }
    }
    for (size_t j = 0; j < nn; j++) {
        if (matched[j] || sub(d, na[j], o, 0))
            continue;
        if (na[j]->kind == IR_NONE)
            judge(d, at, s, A_NULL, false, true, subject, "%s null (%s is now %s)", s == IN ? "now accepts" : "may now be",
                  type_text(d, o), type_text(d, n));
        else
            judge(d, at, s, A_TYPE, false, true, subject, "union member %s added (%s is now %s)", type_text(d, na[j]),
                  type_text(d, o), type_text(d, n));
    }
}

static void cmp_type(differ *d, const char *subject, side s, const ir_type *o, const ir_type *n, idl_loc at)
{
    if (d->oom)
        return;
    at = loc_or(n->loc, at);
    bool o_values = o->kind == IR_LITERAL || is_enum(o), n_values = n->kind == IR_LITERAL || is_enum(n);
    if (o->kind == IR_NAMED && n->kind == IR_NAMED && is_enum(o) == is_enum(n)) {
        cmp_def(d, s, o->def, n->def);
        return;
    }
    if (o_values && n_values) {
        cmp_values(d, at, s, subject, o, n);
        return;
    }
    if (o->kind == IR_UNION || n->kind == IR_UNION) {
        cmp_union(d, subject, s, o, n, at);
        return;
    }
    if (o->kind == n->kind) {
        switch (o->kind) {
        case IR_INT:
        case IR_FLOAT:
        case IR_STR:
        case IR_BYTES: cmp_constraints(d, at, s, subject, &o->c, &n->c); return;
        case IR_LIST:
        case IR_SET:
            cmp_constraints(d, at, s, subject, &o->c, &n->c);
            cmp_type(d, subject, s, o->elem, n->elem, at);
            return;
        case IR_DICT:
            if (o->int_keys != n->int_keys)
                judge(d, at, s, A_TYPE, !o->int_keys, o->int_keys, subject, "keys changed from %s to %s",
                      o->int_keys ? "int" : "str", n->int_keys ? "int" : "str");
            cmp_type(d, subject, s, o->elem, n->elem, at);
            return;
        case IR_TUPLE:
            if (o->nitems == n->nitems) {
                for (size_t i = 0; i < o->nitems; i++)
                    cmp_type(d, subject, s, o->items[i], n->items[i], at);
                return;
            }
            break;
        case IR_NAMED: break; /* an enum and a model: below */
        default: return;      /* bool, None, any, content */
        }
    }
    if ((o->kind == IR_LIST || o->kind == IR_SET) && (n->kind == IR_LIST || n->kind == IR_SET)) {
        judge(d, at, s, A_TYPE, n->kind == IR_SET, o->kind == IR_SET, subject, "type changed from %s to %s (%s)",
              type_text(d, o), type_text(d, n), n->kind == IR_SET ? "repeated items refused" : "repeated items allowed");
        cmp_constraints(d, at, s, subject, &o->c, &n->c);
        cmp_type(d, subject, s, o->elem, n->elem, at);
        return;
    }
    if ((o->kind == IR_STR || o->kind == IR_BYTES) && (n->kind == IR_STR || n->kind == IR_BYTES)) {
        report(d, at, K_DESCRIPTION, false, false, subject, "type changed from %s to %s: the same JSON strings",
               type_text(d, o), type_text(d, n));
        cmp_constraints(d, at, s, subject, &o->c, &n->c);
        return;
    }
    bool lost = !sub(d, o, n, 0), gained = !sub(d, n, o, 0);
    judge(d, at, s, A_TYPE, lost, gained, subject, "type changed from %s to %s", type_text(d, o), type_text(d, n));
}

static const ir_field *find_field(const ir_field *fs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(fs[i].name, name) == 0)
            return &fs[i];
    return NULL;
}

/* Whether a field is always there: in input, one a client must send; in
 * output, one a client always receives (a model fills its defaults). */
static bool present(const ir_def *def, const ir_field *f, side s)
{
    return s == OUT && def && def->kind == IR_DEF_MODEL ? true : f->required;
}

/* The fields of two models or records (odef, ndef), or the parameters of a
 * tool (NULL, NULL; owner is the tool's name). */
static void cmp_fields(differ *d, const char *owner, side s, const ir_def *odef, const ir_def *ndef,
                       const ir_field *ofs, size_t on, const ir_field *nfs, size_t nn, bool oforbid, bool nforbid,
                       idl_loc owner_loc, const char *word)
{
    const char *of_what = odef ? "type" : "tool";
    for (size_t i = 0; i < on && !d->oom; i++) {
        const ir_field *of = &ofs[i], *nf = find_field(nfs, nn, of->name);
        const char *subject = mcp_arena_printf(d->a, "%s '%s' of %s '%s'", word, of->name, of_what, owner);
        if (!subject) {
            d->oom = true;
            return;
        }
        if (!nf) {
            if (s == IN)
                report(d, owner_loc, K_INPUT_REMOVED, true, false, subject, "removed; a value clients send %s",
                       nforbid ? "is refused (extra: forbid)" : "is ignored");
            else
                report(d, owner_loc, K_OUTPUT_REMOVED, true, false, subject, "removed");
            note(d, true, of->loc, "'%s' was declared here", of->name);
            continue;
        }
        bool op = present(odef, of, s), np = present(ndef, nf, s);
        if (op != np) {
            if (s == IN && np)
                report(d, nf->loc, K_REQUIRED, true, false, subject, "now required%s",
                       of->default_value ? " (its default removed)" : "");
            else if (s == IN)
                judge(d, nf->loc, s, A_TYPE, false, true, subject, "now optional");
            else if (!np)
                report(d, nf->loc, K_OUTPUT_OPTIONAL, true, false, subject, "now optional: it may be absent");
            else
                judge(d, nf->loc, s, A_TYPE, true, false, subject, "now always present");
        }
        if (of->default_value && nf->default_value && !mcp_json_equal(of->default_value, nf->default_value)) {
            if (s == IN)
                report(d, nf->loc, K_DEFAULT, true, false, subject,
                       "default changed from %s to %s; clients that leave it out get the new one",
                       value_text(d, of->default_value), value_text(d, nf->default_value));
            else
                report(d, nf->loc, K_DEFAULT, false, false, subject,
                       "default changed from %s to %s; filled in when the handler leaves it out",
                       value_text(d, of->default_value), value_text(d, nf->default_value));
        }
        if (!str_eq(of->description, nf->description))
            report(d, nf->loc, K_DESCRIPTION, false, false, subject, "description changed");
        if (!str_eq(of->title, nf->title))
            report(d, nf->loc, K_DESCRIPTION, false, false, subject, "title changed from '%s' to '%s'", of->title,
                   nf->title);
        idl_loc outer = d->field;
        d->field = nf->loc;
        cmp_type(d, subject, s, of->type, nf->type, nf->loc);
        d->field = outer;
    }
    for (size_t i = 0; i < nn && !d->oom; i++) {
        const ir_field *nf = &nfs[i];
        if (find_field(ofs, on, nf->name))
            continue;
        const char *subject = mcp_arena_printf(d->a, "%s '%s' of %s '%s'", word, nf->name, of_what, owner);
        if (!subject) {
            d->oom = true;
            return;
        }
        bool np = present(ndef, nf, s);
        if (s == IN && np)
            report(d, nf->loc, K_REQUIRED, true, false, subject, "added, required");
        else if (s == IN)
            judge(d, nf->loc, s, A_TYPE, false, true, subject, "added, optional");
        else if (np && !nf->default_value)
            report(d, nf->loc, K_ADDED, false, true, subject, "added; a server of the old contract does not send it");
        else
            report(d, nf->loc, K_ADDED, false, false, subject, np ? "added, with a default" : "added, may be absent");
    }
    if (s == IN && oforbid != nforbid) {
        const char *subject = mcp_arena_printf(d->a, "%s '%s'", of_what, owner);
        if (!subject) {
            d->oom = true;
            return;
        }
        judge(d, owner_loc, s, A_TYPE, nforbid, oforbid, subject, "%s", nforbid ? "unknown keys now refused (extra: forbid)"
                                                                            : "unknown keys now ignored (extra: ignore)");
    }
}

/* ---------------------------------------------------------------- items */

/* The place of a top-level key of NEW (`tools:`), or none. */
static idl_loc section_loc(const differ *d, const char *key)
{
    const idl_node *r = d->n->root;
    if (r && r->kind == IDL_NODE_MAP)
        for (size_t i = 0; i < r->n; i++)
            if (strcmp(r->pairs[i].key->str, key) == 0)
                return r->pairs[i].key->loc;
    return (idl_loc){0, 0};
}

static bool wrapped(const ir_tool *t) { return t->output == IR_OUTPUT_WRAPPED; }

static void cmp_output(differ *d, const ir_tool *o, const ir_tool *n, const char *subject)
{
    idl_loc at = loc_or(n->result.loc, n->loc);
    if (o->output == IR_OUTPUT_NONE && n->output == IR_OUTPUT_NONE)
        return;
    if (n->output == IR_OUTPUT_NONE) {
        report(d, at, K_OUTPUT_REMOVED, true, false, subject,
               "no longer publishes an outputSchema; clients no longer receive structuredContent");
        return;
    }
    if (o->output == IR_OUTPUT_NONE) {
        report(d, at, K_ADDED, false, true, subject,
               "now publishes an outputSchema; a server of the old contract sends no structuredContent");
        return;
    }
    if (wrapped(o) != wrapped(n)) {
        report(d, at, K_OUTPUT_WIDENED, true, true, subject,
               "output changed from %s to %s; structuredContent %s", type_text(d, o->returns), type_text(d, n->returns),
               wrapped(n) ? "is now wrapped in 'result'" : "is no longer wrapped in 'result'");
        return;
    }
    const char *what = wrapped(n) ? mcp_arena_printf(d->a, "the result of tool '%s'", n->name)
                                  : mcp_arena_printf(d->a, "the output of tool '%s'", n->name);
    if (!what) {
        d->oom = true;
        return;
    }
    if (wrapped(n) && !str_eq(o->result.description, n->result.description))
        report(d, at, K_DESCRIPTION, false, false, what, "description changed");
    d->field = n->result.loc;
    cmp_type(d, what, OUT, o->returns, n->returns, at);
    d->field = (idl_loc){0, 0};
}

static void cmp_tool(differ *d, const ir_tool *o, const ir_tool *n)
{
    const char *subject = mcp_arena_printf(d->a, "tool '%s'", n->name);
    if (!subject) {
        d->oom = true;
        return;
    }
    if (!str_eq(o->description, n->description))
        report(d, n->loc, K_DESCRIPTION, false, false, subject, "description changed");
    if (!str_eq(o->title, n->title))
        report(d, n->loc, K_DESCRIPTION, false, false, subject, "title changed");
    const ir_annotations *oa = &o->annotations, *na = &n->annotations;
    if (!str_eq(oa->title, na->title) || oa->read_only_hint != na->read_only_hint ||
        oa->destructive_hint != na->destructive_hint || oa->idempotent_hint != na->idempotent_hint ||
        oa->open_world_hint != na->open_world_hint)
        report(d, n->loc, K_DESCRIPTION, false, false, subject, "annotations changed (hints, not checked)");
    cmp_fields(d, n->name, IN, NULL, NULL, o->params, o->nparams, n->params, n->nparams, o->extra_forbid,
               n->extra_forbid, n->loc, "parameter");
    cmp_output(d, o, n, subject);
}

/* The item of a kind named `name` in `items` (an array of `size`-byte
 * structs whose first member is the name). */
static const void *find_named(const void *items, size_t n, size_t size, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        const void *it = (const char *)items + i * size;
        if (strcmp(*(const char *const *)it, name) == 0)
            return it;
    }
    return NULL;
}

typedef struct item_kind {
    const char *word;        /* "tool" */
    const char *section;     /* "tools" */
    size_t size;
    size_t loc_offset;       /* offsetof the idl_loc */
    const void *(*items)(const ir_server *s, size_t *n);
    bool (*similar)(differ *d, const void *o, const void *n);   /* a rename? or NULL */
} item_kind;

#define ITEMS_FN(fname, member, count)                                                                                 \
    static const void *fname(const ir_server *s, size_t *n)                                                          \
    {                                                                                                                  \
        *n = s->count;                                                                                                 \
        return s->member;                                                                                              \
    }
ITEMS_FN(tools_of, tools, ntools)
ITEMS_FN(resources_of, resources, nresources)
ITEMS_FN(templates_of, templates, ntemplates)
ITEMS_FN(prompts_of, prompts, nprompts)

static idl_loc loc_at(const void *item, size_t off)
{
    idl_loc l;
    memcpy(&l, (const char *)item + off, sizeof l);
    return l;
}

/* Removed and added items of one kind; each pair of the same name to `same`. */
static void cmp_items(differ *d, const item_kind *k, void (*same)(differ *, const void *, const void *))
{
    size_t on, nn;
    const void *ov = k->items(d->o->srv, &on), *nv = k->items(d->n->srv, &nn);
    for (size_t i = 0; i < on && !d->oom; i++) {
        const void *oi = (const char *)ov + i * k->size;
        const char *name = *(const char *const *)oi;
        const void *ni = find_named(nv, nn, k->size, name);
        if (ni) {
            same(d, oi, ni);
            continue;
        }
        const char *subject = mcp_arena_printf(d->a, "%s '%s'", k->word, name);
        if (!subject) {
            d->oom = true;
            return;
        }
        report(d, section_loc(d, k->section), K_REMOVED, true, false, subject, "removed");
        note(d, true, loc_at(oi, k->loc_offset), "'%s' was defined here", name);
        for (size_t j = 0; k->similar && j < nn; j++) {
            const void *cand = (const char *)nv + j * k->size;
            const char *cname = *(const char *const *)cand;
            if (!find_named(ov, on, k->size, cname) && k->similar(d, oi, cand)) {
                note(d, false, loc_at(cand, k->loc_offset),
                     "'%s' has the same parameters and result: if it is '%s' renamed, clients see a removal", cname, name);
                break;
            }
        }
    }
    for (size_t i = 0; i < nn && !d->oom; i++) {
        const void *ni = (const char *)nv + i * k->size;
        const char *name = *(const char *const *)ni;
        if (find_named(ov, on, k->size, name))
            continue;
        const char *subject = mcp_arena_printf(d->a, "%s '%s'", k->word, name);
        if (!subject) {
            d->oom = true;
            return;
        }
        report(d, loc_at(ni, k->loc_offset), K_ADDED, false, true, subject, "added; a server of the old contract lacks it");
    }
}

static void same_tool(differ *d, const void *o, const void *n) { cmp_tool(d, o, n); }

/* Whether two tools take the same parameters and give the same result. */
static bool similar_tool(differ *d, const void *ov, const void *nv)
{
    const ir_tool *o = ov, *n = nv;
    if (o->nparams != n->nparams || o->output != n->output || !o->returns || !n->returns ||
        strcmp(type_text(d, o->returns), type_text(d, n->returns)) != 0)
        return false;
    for (size_t i = 0; i < o->nparams; i++)
        if (strcmp(o->params[i].name, n->params[i].name) != 0 || o->params[i].required != n->params[i].required ||
            strcmp(type_text(d, o->params[i].type), type_text(d, n->params[i].type)) != 0)
            return false;
    return true;
}

static void cmp_text(differ *d, idl_loc at, const char *subject, const char *what, const char *o, const char *n)
{
    if (!str_eq(o, n))
        report(d, at, K_DESCRIPTION, false, false, subject, "%s changed", what);
}

static void same_resource(differ *d, const void *ov, const void *nv)
{
    const ir_resource *o = ov, *n = nv;
    const char *subject = mcp_arena_printf(d->a, "resource '%s'", n->name);
    if (!subject) {
        d->oom = true;
        return;
    }
    if (strcmp(o->uri, n->uri) != 0)
        report(d, n->loc, K_REMOVED, true, false, subject, "uri changed from '%s' to '%s'", o->uri, n->uri);
    if (!str_eq(o->mime_type, n->mime_type))
        report(d, n->loc, K_OUTPUT_WIDENED, true, true, subject, "mimeType changed from %s to %s",
               o->mime_type ? o->mime_type : "none", n->mime_type ? n->mime_type : "none");
    cmp_text(d, n->loc, subject, "description", o->description, n->description);
    cmp_text(d, n->loc, subject, "title", o->title, n->title);
}

static void same_template(differ *d, const void *ov, const void *nv)
{
    const ir_template *o = ov, *n = nv;
    const char *subject = mcp_arena_printf(d->a, "resource template '%s'", n->name);
    if (!subject) {
        d->oom = true;
        return;
    }
    if (strcmp(o->uri_template, n->uri_template) != 0)
        report(d, n->loc, K_REMOVED, true, false, subject,
               "uriTemplate changed from '%s' to '%s'; URIs clients build from the old one may no longer resolve",
               o->uri_template, n->uri_template);
    if (!str_eq(o->mime_type, n->mime_type))
        report(d, n->loc, K_OUTPUT_WIDENED, true, true, subject, "mimeType changed from %s to %s",
               o->mime_type ? o->mime_type : "none", n->mime_type ? n->mime_type : "none");
    cmp_text(d, n->loc, subject, "description", o->description, n->description);
    cmp_text(d, n->loc, subject, "title", o->title, n->title);
}

static void same_prompt(differ *d, const void *ov, const void *nv)
{
    const ir_prompt *o = ov, *n = nv;
    const char *subject = mcp_arena_printf(d->a, "prompt '%s'", n->name);
    if (!subject) {
        d->oom = true;
        return;
    }
    cmp_text(d, n->loc, subject, "description", o->description, n->description);
    cmp_text(d, n->loc, subject, "title", o->title, n->title);
    for (size_t i = 0; i < o->nargs && !d->oom; i++) {
        const ir_prompt_arg *oa = &o->args[i], *na = NULL;
        for (size_t k = 0; k < n->nargs && !na; k++)
            if (strcmp(n->args[k].name, oa->name) == 0)
                na = &n->args[k];
        const char *sub_ = mcp_arena_printf(d->a, "argument '%s' of prompt '%s'", oa->name, n->name);
        if (!sub_) {
            d->oom = true;
            return;
        }
        if (!na) {
            report(d, n->loc, K_INPUT_REMOVED, true, false, sub_, "removed; a value clients send is ignored");
            note(d, true, oa->loc, "'%s' was declared here", oa->name);
            continue;
        }
        if (oa->required != na->required) {
            if (na->required)
                report(d, na->loc, K_REQUIRED, true, false, sub_, "now required");
            else
                judge(d, na->loc, IN, A_TYPE, false, true, sub_, "now optional");
        }
        cmp_text(d, na->loc, sub_, "description", oa->description, na->description);
        cmp_text(d, na->loc, sub_, "title", oa->title, na->title);
    }
    for (size_t k = 0; k < n->nargs && !d->oom; k++) {
        const ir_prompt_arg *na = &n->args[k];
        bool found = false;
        for (size_t i = 0; i < o->nargs && !found; i++)
            found = strcmp(o->args[i].name, na->name) == 0;
        if (found)
            continue;
        const char *sub_ = mcp_arena_printf(d->a, "argument '%s' of prompt '%s'", na->name, n->name);
        if (!sub_) {
            d->oom = true;
            return;
        }
        if (na->required)
            report(d, na->loc, K_REQUIRED, true, false, sub_, "added, required");
        else
            judge(d, na->loc, IN, A_TYPE, false, true, sub_, "added, optional");
    }
}

/* ---------------------------------------------------------------- output */

static int entry_cmp(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->key.line != b->key.line)
        return a->key.line < b->key.line ? -1 : 1;
    if (a->key.col != b->key.col)
        return a->key.col < b->key.col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

typedef struct render_ctx {
    const differ *d;
    const char *file;
} render_ctx;

static void pass(void *ctx, const idl_diag *g, const char *text, size_t len)
{
    const render_ctx *r = ctx;
    r->d->opt->emit(r->d->opt->ctx, r->file, g, text, len);
}

bool contract_diff(mcp_arena *a, const diff_source *old, const diff_source *now, const diff_options *o, size_t *errors)
{
    differ d = {.a = a, .o = old, .n = now, .opt = o};
    static const item_kind KINDS[] = {
        {"tool", "tools", sizeof(ir_tool), offsetof(ir_tool, loc), tools_of, similar_tool},
        {"resource", "resources", sizeof(ir_resource), offsetof(ir_resource, loc), resources_of, NULL},
        {"resource template", "resource_templates", sizeof(ir_template), offsetof(ir_template, loc), templates_of, NULL},
        {"prompt", "prompts", sizeof(ir_prompt), offsetof(ir_prompt, loc), prompts_of, NULL},
    };
    void (*const SAME[])(differ *, const void *, const void *) = {same_tool, same_resource, same_template, same_prompt};
    for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++)
        cmp_items(&d, &KINDS[i], SAME[i]);
    if (d.oom)
        return false;
    if (d.len)
        qsort(d.items, d.len, sizeof *d.items, entry_cmp);
    for (size_t i = 0; i < d.len && o->emit; i++) {
        const entry *e = &d.items[i];
        const diff_source *src = e->in_old ? old : now;
        idl_diag g = {e->sev, e->loc, (char *)e->msg};
        idl_diags one;
        idl_diags_init(&one, a, src->file, src->src, src->len);
        one.items = &g;
        one.len = one.cap = 1;
        render_ctx r = {&d, src->file};
        if (!idl_diags_render(&one, o->show_source, pass, &r))
            return false;
    }
    *errors = d.errors;
    return true;
}
