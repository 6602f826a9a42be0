/* c_values.c: C initializers of the generated structs: every member zero, or
 * the IDL's default (c_names.h, c_init_fields).
 *
 * A default is written as the C value the decoder would make of it: numbers
 * and strings as literals, enum and Literal values as their constants, a
 * union's value in the first arm it fits (as the decoder tries them), a
 * model's value with its fields' own defaults where the value leaves them
 * out, lists and dicts as compound literals (C99; in C++ only an empty one
 * works), an `any` value as a constant mcp_json.
 */
#include <assert.h>
#include <string.h>

#include "c_names.h"
#include "internal/formats.h"
#include "mcpidl/jsonw.h"

static void value(c_names *n, mcp_buf *b, const ir_type *t, c_hold h, const mcp_json *v);

/* ------------------------------------------------------------------ fitting */

static bool fits(const ir_type *t, const mcp_json *v);

static bool is_one_of(const mcp_json *v, const mcp_json *const *values, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (v->kind == values[i]->kind && mcp_json_equal(v, values[i]))
            return true;
    return false;
}

/* A key of dict[int, T]: -?(0|[1-9][0-9]*) within int64. */
static bool is_int_key(const char *s)
{
    const char *p = s + (*s == '-');
    size_t digits = strlen(p);
    if (!digits || digits > 19 || (*p == '0' && digits > 1) || strspn(p, "0123456789") != digits)
        return false;
    return digits < 19 || strcmp(p, *s == '-' ? "9223372036854775808" : "9223372036854775807") <= 0;
}

static bool fits_fields(const ir_def *def, const mcp_json *v)
{
    if (v->kind != MCP_JOBJECT)
        return false;
    for (size_t i = 0; i < def->nfields; i++) {
        const mcp_json *x = mcp_json_get(v, def->fields[i].name);
        if (x ? !fits(def->fields[i].type, x) : def->fields[i].required)
            return false;
    }
    return true;
}

/* Whether the decoder takes v as a value of t (constraints aside: a union's
 * arms have none). */
static bool fits(const ir_type *t, const mcp_json *v)
{
    switch (t->kind) {
    case IR_INT:
        return v->kind == MCP_JINT;
    case IR_FLOAT:
        return v->kind == MCP_JINT || v->kind == MCP_JFLOAT;
    case IR_STR:
    case IR_BYTES:
        return v->kind == MCP_JSTRING;
    case IR_BOOL:
        return v->kind == MCP_JBOOL;
    case IR_FORMAT:
        if (v->kind == MCP_JSTRING)
            return mcp_format_check_text(t->format, v->s, v->len, NULL);
        return t->format == MCP_FMT_DECIMAL && (v->kind == MCP_JINT || v->kind == MCP_JBIGINT || v->kind == MCP_JFLOAT);
    case IR_NONE:
        return v->kind == MCP_JNULL;
    case IR_ANY:
        return true;
    case IR_CONTENT:
        return false;
    case IR_LIST:
    case IR_SET:
    case IR_TUPLE:
        if (v->kind != MCP_JARRAY || (t->kind == IR_TUPLE && v->n != t->nitems))
            return false;
        for (size_t i = 0; i < v->n; i++)
            if (!fits(t->kind == IR_TUPLE ? t->items[i] : t->elem, v->items[i]))
                return false;
        return true;
    case IR_DICT:
        if (v->kind != MCP_JOBJECT)
            return false;
        for (size_t i = 0; i < v->n; i++)
            if ((t->int_keys && !is_int_key(v->members[i].key)) || !fits(t->elem, v->members[i].value))
                return false;
        return true;
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            if (fits(t->items[i], v))
                return true;
        return false;
    case IR_LITERAL:
        return is_one_of(v, t->values, t->nvalues);
    case IR_NAMED:
        return t->def->kind == IR_DEF_ENUM ? is_one_of(v, t->def->values, t->def->nvalues) : fits_fields(t->def, v);
    }
    return false;
}

/* ------------------------------------------------------------------ values */

/* The constant of v among an enum's or a Literal's values. */
static const char *constant(c_names *n, const ir_type *t, const mcp_json *v)
{
    const c_struct *s = t->kind == IR_NAMED ? n->structs[t->def->index] : c_struct_of(n, t, C_HOLD_VALUE);
    const mcp_json *const *values = t->kind == IR_NAMED ? t->def->values : t->values;
    size_t count = t->kind == IR_NAMED ? t->def->nvalues : t->nvalues;
    assert(s && s->consts && count);
    for (size_t i = 0; s && v && i < count; i++)
        if (v->kind == values[i]->kind && mcp_json_equal(v, values[i]))
            return s->consts[i];
    return s && count ? s->consts[0] : "0";
}

static void number(mcp_buf *b, const mcp_json *v, bool is_float)
{
    if (!is_float && v->kind == MCP_JFLOAT) { /* an integral float, for an int */
        mcp_buf_printf(b, "%.0f", v->d);
        return;
    }
    if (!is_float) {
        if (v->i == INT64_MIN)
            mcp_buf_puts(b, "(-9223372036854775807 - 1)");
        else
            mcp_buf_printf(b, "%lld", (long long)v->i);
        return;
    }
    /* A double literal: the shortest digits that read back ("16.2", "17.0",
     * "1e-07"). */
    double d = v->kind == MCP_JINT ? (double)v->i : v->d;
    if (!mcp_json_double(b, d))
        mcp_buf_puts(b, "0.0");
}

/* An `any` value: a constant mcp_json; null is NULL at the top (`inner`
 * false), a null node inside arrays and objects. */
static void any_value(c_names *n, mcp_buf *b, const mcp_json *v, bool inner)
{
    if (v->kind == MCP_JNULL && !inner) {
        mcp_buf_puts(b, "NULL");
        return;
    }
    mcp_buf_puts(b, "&(mcp_json){");
    switch (v->kind) {
    case MCP_JNULL:
        mcp_buf_puts(b, ".kind = MCP_JNULL");
        break;
    case MCP_JBOOL:
        mcp_buf_printf(b, ".kind = MCP_JBOOL, .b = %s", v->b ? "true" : "false");
        break;
    case MCP_JINT:
        mcp_buf_puts(b, ".kind = MCP_JINT, .i = ");
        number(b, v, false);
        break;
    case MCP_JFLOAT:
        mcp_buf_puts(b, ".kind = MCP_JFLOAT, .d = ");
        number(b, v, true);
        break;
    case MCP_JSTRING:
        mcp_buf_puts(b, ".kind = MCP_JSTRING, .s = ");
        c_string(b, v->s, v->len);
        mcp_buf_printf(b, ", .len = %zu", v->len);
        break;
    case MCP_JARRAY:
        mcp_buf_printf(b, ".kind = MCP_JARRAY, .n = %zu", v->n);
        if (v->n) {
            mcp_buf_puts(b, ", .items = (mcp_json *[]){");
            for (size_t i = 0; i < v->n; i++) {
                mcp_buf_puts(b, i ? ", " : "");
                any_value(n, b, v->items[i], true);
            }
            mcp_buf_putc(b, '}');
        }
        break;
    case MCP_JOBJECT:
        mcp_buf_printf(b, ".kind = MCP_JOBJECT, .n = %zu", v->n);
        if (v->n) {
            mcp_buf_puts(b, ", .members = (mcp_json_member[]){");
            for (size_t i = 0; i < v->n; i++) {
                mcp_buf_puts(b, i ? ", {" : "{");
                c_string(b, v->members[i].key, v->members[i].key_len);
                mcp_buf_printf(b, ", %zu, ", v->members[i].key_len);
                any_value(n, b, v->members[i].value, true);
                mcp_buf_putc(b, '}');
            }
            mcp_buf_putc(b, '}');
        }
        break;
    default:
        break;
    }
    mcp_buf_putc(b, '}');
}

/* The members of a struct of fields, in order: each its value in the object
 * v (NULL: none), else its default (when `defaults`), else zero; a record's
 * has_NAME flags say which keys v holds. */
static void fields_init(c_names *n, mcp_buf *b, const ir_field *fields, size_t nfields, bool record, bool defaults,
                        const mcp_json *v)
{
    if (nfields == 0) {
        mcp_buf_puts(b, "{0}");
        return;
    }
    mcp_buf_putc(b, '{');
    for (size_t i = 0; i < nfields; i++) {
        const ir_field *f = &fields[i];
        const mcp_json *x = v ? mcp_json_get(v, f->name) : NULL;
        mcp_buf_puts(b, i ? ", " : "");
        value(n, b, f->type, C_HOLD_VALUE, x ? x : defaults ? f->default_value : NULL);
        if (record && !f->required)
            mcp_buf_puts(b, x ? ", true" : ", false");
    }
    mcp_buf_putc(b, '}');
}

/* A list, set or dict: {len, (ITEM[]){...}}. */
static void items_value(c_names *n, mcp_buf *b, const ir_type *t, const mcp_json *v)
{
    if (!v || !v->n) {
        mcp_buf_puts(b, "{0, NULL}");
        return;
    }
    const char *item = t->kind == IR_DICT ? c_fmt(n, "%s_item", c_type_of(n, t, C_HOLD_VALUE))
                                          : c_type_of(n, t->elem, C_HOLD_VALUE);
    mcp_buf_printf(b, "{%zu, (%s[]){", v->n, item);
    for (size_t i = 0; i < v->n; i++) {
        mcp_buf_puts(b, i ? ", " : "");
        if (t->kind != IR_DICT) {
            value(n, b, t->elem, C_HOLD_VALUE, v->items[i]);
            continue;
        }
        const mcp_json_member *m = &v->members[i];
        mcp_buf_putc(b, '{');
        if (t->int_keys)
            mcp_buf_put(b, m->key, m->key_len); /* checked: a decimal int64 */
        else
            c_string(b, m->key, m->key_len);
        mcp_buf_puts(b, ", ");
        value(n, b, t->elem, C_HOLD_VALUE, m->value);
        mcp_buf_putc(b, '}');
    }
    mcp_buf_puts(b, "}}");
}

/* The value v of a use of t, or its zero when v is NULL. */
static void value(c_names *n, mcp_buf *b, const ir_type *t, c_hold h, const mcp_json *v)
{
    switch (t->kind) {
    case IR_FORMAT: {
        /* the canonical text, as the decoder would hold it */
        const char *canon = NULL;
        bool oom = false;
        mcp_format_error e;
        if (v && mcp_format_check(t->format, v, n->a, &canon, &oom, &e) && canon)
            c_string(b, canon, strlen(canon));
        else
            mcp_buf_puts(b, "NULL");
        return;
    }
    case IR_INT:
    case IR_FLOAT:
        if (v)
            number(b, v, t->kind == IR_FLOAT);
        else
            mcp_buf_puts(b, t->kind == IR_FLOAT ? "0.0" : "0");
        return;
    case IR_BOOL:
        mcp_buf_puts(b, v && v->b ? "true" : "false");
        return;
    case IR_STR:
        if (v)
            c_string(b, v->s, v->len);
        else
            mcp_buf_puts(b, "NULL");
        return;
    case IR_BYTES:
        if (v) {
            mcp_buf_printf(b, "{%zu, ", v->len);
            c_string(b, v->s, v->len);
            mcp_buf_putc(b, '}');
        } else {
            mcp_buf_puts(b, "{0, NULL}");
        }
        return;
    case IR_NONE:
        mcp_buf_puts(b, "{0}");
        return;
    case IR_ANY:
        if (v)
            any_value(n, b, v, false);
        else
            mcp_buf_puts(b, "NULL");
        return;
    case IR_CONTENT:
        return;
    case IR_LIST:
    case IR_SET:
    case IR_DICT:
        items_value(n, b, t, v);
        return;
    case IR_TUPLE:
        mcp_buf_putc(b, '{');
        for (size_t i = 0; i < t->nitems; i++) {
            mcp_buf_puts(b, i ? ", " : "");
            value(n, b, t->items[i], C_HOLD_INDIRECT, v ? v->items[i] : NULL);
        }
        mcp_buf_putc(b, '}');
        return;
    case IR_LITERAL:
        mcp_buf_puts(b, constant(n, t, v));
        return;
    case IR_UNION:
        if (c_is_optional(t) && c_is_object_def(t->items[0])) {
            if (v && v->kind != MCP_JNULL)
                value(n, b, t->items[0], C_HOLD_INDIRECT, v);
            else
                mcp_buf_puts(b, "NULL");
            return;
        }
        if (c_is_optional(t)) {
            bool has = v && v->kind != MCP_JNULL;
            mcp_buf_puts(b, has ? "{true, " : "{false, ");
            value(n, b, t->items[0], C_HOLD_INDIRECT, has ? v : NULL);
            mcp_buf_putc(b, '}');
            return;
        }
        {
            const c_struct *s = c_struct_of(n, t, h);
            assert(s && s->arms); /* every union a default reaches is a registered type */
            size_t arm = 0;
            while (v && arm < t->nitems && !fits(t->items[arm], v))
                arm++;
            if (!v || arm == t->nitems || !s) {
                mcp_buf_puts(b, "{0, {");
                value(n, b, t->items[0], C_HOLD_INDIRECT, NULL);
                mcp_buf_puts(b, "}}");
                return;
            }
            mcp_buf_printf(b, "{%s_%s, {.%s = ", s->name, s->arms[arm], s->arms[arm]);
            value(n, b, t->items[arm], C_HOLD_INDIRECT, v);
            mcp_buf_puts(b, "}}");
        }
        return;
    case IR_NAMED: {
        const ir_def *def = t->def;
        if (def->kind == IR_DEF_ENUM) {
            mcp_buf_puts(b, constant(n, t, v));
            return;
        }
        if (h == C_HOLD_INDIRECT) { /* a pointer */
            if (!v || v->kind == MCP_JNULL) {
                mcp_buf_puts(b, "NULL");
                return;
            }
            mcp_buf_printf(b, "&(const %s)", def->c_name);
            fields_init(n, b, def->fields, def->nfields, def->kind == IR_DEF_RECORD, true, v);
            return;
        }
        if (!v) { /* the type's own */
            mcp_buf_printf(b, C_NAME_INIT_DEFAULT, def->c_name);
            return;
        }
        fields_init(n, b, def->fields, def->nfields, def->kind == IR_DEF_RECORD, true, v);
        return;
    }
    }
}

void c_init_fields(c_names *n, mcp_buf *b, const ir_field *fields, size_t nfields, bool record, bool defaults)
{
    if (defaults) {
        fields_init(n, b, fields, nfields, record, true, NULL);
        return;
    }
    /* Zero: nested models by value are their own _init_zero. */
    if (nfields == 0) {
        mcp_buf_puts(b, "{0}");
        return;
    }
    mcp_buf_putc(b, '{');
    for (size_t i = 0; i < nfields; i++) {
        const ir_field *f = &fields[i];
        mcp_buf_puts(b, i ? ", " : "");
        if (c_is_object_def(f->type))
            mcp_buf_printf(b, C_NAME_INIT_ZERO, f->type->def->c_name);
        else
            value(n, b, f->type, C_HOLD_VALUE, NULL);
        if (record && !f->required)
            mcp_buf_puts(b, ", false");
    }
    mcp_buf_putc(b, '}');
}
