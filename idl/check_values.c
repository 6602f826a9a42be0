/* check_values.c: values against their types. A default must fit its field's
 * type: the right kind of value, within the constraints, with the required
 * fields of a model, no key a model forbids, no repeat in a set. A message says
 * where in the value it went wrong (tags.2) and what was found there.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_int.h"
#include "internal/formats.h"
#include "internal/utf8.h"
#include "mcpidl/buf.h"

/* ---------------------------------------------------------------- values in messages */

/* Text of a scalar for a message: at most 40 characters, control characters
 * escaped. */
static void put_shown(mcp_buf *b, const char *s, size_t n)
{
    enum { MAX_CHARS = 40 };
    size_t chars = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if ((ch & 0xC0) != 0x80 && chars++ == MAX_CHARS) {
            mcp_buf_puts(b, "...");
            return;
        }
        if (ch == '\n')
            mcp_buf_puts(b, "\\n");
        else if (ch == '\t')
            mcp_buf_puts(b, "\\t");
        else if (ch < 0x20 || ch == 0x7F)
            mcp_buf_printf(b, "\\x%02X", ch);
        else
            mcp_buf_putc(b, (char)ch);
    }
}

/* A value for a message: 'text' for a string, the spelling of other scalars,
 * "the mapping" or "the sequence" (article_collections: "a mapping"). */
static void describe_value(mcp_buf *b, const idl_node *v)
{
    switch (v->kind) {
    case IDL_NODE_NULL:
        mcp_buf_puts(b, "null");
        break;
    case IDL_NODE_STR:
        mcp_buf_putc(b, '\'');
        put_shown(b, v->str, v->len);
        mcp_buf_putc(b, '\'');
        break;
    case IDL_NODE_MAP:
        mcp_buf_puts(b, "the mapping");
        break;
    case IDL_NODE_SEQ:
        mcp_buf_puts(b, "the sequence");
        break;
    default:
        put_shown(b, v->str, strlen(v->str));
    }
}

/* Where a value does not fit its type: the place to point at, and the value the
 * message speaks of (a mapping, for a key it should not have). */
typedef struct fault {
    idl_loc loc;
    const idl_node *subject;
} fault;

/* A bound for a message, as written: 3, 0.5, 1e+20. */
static void put_number(mcp_buf *b, ir_number n)
{
    if (n.is_int) {
        mcp_buf_printf(b, "%lld", (long long)n.i);
        return;
    }
    char t[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(t, sizeof t, "%.*g", prec, n.f);
        if (strtod(t, NULL) == n.f)
            break;
    }
    mcp_buf_puts(b, t);
}

/* ---------------------------------------------------------------- fitting */

/* Check that value `v` fits type `t`. On failure, write a message (with the path
 * inside the value when nested) into `msg` and return false. `loc` receives the
 * location of the offending part of the value. */
static bool value_fits(checker *c, const ir_type *t, const idl_node *v, mcp_buf *path, mcp_buf *msg, fault *loc);

static bool fits_number(const ir_type *t, const idl_node *v, mcp_buf *msg)
{
    double x;
    if (t->kind == IR_INT) {
        if (v->kind == IDL_NODE_INT && !v->overflow)
            x = (double)v->v.i;
        else if (v->kind == IDL_NODE_INT) {
            mcp_buf_puts(msg, "does not fit in a 64-bit integer");
            return false;
        } else if (v->kind == IDL_NODE_FLOAT && isfinite(v->v.f) && v->v.f == floor(v->v.f) && fabs(v->v.f) < 9.2e18) {
            x = v->v.f;
        } else if (v->kind == IDL_NODE_FLOAT && isfinite(v->v.f)) {
            mcp_buf_puts(msg, "is not an integer (it has a fractional part)");
            return false;
        } else {
            mcp_buf_puts(msg, "is not an integer");
            return false;
        }
    } else {
        if (v->kind == IDL_NODE_INT && !v->overflow)
            x = (double)v->v.i;
        else if (v->kind == IDL_NODE_FLOAT && isfinite(v->v.f))
            x = v->v.f;
        else if (v->kind == IDL_NODE_FLOAT) {
            mcp_buf_puts(msg, "is not a finite number");
            return false;
        } else {
            mcp_buf_puts(msg, "is not a number");
            return false;
        }
    }
    const ir_constraints *k = t->c;
    if (k->has_minimum && x < ir_number_value(k->minimum)) {
        mcp_buf_puts(msg, "is less than the minimum ");
        put_number(msg, k->minimum);
        return false;
    }
    if (k->has_maximum && x > ir_number_value(k->maximum)) {
        mcp_buf_puts(msg, "is greater than the maximum ");
        put_number(msg, k->maximum);
        return false;
    }
    if (k->has_exclusive_minimum && x <= ir_number_value(k->exclusive_minimum)) {
        mcp_buf_puts(msg, "is not greater than exclusiveMinimum ");
        put_number(msg, k->exclusive_minimum);
        return false;
    }
    if (k->has_exclusive_maximum && x >= ir_number_value(k->exclusive_maximum)) {
        mcp_buf_puts(msg, "is not less than exclusiveMaximum ");
        put_number(msg, k->exclusive_maximum);
        return false;
    }
    if (k->has_multiple_of) {
        double m = ir_number_value(k->multiple_of);
        double q = x / m;
        if (q != floor(q)) {
            mcp_buf_puts(msg, "is not a multiple of ");
            put_number(msg, k->multiple_of);
            return false;
        }
    }
    return true;
}

static bool fits_string(const ir_type *t, const idl_node *v, mcp_buf *msg)
{
    if (v->kind != IDL_NODE_STR) {
        mcp_buf_puts(msg, "is not a string");
        return false;
    }
    if (memchr(v->str, 0, v->len)) {
        mcp_buf_puts(msg, "contains a NUL character");
        return false;
    }
    size_t n = mcp_utf8_chars(v->str, v->len);
    if (t->c->has_min_length && (int64_t)n < t->c->min_length) {
        mcp_buf_printf(msg, "is shorter than minLength %lld", (long long)t->c->min_length);
        return false;
    }
    if (t->c->has_max_length && (int64_t)n > t->c->max_length) {
        mcp_buf_printf(msg, "is longer than maxLength %lld", (long long)t->c->max_length);
        return false;
    }
    if (t->c->pattern && idl_pattern_matches(t->c->pattern, strlen(t->c->pattern), v->str, v->len) == 0) {
        mcp_buf_printf(msg, "does not match pattern '%s'", t->c->pattern);
        return false;
    }
    return true;
}

/* A default (or any value written in the IDL) of a string-format type: the
 * runtime's own check, so that a default that passes here passes there. */
static bool fits_format(checker *c, const ir_type *t, const idl_node *v, mcp_buf *msg)
{
    if (t->format == MCP_FMT_DECIMAL ? v->kind != IDL_NODE_STR && v->kind != IDL_NODE_INT && v->kind != IDL_NODE_FLOAT
                                     : v->kind != IDL_NODE_STR) {
        mcp_buf_printf(msg, "is not a string%s", t->format == MCP_FMT_DECIMAL ? " or a number" : "");
        return false;
    }
    const mcp_json *x = ck_value(c, v);
    if (!x)
        return true; /* out of memory: reported elsewhere */
    const char *canon;
    bool oom = false;
    mcp_format_error e;
    if (mcp_format_check(t->format, x, c->a, &canon, &oom, &e) || oom)
        return true;
    mcp_buf_printf(msg, "is not a valid %s: %s [type=%s]", ir_format_name(t->format), e.message,
                   mcp_verr_type_name(e.kind));
    return false;
}

/* A dict[int, T] key: -?(0|[1-9][0-9]*) within int64. */
static bool is_int64_key(const char *s)
{
    const char *p = s + (*s == '-');
    if (!*p || (*p == '0' && p[1]))
        return false;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return false;
    errno = 0;
    char *end;
    (void)strtoll(s, &end, 10);
    return errno != ERANGE;
}

static void path_push_key(mcp_buf *path, const char *key)
{
    if (path->len)
        mcp_buf_putc(path, '.');
    mcp_buf_puts(path, key);
}

static void path_push_index(mcp_buf *path, size_t i)
{
    if (path->len)
        mcp_buf_putc(path, '.');
    mcp_buf_printf(path, "%zu", i);
}

/* Back to the path of the value around the part just checked. */
static void path_cut(mcp_buf *path, size_t len)
{
    path->len = len;
    path->data[len] = 0;
}

static size_t key_len(const void *ctx, size_t i) { return ((const idl_node *)ctx)->pairs[i].key->len; }
static size_t field_name_len(const void *ctx, size_t i) { return strlen(((const ir_def *)ctx)->fields[i].name); }

/* The fields of a model or record. The value's keys and the type's fields are
 * looked up in sorted copies: a default of 50,000 keys is checked in a moment. */
static bool fits_fields(checker *c, const ir_def *def, const idl_node *v, mcp_buf *path, mcp_buf *msg, fault *loc)
{
    if (v->kind != IDL_NODE_MAP) {
        mcp_buf_printf(msg, "is not a mapping of the fields of '%s'", def->name);
        return false;
    }
    ck_name_ix *keys = NULL;
    if (v->n) {
        keys = malloc(v->n * sizeof *keys);
        if (!keys)
            return true; /* out of memory: no verdict */
        for (size_t i = 0; i < v->n; i++)
            keys[i] = (ck_name_ix){v->pairs[i].key->str, i};
        qsort(keys, v->n, sizeof *keys, ck_name_ix_cmp);
    }
    bool ok = true;
    size_t mark = path->len;
    for (size_t i = 0; i < def->nfields && ok; i++) {
        const ir_field *f = &def->fields[i];
        size_t k = v->n ? ck_sorted_find(keys, v->n, f->name, strlen(f->name), key_len, v) : SIZE_MAX;
        if (k == SIZE_MAX) {
            if (f->required) {
                loc->loc = v->loc;
                loc->subject = v;
                mcp_buf_printf(msg, "lacks the required field '%s'", f->name);
                ok = false;
            }
            continue;
        }
        path_push_key(path, f->name);
        ok = value_fits(c, f->type, v->pairs[k].value, path, msg, loc);
        if (ok)
            path_cut(path, mark);
    }
    free(keys);
    if (!ok || !def->extra_forbid || v->n == 0)
        return ok;
    size_t nnames = 0;
    ck_name_ix *names = def->nfields ? ck_sorted_index(&def->fields[0].name, sizeof *def->fields, def->nfields, &nnames)
                                     : NULL;
    if (def->nfields && !names)
        return true;
    for (size_t i = 0; i < v->n; i++) {
        const idl_node *k = v->pairs[i].key;
        if (nnames && ck_sorted_find(names, nnames, k->str, k->len, field_name_len, def) != SIZE_MAX)
            continue;
        loc->loc = k->loc;
        loc->subject = v;
        mcp_buf_printf(msg, "has the key '%s', which '%s' does not allow (extra: forbid)", k->str, def->name);
        ok = false;
        break;
    }
    free(names);
    return ok;
}

/* Whether v is one of the values of a Literal or an enum (of the same kind: 1.0
 * is not the integer 1 there). */
static bool is_one_of(checker *c, const idl_node *v, const mcp_json *const *values, size_t n)
{
    const mcp_json *x = ck_value(c, v);
    for (size_t i = 0; x && i < n; i++)
        if (x->kind == values[i]->kind && mcp_json_equal(x, values[i]))
            return true;
    return false;
}

static bool value_fits(checker *c, const ir_type *t, const idl_node *v, mcp_buf *path, mcp_buf *msg, fault *loc)
{
    loc->loc = v->loc;
    loc->subject = v;
    switch (t->kind) {
    case IR_INT:
    case IR_FLOAT:
        return fits_number(t, v, msg);
    case IR_STR:
    case IR_BYTES:
        return fits_string(t, v, msg);
    case IR_BOOL:
        if (v->kind == IDL_NODE_BOOL)
            return true;
        mcp_buf_puts(msg, "is not a boolean");
        return false;
    case IR_NONE:
        if (v->kind == IDL_NODE_NULL)
            return true;
        mcp_buf_puts(msg, "is not null");
        return false;
    case IR_ANY:
        if (v->kind == IDL_NODE_FLOAT && !isfinite(v->v.f)) {
            mcp_buf_puts(msg, "is not a finite number (JSON has no NaN or infinity)");
            return false;
        }
        return true;
    case IR_CONTENT:
        return false;
    case IR_FORMAT:
        return fits_format(c, t, v, msg);
    case IR_LIST:
    case IR_SET:
    case IR_TUPLE: {
        if (v->kind != IDL_NODE_SEQ) {
            mcp_buf_puts(msg, "is not a sequence");
            return false;
        }
        if (t->kind == IR_TUPLE && v->n != t->nitems) {
            mcp_buf_printf(msg, "has %zu item%s, but the tuple has %zu", v->n, v->n == 1 ? "" : "s", t->nitems);
            return false;
        }
        if (t->c->has_min_items && (int64_t)v->n < t->c->min_items) {
            mcp_buf_printf(msg, "has fewer than minItems %lld items", (long long)t->c->min_items);
            return false;
        }
        if (t->c->has_max_items && (int64_t)v->n > t->c->max_items) {
            mcp_buf_printf(msg, "has more than maxItems %lld items", (long long)t->c->max_items);
            return false;
        }
        size_t mark = path->len;
        ck_index_set seen;
        ck_index_set_init(&seen, t->kind == IR_SET ? v->n : 0);
        const mcp_json **items = t->kind == IR_SET ? mcp_arena_alloc(c->a, (v->n ? v->n : 1) * sizeof *items) : NULL;
        bool ok = true;
        for (size_t i = 0; i < v->n && ok; i++) {
            path_push_index(path, i);
            ok = value_fits(c, t->kind == IR_TUPLE ? t->items[i] : t->elem, v->items[i], path, msg, loc);
            if (!ok)
                break;
            path_cut(path, mark);
            size_t j;
            if (items && (items[i] = ck_value(c, v->items[i])) &&
                (j = ck_index_set_add(&seen, ck_value_hash(items[i]), i, items, ck_values_at_equal)) != SIZE_MAX) {
                loc->loc = v->items[i]->loc;
                loc->subject = v;
                mcp_buf_puts(msg, "repeats ");
                describe_value(msg, v->items[i]);
                mcp_buf_printf(msg, " (items %zu and %zu); a set's items are unique", j, i);
                ok = false;
            }
        }
        ck_index_set_free(&seen);
        return ok;
    }
    case IR_DICT: {
        if (v->kind != IDL_NODE_MAP) {
            mcp_buf_puts(msg, "is not a mapping");
            return false;
        }
        size_t mark = path->len;
        for (size_t i = 0; i < v->n; i++) {
            const idl_node *k = v->pairs[i].key;
            if (t->int_keys && !is_int64_key(k->str)) {
                loc->loc = k->loc;
                loc->subject = v;
                mcp_buf_printf(msg, "has the key '%s', which is not a decimal 64-bit integer", k->str);
                return false;
            }
            path_push_key(path, k->str);
            if (!value_fits(c, t->elem, v->pairs[i].value, path, msg, loc))
                return false;
            path_cut(path, mark);
        }
        return true;
    }
    case IR_UNION: {
        if (t->nitems == 2 && t->items[1]->kind == IR_NONE && v->kind != IDL_NODE_NULL)
            return value_fits(c, t->items[0], v, path, msg, loc); /* Optional[T]: what is wrong for T */
        mcp_buf scratch_path, scratch_msg;
        mcp_buf_init(&scratch_path);
        mcp_buf_init(&scratch_msg);
        bool ok = false;
        for (size_t i = 0; i < t->nitems && !ok; i++) {
            mcp_buf_clear(&scratch_path);
            mcp_buf_clear(&scratch_msg);
            fault l;
            ok = value_fits(c, t->items[i], v, &scratch_path, &scratch_msg, &l);
        }
        mcp_buf_free(&scratch_path);
        mcp_buf_free(&scratch_msg);
        loc->loc = v->loc;
        loc->subject = v;
        if (!ok)
            mcp_buf_puts(msg, "matches none of the types of the union");
        return ok;
    }
    case IR_LITERAL:
        if (is_one_of(c, v, t->values, t->nvalues))
            return true;
        mcp_buf_puts(msg, "is not one of the Literal values");
        return false;
    case IR_NAMED: {
        const ir_def *def = t->def;
        if (def->kind == IR_DEF_ENUM) {
            if (is_one_of(c, v, def->values, def->nvalues))
                return true;
            mcp_buf_printf(msg, "is not a value of enum '%s'", def->name);
            return false;
        }
        return fits_fields(c, def, v, path, msg, loc);
    }
    }
    return false;
}

/* Report whether `dv`, the default of field `f`, fits its type:
 *   default 'three' of 'count' in model 'Person' is not an integer
 *   default of 'home' in model 'Person' lacks the required field 'zip'
 *   default of 'tags' in model 'Person' does not fit its type: at tags.2, 'three' is not an integer */
static void check_default(checker *c, const ir_field *f, const idl_node *dv, const char *owner)
{
    mcp_buf path, msg, shown;
    mcp_buf_init(&path);
    mcp_buf_init(&msg);
    mcp_buf_init(&shown);
    fault at = {dv->loc, dv};
    if (!value_fits(c, f->type, dv, &path, &msg, &at)) {
        const idl_node *v = at.subject;
        bool collection = v->kind == IDL_NODE_MAP || v->kind == IDL_NODE_SEQ;
        describe_value(&shown, v);
        const char *m = msg.data ? msg.data : "does not fit its type";
        if (path.len)
            ERR(c, at.loc, "default of '%s' in %s does not fit its type: at %s.%s, %s %s", f->name, owner, f->name,
                path.data, shown.data ? shown.data : "", m);
        else if (collection)
            ERR(c, at.loc, "default of '%s' in %s %s", f->name, owner, m);
        else
            ERR(c, at.loc, "default %s of '%s' in %s %s", shown.data ? shown.data : "", f->name, owner, m);
    }
    mcp_buf_free(&path);
    mcp_buf_free(&msg);
    mcp_buf_free(&shown);
}

/* ---------------------------------------------------------------- defaults */

void ck_add_default(checker *c, ir_field *f, const idl_node *node, const char *owner)
{
    if (c->ndefaults == c->cap_defaults) {
        size_t cap = c->cap_defaults ? 2 * c->cap_defaults : 16;
        ck_default *p = mcp_arena_realloc(c->a, c->defaults, c->cap_defaults * sizeof *p, cap * sizeof *p);
        if (!p)
            return;
        c->defaults = p;
        c->cap_defaults = cap;
    }
    const char *o = mcp_arena_strdup(c->a, owner);
    if (o)
        c->defaults[c->ndefaults++] = (ck_default){f, node, o};
}

/* A default as pydantic would dump the Python value it stands for: the texts
 * of the string-format types in canonical form ("PT90M" is published as
 * "PT1H30M"), wherever they are in v. v itself when nothing changes, or when
 * the value does not fit (the checks report that). */
static const mcp_json *canonical_default(checker *c, const ir_type *t, const mcp_json *v, size_t depth)
{
    if (!v || depth > 64)
        return v;
    switch (t->kind) {
    case IR_FORMAT: {
        if (v->kind != MCP_JSTRING)
            return v; /* a decimal's number stays a number, as a Python float default would */
        const char *canon;
        bool oom = false;
        mcp_format_error e;
        if (!mcp_format_check(t->format, v, c->a, &canon, &oom, &e) || !canon)
            return v;
        return mcp_json_new_string(c->a, canon, strlen(canon));
    }
    case IR_LIST:
    case IR_SET:
    case IR_TUPLE:
    case IR_DICT: {
        if (v->kind != (t->kind == IR_DICT ? MCP_JOBJECT : MCP_JARRAY) || (t->kind == IR_TUPLE && v->n != t->nitems))
            return v;
        mcp_json *copy = mcp_json_copy(c->a, v);
        if (!copy)
            return v;
        for (size_t i = 0; i < v->n; i++) {
            const ir_type *et = t->kind == IR_TUPLE ? t->items[i] : t->elem;
            if (t->kind == IR_DICT)
                copy->members[i].value = (mcp_json *)canonical_default(c, et, v->members[i].value, depth + 1);
            else
                copy->items[i] = (mcp_json *)canonical_default(c, et, v->items[i], depth + 1);
        }
        return copy;
    }
    case IR_UNION:
        /* the first arm that takes the value, when it is one whose verdict is plain */
        for (size_t i = 0; i < t->nitems; i++) {
            const ir_type *a = t->items[i];
            if (a->kind == IR_NONE && v->kind == MCP_JNULL)
                return v;
            if (a->kind == IR_STR)
                return v;
            if (a->kind == IR_FORMAT) {
                if (v->kind == MCP_JSTRING && mcp_format_check_text(a->format, v->s, v->len, NULL))
                    return canonical_default(c, a, v, depth + 1);
                continue;
            }
            return v;
        }
        return v;
    case IR_NAMED:
        if (t->def->kind == IR_DEF_ENUM || v->kind != MCP_JOBJECT)
            return v;
        {
            mcp_json *copy = mcp_json_copy(c->a, v);
            if (!copy)
                return v;
            for (size_t i = 0; i < copy->n; i++)
                for (size_t j = 0; j < t->def->nfields; j++)
                    if (strcmp(copy->members[i].key, t->def->fields[j].name) == 0)
                        copy->members[i].value = (mcp_json *)canonical_default(c, t->def->fields[j].type,
                                                                               v->members[i].value, depth + 1);
            return copy;
        }
    default:
        return v;
    }
}

void ck_check_defaults(checker *c)
{
    for (size_t i = 0; i < c->ndefaults; i++) {
        const ck_default *d = &c->defaults[i];
        check_default(c, d->field, d->node, d->owner);
        d->field->default_value = canonical_default(c, d->field->type, ck_value(c, d->node), 0);
    }
}
