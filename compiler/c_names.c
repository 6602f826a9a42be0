/* c_names.c: the C entities of a server and their names (c_names.h). */
#include "c_names.h"

#include <ctype.h>
#include <string.h>

bool c_is_object_def(const ir_type *t)
{
    return t->kind == IR_NAMED && t->def->kind != IR_DEF_ENUM;
}

bool c_is_optional(const ir_type *t)
{
    return t->kind == IR_UNION && t->nitems == 2 && t->items[1]->kind == IR_NONE;
}

static bool push(c_names *n, void ***arr, size_t *len, size_t *cap, void *item);

static void add_struct(c_names *n, c_struct *s)
{
    s->index = n->nstructs;
    push(n, (void ***)&n->structs, &n->nstructs, &n->cap_structs, s);
}

static bool push(c_names *n, void ***arr, size_t *len, size_t *cap, void *item)
{
    if (*len == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        void **na = mcp_arena_realloc(n->a, *arr, *cap * sizeof *na, nc * sizeof *na);
        if (!na) {
            n->oom = true;
            return false;
        }
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*len)++] = item;
    return true;
}

/* ------------------------------------------------------------------ keys and names */

void c_literal_key(mcp_buf *b, const mcp_json *v)
{
    switch (v->kind) {
    case MCP_JSTRING:
        mcp_buf_putc(b, '\'');
        mcp_buf_put(b, v->s, v->len);
        mcp_buf_putc(b, '\'');
        break;
    case MCP_JINT:
        mcp_buf_printf(b, "%lld", (long long)v->i);
        break;
    case MCP_JBOOL:
        mcp_buf_puts(b, v->b ? "True" : "False");
        break;
    default:
        mcp_buf_puts(b, "None");
    }
}

static void number_key(mcp_buf *b, const char *name, bool has, ir_number n)
{
    if (!has)
        return;
    if (n.is_int)
        mcp_buf_printf(b, "%s=%lld;", name, (long long)n.i);
    else
        mcp_buf_printf(b, "%s=%.17g;", name, n.f);
}

static void constraints_key(mcp_buf *b, const ir_constraints *c)
{
    size_t mark = b->len;
    mcp_buf_putc(b, '{');
    number_key(b, "min", c->has_minimum, c->minimum);
    number_key(b, "max", c->has_maximum, c->maximum);
    number_key(b, "xmin", c->has_exclusive_minimum, c->exclusive_minimum);
    number_key(b, "xmax", c->has_exclusive_maximum, c->exclusive_maximum);
    number_key(b, "mul", c->has_multiple_of, c->multiple_of);
    if (c->has_min_length) mcp_buf_printf(b, "minl=%lld;", (long long)c->min_length);
    if (c->has_max_length) mcp_buf_printf(b, "maxl=%lld;", (long long)c->max_length);
    if (c->has_min_items) mcp_buf_printf(b, "mini=%lld;", (long long)c->min_items);
    if (c->has_max_items) mcp_buf_printf(b, "maxi=%lld;", (long long)c->max_items);
    if (c->pattern) {
        mcp_buf_puts(b, "pat=");
        mcp_buf_puts(b, c->pattern);
        mcp_buf_putc(b, ';');
    }
    if (b->len == mark + 1)
        b->len = mark; /* no constraints: no braces */
    else
        mcp_buf_putc(b, '}');
    if (b->data)
        b->data[b->len] = 0;
}

/* The structural key of a use of t. With `full`, constraints and spelling
 * (tuple[T, ...]) count: that is the descriptor's key; without, the C type's. */
static void type_key(mcp_buf *b, const ir_type *t, c_hold h, bool full)
{
    static const char *const SCALAR[] = {[IR_INT] = "int", [IR_FLOAT] = "float", [IR_STR] = "str",
                                         [IR_BOOL] = "bool", [IR_BYTES] = "bytes", [IR_NONE] = "None",
                                         [IR_ANY] = "any"};
    switch (t->kind) {
    case IR_INT:
    case IR_FLOAT:
    case IR_STR:
    case IR_BOOL:
    case IR_BYTES:
    case IR_NONE:
    case IR_ANY:
        mcp_buf_puts(b, SCALAR[t->kind]);
        break;
    case IR_LIST:
        mcp_buf_puts(b, full && t->tuple_variadic ? "tuple*[" : "list[");
        type_key(b, t->elem, C_HOLD_VALUE, full);
        mcp_buf_putc(b, ']');
        break;
    case IR_SET:
        mcp_buf_puts(b, "set[");
        type_key(b, t->elem, C_HOLD_VALUE, full);
        mcp_buf_putc(b, ']');
        break;
    case IR_DICT:
        mcp_buf_puts(b, t->int_keys ? "dict[int," : "dict[str,");
        type_key(b, t->elem, C_HOLD_VALUE, full);
        mcp_buf_putc(b, ']');
        break;
    case IR_TUPLE:
    case IR_UNION:
        if (c_is_optional(t) && c_is_object_def(t->items[0])) {
            mcp_buf_puts(b, "nptr[");
            mcp_buf_puts(b, t->items[0]->def->name);
            mcp_buf_putc(b, ']');
            break;
        }
        mcp_buf_puts(b, t->kind == IR_TUPLE ? "tuple[" : c_is_optional(t) ? "opt[" : "union[");
        for (size_t i = 0; i < (c_is_optional(t) ? 1 : t->nitems); i++) {
            if (i)
                mcp_buf_putc(b, ',');
            type_key(b, t->items[i], C_HOLD_INDIRECT, full);
        }
        mcp_buf_putc(b, ']');
        break;
    case IR_LITERAL:
        mcp_buf_puts(b, "Literal[");
        for (size_t i = 0; i < t->nvalues; i++) {
            if (i)
                mcp_buf_putc(b, ',');
            c_literal_key(b, t->values[i]);
        }
        mcp_buf_putc(b, ']');
        break;
    case IR_NAMED:
        if (h == C_HOLD_INDIRECT && c_is_object_def(t))
            mcp_buf_puts(b, "ptr[");
        mcp_buf_puts(b, t->def->name);
        if (h == C_HOLD_INDIRECT && c_is_object_def(t))
            mcp_buf_putc(b, ']');
        break;
    case IR_CONTENT:
        mcp_buf_puts(b, "content");
        break;
    }
    if (full)
        constraints_key(b, &t->c);
}

const char *c_key_of(c_names *n, const ir_type *t, c_hold h, bool full)
{
    mcp_buf b;
    mcp_buf_init(&b);
    type_key(&b, t, h, full);
    const char *k = mcp_arena_strndup(n->a, b.data ? b.data : "", b.len);
    if (b.oom || !k)
        n->oom = true;
    mcp_buf_free(&b);
    return k ? k : "";
}

/* A C-identifier piece for a literal value. */
static void literal_ident(mcp_buf *b, const mcp_json *v)
{
    switch (v->kind) {
    case MCP_JSTRING: {
        if (!v->len)
            mcp_buf_puts(b, "empty");
        for (size_t i = 0; i < v->len; i++) {
            unsigned char ch = (unsigned char)v->s[i];
            if (isalnum(ch) || ch == '_')
                mcp_buf_putc(b, (char)ch);
            else if ((ch & 0xC0) != 0x80)
                mcp_buf_putc(b, '_');
        }
        break;
    }
    case MCP_JINT:
        if (v->i < 0)
            mcp_buf_printf(b, "m%llu", (unsigned long long)(0 - (uint64_t)v->i));
        else
            mcp_buf_printf(b, "%lld", (long long)v->i);
        break;
    case MCP_JBOOL:
        mcp_buf_puts(b, v->b ? "true" : "false");
        break;
    default:
        mcp_buf_puts(b, "none");
    }
}

/* The name piece of a type, without the prefix: str_list, WeatherData_opt. */
static void base_name(c_names *n, mcp_buf *b, const ir_type *t)
{
    static const char *const SCALAR[] = {[IR_INT] = "int", [IR_FLOAT] = "float", [IR_STR] = "str",
                                         [IR_BOOL] = "bool", [IR_BYTES] = "bytes", [IR_NONE] = "none",
                                         [IR_ANY] = "any"};
    switch (t->kind) {
    case IR_LIST:
        base_name(n, b, t->elem);
        mcp_buf_puts(b, "_list");
        return;
    case IR_SET:
        base_name(n, b, t->elem);
        mcp_buf_puts(b, "_set");
        return;
    case IR_DICT:
        base_name(n, b, t->elem);
        mcp_buf_puts(b, t->int_keys ? "_intdict" : "_dict");
        return;
    case IR_TUPLE:
        mcp_buf_puts(b, "tuple");
        for (size_t i = 0; i < t->nitems; i++) {
            mcp_buf_putc(b, '_');
            base_name(n, b, t->items[i]);
        }
        return;
    case IR_UNION:
        if (c_is_optional(t)) {
            base_name(n, b, t->items[0]);
            mcp_buf_puts(b, "_opt");
            return;
        }
        for (size_t i = 0; i < t->nitems; i++) {
            if (i)
                mcp_buf_puts(b, "_or_");
            base_name(n, b, t->items[i]);
        }
        return;
    case IR_LITERAL: {
        size_t mark = b->len;
        mcp_buf_puts(b, "lit");
        for (size_t i = 0; i < t->nvalues; i++) {
            mcp_buf_putc(b, '_');
            literal_ident(b, t->values[i]);
        }
        if (b->len - mark > 40) {
            b->len = mark;
            mcp_buf_printf(b, "literal%zu", ++n->nlits);
        }
        return;
    }
    case IR_NAMED:
        mcp_buf_puts(b, t->def->name);
        return;
    case IR_CONTENT:
        mcp_buf_puts(b, "content");
        return;
    default:
        mcp_buf_puts(b, SCALAR[t->kind]);
    }
}

static bool name_taken(c_names *n, const char *name)
{
    for (size_t i = 0; i < n->nstructs; i++)
        if (strcmp(n->structs[i]->name, name) == 0)
            return true;
    for (size_t i = 0; i < n->srv->ndefs; i++)
        if (strcmp(n->srv->defs[i]->c_name, name) == 0)
            return true;
    return false;
}

/* ------------------------------------------------------------------ C types */

c_struct *c_struct_find(const c_names *n, const char *key)
{
    for (size_t i = 0; i < n->nstructs; i++)
        if (strcmp(n->structs[i]->key, key) == 0)
            return n->structs[i];
    return NULL;
}


/* Register the composite (or Literal) C type of t and return its name. */
static const char *composite(c_names *n, const ir_type *t, c_hold h)
{
    const char *key = c_key_of(n, t, h, false);
    c_struct *s = c_struct_find(n, key);
    if (s)
        return s->name;
    s = mcp_arena_alloc(n->a, sizeof *s);
    if (!s) {
        n->oom = true;
        return "void";
    }
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_printf(&b, "%s_", n->prefix);
    base_name(n, &b, t);
    const char *name = mcp_arena_strndup(n->a, b.data ? b.data : "x", b.len);
    mcp_buf_free(&b);
    for (int k = 2; name_taken(n, name); k++)
        name = c_fmt(n, "%.*s_%d", (int)strcspn(name, ""), name, k);
    *s = (c_struct){.key = key, .name = name, .t = t, .h = h, .is_enum = t->kind == IR_LITERAL};
    add_struct(n, s);
    /* register what it contains */
    switch (t->kind) {
    case IR_LIST:
    case IR_SET:
    case IR_DICT:
        c_type_of(n, t->elem, C_HOLD_VALUE);
        break;
    case IR_TUPLE:
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            c_type_of(n, t->items[i], C_HOLD_INDIRECT);
        break;
    default:
        break;
    }
    return name;
}

/* The C spelling of a use of t ("int64_t", "const char *", "weather_str_list"). */
const char *c_type_of(c_names *n, const ir_type *t, c_hold h)
{
    switch (t->kind) {
    case IR_INT:
        return "int64_t";
    case IR_FLOAT:
        return "double";
    case IR_STR:
        return "const char *";
    case IR_BOOL:
        return "bool";
    case IR_BYTES:
        return "mcp_bytes";
    case IR_NONE:
        return "mcp_none";
    case IR_ANY:
        return "const mcp_json *";
    case IR_NAMED:
        if (h == C_HOLD_INDIRECT && c_is_object_def(t))
            return c_fmt(n, "const %s *", t->def->c_name);
        return t->def->c_name;
    case IR_UNION:
        if (c_is_optional(t) && c_is_object_def(t->items[0]))
            return c_fmt(n, "const %s *", t->items[0]->def->c_name);
        return composite(n, t, h);
    case IR_CONTENT:
        return "void";
    default:
        return composite(n, t, h);
    }
}

const char *c_arm_member(c_names *n, const ir_type *u, size_t index)
{
    const ir_type *t = u->items[index];
    mcp_buf b;
    mcp_buf_init(&b);
    base_name(n, &b, t);
    const char *name = mcp_arena_strndup(n->a, b.data ? b.data : "arm", b.len);
    mcp_buf_free(&b);
    if (idl_is_c_keyword(name))
        name = c_fmt(n, "%s_", name);
    /* two arms may share a name piece (int with two sets of constraints) */
    for (size_t j = 0; j < index; j++) {
        mcp_buf o;
        mcp_buf_init(&o);
        base_name(n, &o, u->items[j]);
        bool same = o.data && strcmp(o.data, name) == 0;
        mcp_buf_free(&o);
        if (same)
            return c_fmt(n, "%s_%zu", name, index + 1);
    }
    return name;
}

const char *c_literal_const(c_names *n, const char *type_name, const mcp_json *const *values, size_t i)
{
    mcp_buf b;
    mcp_buf_init(&b);
    literal_ident(&b, values[i]);
    const char *piece = mcp_arena_strndup(n->a, b.data ? b.data : "v", b.len);
    mcp_buf_free(&b);
    for (size_t j = 0; j < i; j++) {
        mcp_buf o;
        mcp_buf_init(&o);
        literal_ident(&o, values[j]);
        bool same = o.data && strcmp(o.data, piece) == 0;
        mcp_buf_free(&o);
        if (same)
            return c_fmt(n, "%s_%s_%zu", type_name, piece, i + 1);
    }
    return c_fmt(n, "%s_%s", type_name, piece);
}

/* ------------------------------------------------------------------ descriptors */

static c_desc *find_desc(const c_names *n, const char *key)
{
    for (size_t i = 0; i < n->ndescs; i++)
        if (strcmp(n->descs[i]->key, key) == 0)
            return n->descs[i];
    return NULL;
}

static c_desc *new_desc(c_names *n, const char *key, const ir_type *t, c_hold h)
{
    c_desc *d = mcp_arena_alloc(n->a, sizeof *d);
    if (!d) {
        n->oom = true;
        return NULL;
    }
    *d = (c_desc){.key = key, .t = t, .h = h, .name = c_fmt(n, "td_%zu", n->ndescs)};
    push(n, (void ***)&n->descs, &n->ndescs, &n->cap_descs, d);
    return d;
}

static const char *desc_of(c_names *n, const ir_type *t, c_hold h);

/* An object's descriptor: its fields' descriptors first. */
static void object_desc(c_names *n, c_desc *d, const char *cname, const char *title, const ir_field *fields,
                        size_t nfields, bool forbid, bool record)
{
    d->object = true;
    d->ctype = cname;
    d->title = title;
    d->fields = fields;
    d->nfields = nfields;
    d->forbid = forbid;
    d->record = record;
    d->field_descs = mcp_arena_alloc(n->a, (nfields ? nfields : 1) * sizeof *d->field_descs);
    if (!d->field_descs) {
        n->oom = true;
        return;
    }
    for (size_t i = 0; i < nfields; i++)
        d->field_descs[i] = desc_of(n, fields[i].type, C_HOLD_VALUE);
    push(n, (void ***)&n->bodies, &n->nbodies, &n->cap_bodies, d);
}

static const char *desc_of(c_names *n, const ir_type *t, c_hold h)
{
    const char *key = c_key_of(n, t, h, true);
    c_desc *d = find_desc(n, key);
    if (d)
        return d->name;
    d = new_desc(n, key, t, h);
    if (!d)
        return "td_oom";
    d->ctype = c_type_of(n, t, h);

    /* A model or record held by pointer. */
    d->ptr = (t->kind == IR_NAMED && h == C_HOLD_INDIRECT && c_is_object_def(t)) ||
             (c_is_optional(t) && c_is_object_def(t->items[0]));
    if (d->ptr) {
        d->elem = desc_of(n, t->kind == IR_NAMED ? t : t->items[0], C_HOLD_VALUE);
    } else if (t->kind == IR_NAMED && t->def->kind != IR_DEF_ENUM) {
        const ir_def *def = t->def;
        object_desc(n, d, def->c_name, def->name, def->fields, def->nfields, def->extra_forbid,
                    def->kind == IR_DEF_RECORD);
        return d->name;
    } else if (t->kind == IR_LIST || t->kind == IR_SET || t->kind == IR_DICT) {
        d->elem = desc_of(n, t->elem, C_HOLD_VALUE);
    } else if (c_is_optional(t)) {
        d->elem = desc_of(n, t->items[0], C_HOLD_INDIRECT);
    } else if (t->kind == IR_TUPLE || t->kind == IR_UNION) {
        d->items = mcp_arena_alloc(n->a, t->nitems * sizeof *d->items);
        if (!d->items) {
            n->oom = true;
            return d->name;
        }
        for (size_t i = 0; i < t->nitems; i++)
            d->items[i] = desc_of(n, t->items[i], C_HOLD_INDIRECT);
    }
    push(n, (void ***)&n->bodies, &n->nbodies, &n->cap_bodies, d);
    return d->name;
}

/* ------------------------------------------------------------------ the model */

c_names *c_names_new(mcp_arena *a, const ir_server *srv)
{
    c_names *n = mcp_arena_alloc(a, sizeof *n);
    if (!n)
        return NULL;
    *n = (c_names){.a = a, .srv = srv, .prefix = srv->c_prefix};
    /* Every named type, then every tool's arguments and result. */
    for (size_t i = 0; i < srv->ndefs; i++) {
        const ir_def *d = srv->defs[i];
        c_struct *s = mcp_arena_alloc(a, sizeof *s);
        if (!s)
            return NULL;
        *s = (c_struct){.key = d->name, .name = d->c_name, .def = d, .is_enum = d->kind == IR_DEF_ENUM};
        add_struct(n, s);
    }
    for (size_t i = 0; i < srv->ndefs; i++)
        for (size_t j = 0; j < srv->defs[i]->nfields; j++)
            c_type_of(n, srv->defs[i]->fields[j].type, C_HOLD_VALUE);
    n->args_desc = mcp_arena_alloc(a, (srv->ntools ? srv->ntools : 1) * sizeof *n->args_desc);
    n->result_desc = mcp_arena_alloc(a, (srv->ntools ? srv->ntools : 1) * sizeof *n->result_desc);
    n->form_desc = mcp_arena_alloc(a, (srv->nelicitations ? srv->nelicitations : 1) * sizeof *n->form_desc);
    if (!n->args_desc || !n->result_desc || !n->form_desc)
        return NULL;
    for (size_t i = 0; i < srv->ntools; i++) {
        const ir_tool *t = &srv->tools[i];
        c_struct *s = mcp_arena_alloc(a, sizeof *s);
        if (!s)
            return NULL;
        *s = (c_struct){.key = c_fmt(n, "args:%s", t->name), .name = c_fmt(n, "%s_%s_args", n->prefix, t->c_name),
                        .args_of = t};
        add_struct(n, s);
        for (size_t j = 0; j < t->nparams; j++)
            c_type_of(n, t->params[j].type, C_HOLD_VALUE);
        if (t->returns)
            c_out_type(n, t);
    }
    for (size_t i = 0; i < srv->nelicitations; i++) {
        const ir_elicitation *e = &srv->elicitations[i];
        c_struct *s = mcp_arena_alloc(a, sizeof *s);
        if (!s)
            return NULL;
        *s = (c_struct){.key = c_fmt(n, "form:%s", e->name), .name = c_fmt(n, "%s_%s_form", n->prefix, e->c_name),
                        .form_of = e};
        add_struct(n, s);
        for (size_t j = 0; j < e->nfields; j++)
            c_type_of(n, e->fields[j].type, C_HOLD_VALUE);
    }
    /* Descriptors (this also registers every C type a descriptor needs). */
    for (size_t i = 0; i < srv->ntools; i++) {
        const ir_tool *t = &srv->tools[i];
        c_desc *d = new_desc(n, c_fmt(n, "args:%s", t->name), NULL, C_HOLD_VALUE);
        if (!d)
            return NULL;
        object_desc(n, d, c_fmt(n, "%s_%s_args", n->prefix, t->c_name), c_fmt(n, "%sArguments", t->name), t->params,
                    t->nparams, t->extra_forbid, false);
        n->args_desc[i] = d->name;
        n->result_desc[i] = t->returns && t->returns->kind != IR_CONTENT ? desc_of(n, t->returns, C_HOLD_VALUE) : NULL;
    }
    for (size_t i = 0; i < srv->nelicitations; i++) {
        const ir_elicitation *e = &srv->elicitations[i];
        c_desc *d = new_desc(n, c_fmt(n, "form:%s", e->name), NULL, C_HOLD_VALUE);
        if (!d)
            return NULL;
        object_desc(n, d, c_fmt(n, "%s_%s_form", n->prefix, e->c_name), e->name, e->fields, e->nfields, false, true);
        n->form_desc[i] = d->name;
    }
    return n->oom ? NULL : n;
}
