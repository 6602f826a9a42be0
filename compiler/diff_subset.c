/* diff_subset.c: whether every value of one type is a value of another
 * (diff_int.h): the test that decides a change the direct comparison of
 * diff_types.c cannot, such as int to float, or a union member covered by
 * another; and the bounds and constant values both use.
 */
#include <math.h>
#include <string.h>

#include "diff_int.h"

bound dx_lower_of(const ir_constraints *c)
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

bound dx_upper_of(const ir_constraints *c)
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
int dx_tighter(bound x, bound y, bool upper)
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

/* Whether every multiple of x is a multiple of y (y == 0: no constraint). */
bool dx_multiple_within(double x, double y)
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
    if (dx_tighter(dx_lower_of(o), dx_lower_of(n), false) > 0 || dx_tighter(dx_upper_of(o), dx_upper_of(n), true) > 0)
        return false;
    if (n->has_multiple_of &&
        !(o->has_multiple_of && dx_multiple_within(ir_number_value(o->multiple_of), ir_number_value(n->multiple_of))))
        return false;
    if ((n->has_min_length ? n->min_length : 0) > (o->has_min_length ? o->min_length : 0))
        return false;
    if (n->has_max_length && !(o->has_max_length && o->max_length <= n->max_length))
        return false;
    if ((n->has_min_items ? n->min_items : 0) > (o->has_min_items ? o->min_items : 0))
        return false;
    if (n->has_max_items && !(o->has_max_items && o->max_items <= n->max_items))
        return false;
    if (n->pattern && !dx_str_eq(o->pattern, n->pattern))
        return false;
    return true;
}

bool dx_is_enum(const ir_type *t) { return t->kind == IR_NAMED && t->def->kind == IR_DEF_ENUM; }

/* The constant values of a Literal or an enum. */
const mcp_json *const *dx_values_of(const ir_type *t, size_t *n)
{
    if (t->kind == IR_LITERAL) {
        *n = t->nvalues;
        return (const mcp_json *const *)t->values;
    }
    *n = t->def->nvalues;
    return (const mcp_json *const *)t->def->values;
}

bool dx_has_value(const mcp_json *const *vs, size_t n, const mcp_json *v)
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
    case IR_ANY:
        return true;
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            if (value_in(v, t->items[i]))
                return true;
        return false;
    case IR_LITERAL:
        return dx_has_value((const mcp_json *const *)t->values, t->nvalues, v);
    case IR_NAMED:
        return t->def->kind == IR_DEF_ENUM && dx_has_value((const mcp_json *const *)t->def->values, t->def->nvalues, v);
    case IR_INT:
    case IR_FLOAT: {
        if (v->kind != MCP_JINT && !(t->kind == IR_FLOAT && v->kind == MCP_JFLOAT))
            return false;
        double x = v->kind == MCP_JINT ? (double)v->i : v->d;
        bound lo = dx_lower_of(t->c), hi = dx_upper_of(t->c);
        return !(lo.set && (x < lo.v || (lo.excl && x == lo.v))) && !(hi.set && (x > hi.v || (hi.excl && x == hi.v)));
    }
    case IR_STR:
    case IR_BYTES: {
        if (v->kind != MCP_JSTRING)
            return false;
        size_t chars = 0;
        for (size_t i = 0; i < v->len; i++)
            chars += ((unsigned char)v->s[i] & 0xC0) != 0x80;
        if ((t->c->has_min_length && (int64_t)chars < t->c->min_length) ||
            (t->c->has_max_length && (int64_t)chars > t->c->max_length))
            return false;
        return !t->c->pattern || idl_pattern_matches(t->c->pattern, strlen(t->c->pattern), v->s, v->len) == 1;
    }
    case IR_BOOL:
        return v->kind == MCP_JBOOL;
    case IR_NONE:
        return v->kind == MCP_JNULL;
    default:
        return false;
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
        if (of && !dx_sub(d, of->type, nf->type, depth + 1))
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
bool dx_sub(differ *d, const ir_type *o, const ir_type *n, int depth)
{
    if (depth > 32)
        return true;
    if (n->kind == IR_ANY)
        return true;
    if (o->kind == IR_UNION) {
        for (size_t i = 0; i < o->nitems; i++)
            if (!dx_sub(d, o->items[i], n, depth + 1))
                return false;
        return true;
    }
    if (o->kind == IR_LITERAL || dx_is_enum(o)) {
        size_t nv;
        const mcp_json *const *vs = dx_values_of(o, &nv);
        for (size_t i = 0; i < nv; i++)
            if (!value_in(vs[i], n))
                return false;
        return true;
    }
    if (n->kind == IR_UNION) {
        for (size_t i = 0; i < n->nitems; i++)
            if (dx_sub(d, o, n->items[i], depth + 1))
                return true;
        return false;
    }
    switch (o->kind) {
    case IR_INT:
        return (n->kind == IR_INT || n->kind == IR_FLOAT) && constraints_within(o->c, n->c);
    case IR_FLOAT:
        return n->kind == IR_FLOAT && constraints_within(o->c, n->c);
    case IR_STR:
    case IR_BYTES:
        return (n->kind == IR_STR || n->kind == IR_BYTES) && constraints_within(o->c, n->c);
    case IR_BOOL:
    case IR_NONE:
    case IR_CONTENT:
        return n->kind == o->kind;
    case IR_FORMAT:
        /* A format's texts are strings (a decimal may also be a number): within a plain str. */
        if (n->kind == IR_FORMAT)
            return n->format == o->format;
        return o->format != MCP_FMT_DECIMAL && (n->kind == IR_STR || n->kind == IR_BYTES) && !n->c->has_min_length &&
               !n->c->has_max_length && !n->c->pattern;
    case IR_ANY:
        return false;
    case IR_LIST:
    case IR_SET:
        if (n->kind == IR_SET && o->kind != IR_SET)
            return false;
        return (n->kind == IR_LIST || n->kind == IR_SET) && constraints_within(o->c, n->c) &&
               dx_sub(d, o->elem, n->elem, depth + 1);
    case IR_TUPLE:
        if (n->kind == IR_TUPLE) {
            if (n->nitems != o->nitems)
                return false;
            for (size_t i = 0; i < o->nitems; i++)
                if (!dx_sub(d, o->items[i], n->items[i], depth + 1))
                    return false;
            return true;
        }
        if (n->kind != IR_LIST)
            return false;
        if ((n->c->has_min_items && (int64_t)o->nitems < n->c->min_items) ||
            (n->c->has_max_items && (int64_t)o->nitems > n->c->max_items))
            return false;
        for (size_t i = 0; i < o->nitems; i++)
            if (!dx_sub(d, o->items[i], n->elem, depth + 1))
                return false;
        return true;
    case IR_DICT:
        if (n->kind == IR_DICT)
            return (o->int_keys || !n->int_keys) && dx_sub(d, o->elem, n->elem, depth + 1);
        return false;
    case IR_NAMED:
        return n->kind == IR_NAMED && n->def->kind != IR_DEF_ENUM && def_sub(d, o->def, n->def, depth + 1);
    default:
        return false;
    }
}
