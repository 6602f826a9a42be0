/* emit_c.c: IR -> NAME.mcp.h and NAME.mcp.c (and NAME.mock.c).
 *
 * Every IR type used by the IDL gets two things: a C type a handler fills (the
 * mapping of lib/include/mcpidl/types.h; composite types are named after their
 * structure: list[str] is PREFIX_str_list) and a const descriptor the runtime's
 * codec reads (one per distinct type with its constraints). Both are found by
 * structural keys, so each is written once however often it is used.
 */
#include "emit_c.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "emit_beyond.h"
#include "emit_schema.h"

/* How a use of a type is held in C. Models and records inside Optional[...],
 * unions and tuples are held by pointer (which also lets a type refer to itself). */
/* The ABI of the code written here (MCPIDL_ABI in mcpidl.h). */
#define GENERATED_ABI 2

typedef enum hold { HOLD_VALUE, HOLD_INDIRECT } hold;

typedef struct cstruct cstruct;

/* A C type the header declares: an object (model, record, a tool's arguments),
 * a composite (list, dict, Optional, tuple, union) or an enum (enum, Literal). */
struct cstruct {
    const char *key;          /* structural key, without constraints */
    const char *name;         /* the C name */
    const ir_type *t;         /* representative (NULL for a tool's arguments) */
    hold h;
    const ir_def *def;        /* model, record, enum */
    const ir_tool *args_of;   /* a tool's arguments */
    const ir_elicitation *form_of; /* an elicitation's form */
    bool is_enum;
    bool emitted, visiting;
};

/* A descriptor the source defines. */
typedef struct desc {
    const char *key;
    const char *name;
    const ir_type *t;
    hold h;
    const ir_tool *args_of;
} desc;

typedef struct gen {
    mcp_arena *a;
    const ir_server *srv;
    const char *prefix;
    cstruct **structs;
    size_t nstructs, cap_structs;
    desc **descs;
    size_t ndescs, cap_descs;
    size_t npatterns;
    size_t nlits;
    mcp_buf *h, *c;
    mcp_buf defs;             /* descriptor bodies, written after the forward declarations */
    bool oom;
} gen;

/* ------------------------------------------------------------------ small helpers */

static char *fmt(gen *g, const char *f, ...) __attribute__((format(printf, 2, 3)));
static char *fmt(gen *g, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    mcp_buf b;
    mcp_buf_init(&b);
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, f, aq);
    va_end(aq);
    char *p = n < 0 ? NULL : mcp_arena_alloc(g->a, (size_t)n + 1);
    if (p)
        vsnprintf(p, (size_t)n + 1, f, ap);
    else
        g->oom = true;
    va_end(ap);
    mcp_buf_free(&b);
    return p ? p : (char *)"";
}

static bool push(gen *g, void ***arr, size_t *n, size_t *cap, void *item)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        void **na = mcp_arena_realloc(g->a, *arr, *cap * sizeof *na, nc * sizeof *na);
        if (!na) {
            g->oom = true;
            return false;
        }
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = item;
    return true;
}

/* A C string literal (UTF-8 kept raw; '?' escaped after '?' against trigraphs). */
static void c_string(mcp_buf *b, const char *s, size_t n)
{
    mcp_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            mcp_buf_printf(b, "\\%c", ch);
        else if (ch == '\n')
            mcp_buf_puts(b, "\\n");
        else if (ch == '\t')
            mcp_buf_puts(b, "\\t");
        else if (ch < 0x20 || ch == 0x7f)
            mcp_buf_printf(b, "\\%03o", ch);
        else if (ch == '?' && i > 0 && s[i - 1] == '?')
            mcp_buf_puts(b, "\\?");
        else
            mcp_buf_putc(b, (char)ch);
    }
    mcp_buf_putc(b, '"');
}

/* A long C string literal, split into pieces of at most ~100 bytes per line. */
static void c_string_long(mcp_buf *b, const char *s, size_t n, const char *indent)
{
    if (n <= 100) {
        c_string(b, s, n);
        return;
    }
    for (size_t i = 0; i < n;) {
        size_t k = n - i > 100 ? 100 : n - i;
        while (i + k < n && ((unsigned char)s[i + k] & 0xC0) == 0x80)
            k++; /* keep a UTF-8 character whole */
        if (i)
            mcp_buf_printf(b, "\n%s", indent);
        c_string(b, s + i, k);
        i += k;
    }
}

/* A comment-safe copy of a description's first line. */
/* (Never NULL: "" for no text, or when out of memory, which g->oom records.) */
static const char *comment_text(gen *g, const char *s)
{
    if (!s)
        return "";
    size_t n = strcspn(s, "\n");
    char *t = mcp_arena_strndup(g->a, s, n > 120 ? 120 : n);
    if (!t) {
        g->oom = true;
        return "";
    }
    for (char *p = t; *p; p++)
        if (p[0] == '*' && p[1] == '/')
            p[1] = ' ';
    return t;
}

static bool is_object_def(const ir_type *t)
{
    return t->kind == IR_NAMED && t->def->kind != IR_DEF_ENUM;
}

static bool is_optional(const ir_type *t)
{
    return t->kind == IR_UNION && t->nitems == 2 && t->items[1]->kind == IR_NONE;
}

/* ------------------------------------------------------------------ keys and names */

static void literal_key(mcp_buf *b, const mcp_json *v)
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
static void type_key(mcp_buf *b, const ir_type *t, hold h, bool full)
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
        type_key(b, t->elem, HOLD_VALUE, full);
        mcp_buf_putc(b, ']');
        break;
    case IR_SET:
        mcp_buf_puts(b, "set[");
        type_key(b, t->elem, HOLD_VALUE, full);
        mcp_buf_putc(b, ']');
        break;
    case IR_DICT:
        mcp_buf_puts(b, t->int_keys ? "dict[int," : "dict[str,");
        type_key(b, t->elem, HOLD_VALUE, full);
        mcp_buf_putc(b, ']');
        break;
    case IR_TUPLE:
    case IR_UNION:
        if (is_optional(t) && is_object_def(t->items[0])) {
            mcp_buf_puts(b, "nptr[");
            mcp_buf_puts(b, t->items[0]->def->name);
            mcp_buf_putc(b, ']');
            break;
        }
        mcp_buf_puts(b, t->kind == IR_TUPLE ? "tuple[" : is_optional(t) ? "opt[" : "union[");
        for (size_t i = 0; i < (is_optional(t) ? 1 : t->nitems); i++) {
            if (i)
                mcp_buf_putc(b, ',');
            type_key(b, t->items[i], HOLD_INDIRECT, full);
        }
        mcp_buf_putc(b, ']');
        break;
    case IR_LITERAL:
        mcp_buf_puts(b, "Literal[");
        for (size_t i = 0; i < t->nvalues; i++) {
            if (i)
                mcp_buf_putc(b, ',');
            literal_key(b, t->values[i]);
        }
        mcp_buf_putc(b, ']');
        break;
    case IR_NAMED:
        if (h == HOLD_INDIRECT && is_object_def(t))
            mcp_buf_puts(b, "ptr[");
        mcp_buf_puts(b, t->def->name);
        if (h == HOLD_INDIRECT && is_object_def(t))
            mcp_buf_putc(b, ']');
        break;
    case IR_CONTENT:
        mcp_buf_puts(b, "content");
        break;
    }
    if (full)
        constraints_key(b, &t->c);
}

static const char *key_of(gen *g, const ir_type *t, hold h, bool full)
{
    mcp_buf b;
    mcp_buf_init(&b);
    type_key(&b, t, h, full);
    const char *k = mcp_arena_strndup(g->a, b.data ? b.data : "", b.len);
    if (b.oom || !k)
        g->oom = true;
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
static void base_name(gen *g, mcp_buf *b, const ir_type *t)
{
    static const char *const SCALAR[] = {[IR_INT] = "int", [IR_FLOAT] = "float", [IR_STR] = "str",
                                         [IR_BOOL] = "bool", [IR_BYTES] = "bytes", [IR_NONE] = "none",
                                         [IR_ANY] = "any"};
    switch (t->kind) {
    case IR_LIST:
        base_name(g, b, t->elem);
        mcp_buf_puts(b, "_list");
        return;
    case IR_SET:
        base_name(g, b, t->elem);
        mcp_buf_puts(b, "_set");
        return;
    case IR_DICT:
        base_name(g, b, t->elem);
        mcp_buf_puts(b, t->int_keys ? "_intdict" : "_dict");
        return;
    case IR_TUPLE:
        mcp_buf_puts(b, "tuple");
        for (size_t i = 0; i < t->nitems; i++) {
            mcp_buf_putc(b, '_');
            base_name(g, b, t->items[i]);
        }
        return;
    case IR_UNION:
        if (is_optional(t)) {
            base_name(g, b, t->items[0]);
            mcp_buf_puts(b, "_opt");
            return;
        }
        for (size_t i = 0; i < t->nitems; i++) {
            if (i)
                mcp_buf_puts(b, "_or_");
            base_name(g, b, t->items[i]);
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
            mcp_buf_printf(b, "literal%zu", ++g->nlits);
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

static bool name_taken(gen *g, const char *name)
{
    for (size_t i = 0; i < g->nstructs; i++)
        if (strcmp(g->structs[i]->name, name) == 0)
            return true;
    for (size_t i = 0; i < g->srv->ndefs; i++)
        if (strcmp(g->srv->defs[i]->c_name, name) == 0)
            return true;
    return false;
}

/* ------------------------------------------------------------------ C types */

static cstruct *find_struct(gen *g, const char *key)
{
    for (size_t i = 0; i < g->nstructs; i++)
        if (strcmp(g->structs[i]->key, key) == 0)
            return g->structs[i];
    return NULL;
}

static const char *ctype(gen *g, const ir_type *t, hold h);

/* Register the composite (or Literal) C type of t and return its name. */
static const char *composite(gen *g, const ir_type *t, hold h)
{
    const char *key = key_of(g, t, h, false);
    cstruct *s = find_struct(g, key);
    if (s)
        return s->name;
    s = mcp_arena_alloc(g->a, sizeof *s);
    if (!s) {
        g->oom = true;
        return "void";
    }
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_printf(&b, "%s_", g->prefix);
    base_name(g, &b, t);
    const char *name = mcp_arena_strndup(g->a, b.data ? b.data : "x", b.len);
    mcp_buf_free(&b);
    for (int n = 2; name_taken(g, name); n++)
        name = fmt(g, "%.*s_%d", (int)strcspn(name, ""), name, n);
    *s = (cstruct){.key = key, .name = name, .t = t, .h = h, .is_enum = t->kind == IR_LITERAL};
    push(g, (void ***)&g->structs, &g->nstructs, &g->cap_structs, s);
    /* register what it contains */
    switch (t->kind) {
    case IR_LIST:
    case IR_SET:
    case IR_DICT:
        ctype(g, t->elem, HOLD_VALUE);
        break;
    case IR_TUPLE:
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            ctype(g, t->items[i], HOLD_INDIRECT);
        break;
    default:
        break;
    }
    return name;
}

/* The C spelling of a use of t ("int64_t", "const char *", "weather_str_list"). */
static const char *ctype(gen *g, const ir_type *t, hold h)
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
        if (h == HOLD_INDIRECT && is_object_def(t))
            return fmt(g, "const %s *", t->def->c_name);
        return t->def->c_name;
    case IR_UNION:
        if (is_optional(t) && is_object_def(t->items[0]))
            return fmt(g, "const %s *", t->items[0]->def->c_name);
        return composite(g, t, h);
    case IR_CONTENT:
        return "void";
    default:
        return composite(g, t, h);
    }
}

/* "TYPE name" with the '*' next to the name. */
static void member(mcp_buf *b, const char *type, const char *name)
{
    size_t n = strlen(type);
    if (n && type[n - 1] == '*')
        mcp_buf_printf(b, "%s%s", type, name);
    else
        mcp_buf_printf(b, "%s %s", type, name);
}

/* The member name of a union arm. */
static const char *arm_member(gen *g, const ir_type *t, size_t index, const ir_type *u)
{
    mcp_buf b;
    mcp_buf_init(&b);
    base_name(g, &b, t);
    const char *n = mcp_arena_strndup(g->a, b.data ? b.data : "arm", b.len);
    mcp_buf_free(&b);
    if (idl_is_c_keyword(n))
        n = fmt(g, "%s_", n);
    /* two arms may share a name piece (int with two sets of constraints) */
    for (size_t j = 0; j < index; j++) {
        mcp_buf o;
        mcp_buf_init(&o);
        base_name(g, &o, u->items[j]);
        bool same = o.data && strcmp(o.data, n) == 0;
        mcp_buf_free(&o);
        if (same)
            return fmt(g, "%s_%zu", n, index + 1);
    }
    return n;
}

static const char *literal_const(gen *g, const char *type_name, const ir_type *t, size_t i)
{
    mcp_buf b;
    mcp_buf_init(&b);
    literal_ident(&b, t->values[i]);
    const char *piece = mcp_arena_strndup(g->a, b.data ? b.data : "v", b.len);
    mcp_buf_free(&b);
    for (size_t j = 0; j < i; j++) {
        mcp_buf o;
        mcp_buf_init(&o);
        literal_ident(&o, t->values[j]);
        bool same = o.data && strcmp(o.data, piece) == 0;
        mcp_buf_free(&o);
        if (same)
            return fmt(g, "%s_%s_%zu", type_name, piece, i + 1);
    }
    return fmt(g, "%s_%s", type_name, piece);
}

static void emit_enum(gen *g, const char *name, const ir_type *lit, const ir_def *def)
{
    mcp_buf *h = g->h;
    if (def) {
        mcp_buf_printf(h, "/* %s (enum)%s%s */\n", def->name, def->description ? ": " : "",
                       def->description ? comment_text(g, def->description) : "");
        mcp_buf_printf(h, "typedef enum %s {\n", name);
        for (size_t i = 0; i < def->nvalues; i++) {
            ir_type fake = {.kind = IR_LITERAL, .values = def->values, .nvalues = def->nvalues};
            mcp_buf_printf(h, "    %s,%s", literal_const(g, name, &fake, i), "");
            mcp_buf b;
            mcp_buf_init(&b);
            literal_key(&b, def->values[i]);
            mcp_buf_printf(h, " /* %s */\n", b.data ? comment_text(g, b.data) : "");
            mcp_buf_free(&b);
        }
    } else {
        mcp_buf b;
        mcp_buf_init(&b);
        type_key(&b, lit, HOLD_VALUE, false);
        mcp_buf_printf(h, "/* %s */\n", b.data ? comment_text(g, b.data) : "");
        mcp_buf_free(&b);
        mcp_buf_printf(h, "typedef enum %s {\n", name);
        for (size_t i = 0; i < lit->nvalues; i++)
            mcp_buf_printf(h, "    %s,\n", literal_const(g, name, lit, i));
    }
    mcp_buf_printf(h, "} %s;\n\n", name);
}

static void emit_struct(gen *g, cstruct *s);

/* Emit first every struct that `t`, held by value, needs complete. */
static void need_complete(gen *g, const ir_type *t, hold h)
{
    if (t->kind == IR_NAMED) {
        if (h == HOLD_INDIRECT && is_object_def(t))
            return;
        for (size_t i = 0; i < g->nstructs; i++)
            if (g->structs[i]->def == t->def)
                emit_struct(g, g->structs[i]);
        return;
    }
    if (t->kind == IR_UNION && is_optional(t) && is_object_def(t->items[0]))
        return; /* a pointer */
    if (t->kind == IR_LIST || t->kind == IR_SET || t->kind == IR_DICT || t->kind == IR_TUPLE ||
        t->kind == IR_UNION || t->kind == IR_LITERAL) {
        cstruct *s = find_struct(g, key_of(g, t, h, false));
        if (s)
            emit_struct(g, s);
    }
}

static void emit_fields(gen *g, const ir_field *fields, size_t n, bool record)
{
    mcp_buf *h = g->h;
    if (n == 0)
        mcp_buf_puts(h, "    char unused_; /* no fields */\n");
    for (size_t i = 0; i < n; i++) {
        const ir_field *f = &fields[i];
        mcp_buf_puts(h, "    ");
        member(h, ctype(g, f->type, HOLD_VALUE), f->c_name);
        mcp_buf_putc(h, ';');
        bool json_name_differs = strcmp(f->c_name, f->name) != 0;
        const char *desc = f->description ? comment_text(g, f->description) : NULL;
        if (desc || f->default_value || json_name_differs) {
            mcp_buf_puts(h, " /*");
            if (json_name_differs) {
                mcp_buf_printf(h, " \"%s\"", comment_text(g, f->name));
                if (desc || f->default_value)
                    mcp_buf_putc(h, ':');
            }
            if (desc)
                mcp_buf_printf(h, " %s", desc);
            if (f->default_value) {
                mcp_json *v = schema_value(g->a, f->default_value);
                mcp_buf d;
                mcp_buf_init(&d);
                mcp_json_write(&d, v, -1);
                mcp_buf_printf(h, desc ? " (default %s)" : " default %s", d.data ? comment_text(g, d.data) : "");
                mcp_buf_free(&d);
            }
            mcp_buf_puts(h, " */");
        }
        mcp_buf_putc(h, '\n');
        if (record && !f->required)
            mcp_buf_printf(h, "    bool has_%s; /* false: \"%s\" is absent */\n", f->c_name, comment_text(g, f->name));
    }
}

static void emit_struct(gen *g, cstruct *s)
{
    if (s->emitted || s->visiting)
        return;
    s->visiting = true;
    mcp_buf *h = g->h;
    if (s->is_enum) {
        s->emitted = true;
        if (s->def)
            emit_enum(g, s->name, NULL, s->def);
        else
            emit_enum(g, s->name, s->t, NULL);
        return;
    }
    /* what must be complete first */
    if (s->def) {
        for (size_t i = 0; i < s->def->nfields; i++)
            need_complete(g, s->def->fields[i].type, HOLD_VALUE);
    } else if (s->args_of) {
        for (size_t i = 0; i < s->args_of->nparams; i++)
            need_complete(g, s->args_of->params[i].type, HOLD_VALUE);
    } else if (s->form_of) {
        for (size_t i = 0; i < s->form_of->nfields; i++)
            need_complete(g, s->form_of->fields[i].type, HOLD_VALUE);
    } else if (s->t->kind == IR_TUPLE || s->t->kind == IR_UNION) {
        for (size_t i = 0; i < s->t->nitems; i++)
            need_complete(g, s->t->items[i], HOLD_INDIRECT);
    }
    s->emitted = true;
    if (s->def) {
        const ir_def *d = s->def;
        mcp_buf_printf(h, "/* %s (%s)%s%s */\n", d->name, d->kind == IR_DEF_MODEL ? "model" : "record",
                       d->description ? ": " : "", d->description ? comment_text(g, d->description) : "");
        mcp_buf_printf(h, "struct %s {\n", s->name);
        emit_fields(g, d->fields, d->nfields, d->kind == IR_DEF_RECORD);
        mcp_buf_puts(h, "};\n\n");
        return;
    }
    if (s->form_of) {
        mcp_buf_printf(h, "/* The answer to elicitation '%s' (has_NAME false: the user left NAME out;\n"
                          " * its default, if any, is filled in). */\n",
                       comment_text(g, s->form_of->name));
        mcp_buf_printf(h, "struct %s {\n", s->name);
        emit_fields(g, s->form_of->fields, s->form_of->nfields, true);
        mcp_buf_puts(h, "};\n\n");
        return;
    }
    if (s->args_of) {
        mcp_buf_printf(h, "/* The arguments of tool '%s'. */\n", comment_text(g, s->args_of->name));
        mcp_buf_printf(h, "struct %s {\n", s->name);
        emit_fields(g, s->args_of->params, s->args_of->nparams, false);
        mcp_buf_puts(h, "};\n\n");
        return;
    }
    const ir_type *t = s->t;
    mcp_buf key;
    mcp_buf_init(&key);
    type_key(&key, t, s->h, false);
    mcp_buf_printf(h, "/* %s */\n", key.data ? comment_text(g, key.data) : "");
    mcp_buf_free(&key);
    switch (t->kind) {
    case IR_LIST:
    case IR_SET:
        mcp_buf_printf(h, "struct %s {\n    size_t len;\n    ", s->name);
        {
            const char *et = ctype(g, t->elem, HOLD_VALUE);
            mcp_buf b;
            mcp_buf_init(&b);
            mcp_buf_printf(&b, "%s%s*", et, et[strlen(et) - 1] == '*' ? "" : " ");
            member(h, b.data ? b.data : "void *", "items");
            mcp_buf_free(&b);
        }
        mcp_buf_puts(h, ";\n};\n\n");
        break;
    case IR_DICT:
        /* The items (which hold values whole) are defined after every other
         * struct: see emit_dict_items. */
        mcp_buf_printf(h, "struct %s {\n    size_t len;\n    %s_item *items; /* {key, value} */\n};\n\n", s->name,
                       s->name);
        break;
    case IR_TUPLE:
        mcp_buf_printf(h, "struct %s {\n", s->name);
        for (size_t i = 0; i < t->nitems; i++) {
            mcp_buf_puts(h, "    ");
            member(h, ctype(g, t->items[i], HOLD_INDIRECT), fmt(g, "item%zu", i));
            mcp_buf_puts(h, ";\n");
        }
        mcp_buf_puts(h, "};\n\n");
        break;
    case IR_UNION:
        if (is_optional(t)) {
            mcp_buf_printf(h, "struct %s {\n    bool has; /* false: null */\n    ", s->name);
            member(h, ctype(g, t->items[0], HOLD_INDIRECT), "value");
            mcp_buf_puts(h, ";\n};\n\n");
            break;
        }
        mcp_buf_printf(h, "enum {\n");
        for (size_t i = 0; i < t->nitems; i++)
            mcp_buf_printf(h, "    %s_%s = %zu,\n", s->name, arm_member(g, t->items[i], i, t), i + 1);
        mcp_buf_printf(h, "};\nstruct %s {\n    uint32_t which; /* %s_...; 0: unset */\n    union {\n", s->name,
                       s->name);
        for (size_t i = 0; i < t->nitems; i++) {
            mcp_buf_puts(h, "        ");
            member(h, ctype(g, t->items[i], HOLD_INDIRECT), arm_member(g, t->items[i], i, t));
            mcp_buf_puts(h, ";\n");
        }
        mcp_buf_puts(h, "    } as;\n};\n\n");
        break;
    default:
        break;
    }
}

/* The items of every dict, last: an item holds its value whole, and a value
 * may be a struct that (through a pointer) refers back to the dict. */
static void emit_dict_items(gen *g)
{
    for (size_t i = 0; i < g->nstructs; i++) {
        const cstruct *s = g->structs[i];
        if (!s->t || s->t->kind != IR_DICT || s->def || s->args_of || s->form_of)
            continue;
        mcp_buf_printf(g->h, "/* an item of %s */\nstruct %s_item {\n    %s;\n    ", s->name, s->name,
                       s->t->int_keys ? "int64_t key" : "const char *key");
        member(g->h, ctype(g, s->t->elem, HOLD_VALUE), "value");
        mcp_buf_puts(g->h, ";\n};\n\n");
    }
}

/* ------------------------------------------------------------------ descriptors */

static void tag_of(gen *g, mcp_buf *b, const ir_type *t)
{
    static const char *const SCALAR[] = {[IR_INT] = "int", [IR_FLOAT] = "float", [IR_STR] = "str",
                                         [IR_BOOL] = "bool", [IR_BYTES] = "bytes", [IR_NONE] = "none",
                                         [IR_ANY] = "any"};
    switch (t->kind) {
    case IR_LIST:
        mcp_buf_puts(b, t->tuple_variadic ? "tuple[" : "list[");
        tag_of(g, b, t->elem);
        mcp_buf_puts(b, t->tuple_variadic ? ", ...]" : "]");
        return;
    case IR_SET:
        mcp_buf_puts(b, "set[");
        tag_of(g, b, t->elem);
        mcp_buf_putc(b, ']');
        return;
    case IR_DICT:
        mcp_buf_puts(b, t->int_keys ? "dict[int," : "dict[str,");
        tag_of(g, b, t->elem);
        mcp_buf_putc(b, ']');
        return;
    case IR_TUPLE:
        mcp_buf_puts(b, "tuple[");
        for (size_t i = 0; i < t->nitems; i++) {
            if (i)
                mcp_buf_puts(b, ", ");
            tag_of(g, b, t->items[i]);
        }
        mcp_buf_putc(b, ']');
        return;
    case IR_UNION:
        if (is_optional(t)) {
            mcp_buf_puts(b, "nullable[");
            tag_of(g, b, t->items[0]);
            mcp_buf_putc(b, ']');
            return;
        }
        mcp_buf_puts(b, "union[");
        for (size_t i = 0; i < t->nitems; i++) {
            if (i)
                mcp_buf_putc(b, ',');
            tag_of(g, b, t->items[i]);
        }
        mcp_buf_putc(b, ']');
        return;
    case IR_LITERAL:
        mcp_buf_puts(b, "literal[");
        for (size_t i = 0; i < t->nvalues; i++) {
            if (i)
                mcp_buf_putc(b, ',');
            literal_key(b, t->values[i]);
        }
        mcp_buf_putc(b, ']');
        return;
    case IR_NAMED:
        mcp_buf_puts(b, t->def->name);
        return;
    case IR_CONTENT:
        return;
    default:
        mcp_buf_puts(b, SCALAR[t->kind]);
    }
}

static const char *tag_string(gen *g, const ir_type *t)
{
    mcp_buf b;
    mcp_buf_init(&b);
    tag_of(g, &b, t);
    mcp_buf s;
    mcp_buf_init(&s);
    c_string(&s, b.data ? b.data : "", b.len);
    const char *r = mcp_arena_strndup(g->a, s.data ? s.data : "\"\"", s.len);
    mcp_buf_free(&b);
    mcp_buf_free(&s);
    return r ? r : "\"\"";
}

static desc *find_desc(gen *g, const char *key)
{
    for (size_t i = 0; i < g->ndescs; i++)
        if (strcmp(g->descs[i]->key, key) == 0)
            return g->descs[i];
    return NULL;
}

static void bound(mcp_buf *b, const char *field, ir_number n)
{
    if (n.is_int)
        mcp_buf_printf(b, "    .%s = {true, %lldLL, 0},\n", field, (long long)n.i);
    else
        mcp_buf_printf(b, "    .%s = {false, 0, %.17g},\n", field, n.f);
}

/* Write the constraints of t (if any) and return the initializer of `.c`. */
static const char *constraints(gen *g, const char *dname, const ir_constraints *c)
{
    if (!(c->has_minimum || c->has_maximum || c->has_exclusive_minimum || c->has_exclusive_maximum ||
          c->has_multiple_of || c->has_min_length || c->has_max_length || c->has_min_items || c->has_max_items ||
          c->pattern))
        return NULL;
    mcp_buf *b = &g->defs;
    if (c->pattern) {
        mcp_buf_printf(b, "static mcp_pattern %s_pattern = {", dname);
        c_string(b, c->pattern, strlen(c->pattern));
        mcp_buf_puts(b, ", NULL};\n");
    }
    mcp_buf_printf(b, "static const mcp_constraints %s_c = {\n    .flags = ", dname);
    static const struct {
        size_t off;
        const char *flag;
    } FLAGS[] = {
        {offsetof(ir_constraints, has_minimum), "MCP_C_MINIMUM"},
        {offsetof(ir_constraints, has_maximum), "MCP_C_MAXIMUM"},
        {offsetof(ir_constraints, has_exclusive_minimum), "MCP_C_EXCLUSIVE_MINIMUM"},
        {offsetof(ir_constraints, has_exclusive_maximum), "MCP_C_EXCLUSIVE_MAXIMUM"},
        {offsetof(ir_constraints, has_multiple_of), "MCP_C_MULTIPLE_OF"},
        {offsetof(ir_constraints, has_min_length), "MCP_C_MIN_LENGTH"},
        {offsetof(ir_constraints, has_max_length), "MCP_C_MAX_LENGTH"},
        {offsetof(ir_constraints, has_min_items), "MCP_C_MIN_ITEMS"},
        {offsetof(ir_constraints, has_max_items), "MCP_C_MAX_ITEMS"},
    };
    bool any = false;
    for (size_t i = 0; i < sizeof FLAGS / sizeof *FLAGS; i++)
        if (*(const bool *)((const char *)c + FLAGS[i].off)) {
            mcp_buf_printf(b, "%s%s", any ? " | " : "", FLAGS[i].flag);
            any = true;
        }
    mcp_buf_puts(b, any ? ",\n" : "0,\n");
    if (c->has_minimum) bound(b, "minimum", c->minimum);
    if (c->has_maximum) bound(b, "maximum", c->maximum);
    if (c->has_exclusive_minimum) bound(b, "exclusive_minimum", c->exclusive_minimum);
    if (c->has_exclusive_maximum) bound(b, "exclusive_maximum", c->exclusive_maximum);
    if (c->has_multiple_of) bound(b, "multiple_of", c->multiple_of);
    if (c->has_min_length) mcp_buf_printf(b, "    .min_length = %lld,\n", (long long)c->min_length);
    if (c->has_max_length) mcp_buf_printf(b, "    .max_length = %lld,\n", (long long)c->max_length);
    if (c->has_min_items) mcp_buf_printf(b, "    .min_items = %lld,\n", (long long)c->min_items);
    if (c->has_max_items) mcp_buf_printf(b, "    .max_items = %lld,\n", (long long)c->max_items);
    if (c->pattern) mcp_buf_printf(b, "    .pattern = &%s_pattern,\n", dname);
    mcp_buf_puts(b, "};\n");
    return fmt(g, "&%s_c", dname);
}

static void literal_values(gen *g, const char *dname, const mcp_json *const *vals, size_t n)
{
    mcp_buf *b = &g->defs;
    mcp_buf_printf(b, "static const mcp_literal %s_values[] = {\n", dname);
    for (size_t i = 0; i < n; i++) {
        const mcp_json *v = vals[i];
        switch (v->kind) {
        case MCP_JSTRING:
            mcp_buf_puts(b, "    {MCP_JSTRING, ");
            c_string(b, v->s, v->len);
            mcp_buf_printf(b, ", %zu, 0},\n", v->len);
            break;
        case MCP_JINT:
            mcp_buf_printf(b, "    {MCP_JINT, NULL, 0, %lldLL},\n", (long long)v->i);
            break;
        case MCP_JBOOL:
            mcp_buf_printf(b, "    {MCP_JBOOL, NULL, 0, %d},\n", v->b ? 1 : 0);
            break;
        default:
            mcp_buf_puts(b, "    {MCP_JNULL, NULL, 0, 0},\n");
        }
    }
    mcp_buf_puts(b, "};\n");
}

static const char *desc_of(gen *g, const ir_type *t, hold h);

/* The descriptor of an object: a model or record (def), or a tool's arguments. */
static void object_desc(gen *g, desc *d, const char *cname, const char *title, const ir_field *fields, size_t n,
                        bool forbid, bool record)
{
    const char **fdescs = mcp_arena_alloc(g->a, (n ? n : 1) * sizeof *fdescs);
    if (!fdescs) {
        g->oom = true;
        return;
    }
    for (size_t i = 0; i < n; i++)
        fdescs[i] = desc_of(g, fields[i].type, HOLD_VALUE);
    mcp_buf *b = &g->defs;
    if (n) {
        mcp_buf_printf(b, "static const mcp_field %s_fields[] = {\n", d->name);
        for (size_t i = 0; i < n; i++) {
            const ir_field *f = &fields[i];
            mcp_buf_puts(b, "    {");
            c_string(b, f->name, strlen(f->name));
            mcp_buf_printf(b, ", %zu, &%s, offsetof(%s, %s), ", strlen(f->name), fdescs[i], cname, f->c_name);
            if (record && !f->required)
                mcp_buf_printf(b, "offsetof(%s, has_%s), ", cname, f->c_name);
            else
                mcp_buf_puts(b, "-1, ");
            mcp_buf_puts(b, f->required ? "true, " : "false, ");
            if (f->default_value) {
                mcp_buf dj;
                mcp_buf_init(&dj);
                mcp_json_write(&dj, schema_value(g->a, f->default_value), -1);
                c_string(b, dj.data ? dj.data : "null", dj.len);
                mcp_buf_free(&dj);
            } else {
                mcp_buf_puts(b, "NULL");
            }
            mcp_buf_puts(b, "},\n");
        }
        mcp_buf_puts(b, "};\n");
    }
    mcp_buf_printf(b, "static const mcp_type %s = {\n    .kind = MCP_T_OBJECT,\n", d->name);
    mcp_buf_printf(b, "    .size = sizeof(%s),\n    .align = _Alignof(%s),\n    .tag = ", cname, cname);
    c_string(b, title, strlen(title));
    mcp_buf_puts(b, ",\n");
    if (n)
        mcp_buf_printf(b, "    .fields = %s_fields,\n    .nfields = %zu,\n", d->name, n);
    if (forbid)
        mcp_buf_puts(b, "    .extra_forbid = true,\n");
    if (record)
        mcp_buf_puts(b, "    .is_record = true,\n");
    mcp_buf_puts(b, "};\n\n");
}

static desc *new_desc(gen *g, const char *key, const ir_type *t, hold h)
{
    desc *d = mcp_arena_alloc(g->a, sizeof *d);
    if (!d) {
        g->oom = true;
        return NULL;
    }
    d->key = key;
    d->t = t;
    d->h = h;
    d->name = fmt(g, "td_%zu", g->ndescs);
    push(g, (void ***)&g->descs, &g->ndescs, &g->cap_descs, d);
    return d;
}

static const char *desc_of(gen *g, const ir_type *t, hold h)
{
    const char *key = key_of(g, t, h, true);
    desc *d = find_desc(g, key);
    if (d)
        return d->name;
    d = new_desc(g, key, t, h);
    if (!d)
        return "td_oom";
    mcp_buf *b = &g->defs;
    const char *ct = ctype(g, t, h);

    /* A model or record held by pointer. */
    bool ptr = (t->kind == IR_NAMED && h == HOLD_INDIRECT && is_object_def(t)) ||
               (is_optional(t) && is_object_def(t->items[0]));
    if (ptr) {
        const ir_type *target = t->kind == IR_NAMED ? t : t->items[0];
        const char *inner = desc_of(g, target, HOLD_VALUE);
        mcp_buf_printf(b, "static const mcp_type %s = {\n    .kind = MCP_T_PTR,\n", d->name);
        mcp_buf_printf(b, "    .size = sizeof(void *),\n    .align = _Alignof(void *),\n    .tag = %s,\n",
                       tag_string(g, target));
        mcp_buf_printf(b, "    .elem = &%s,\n%s};\n\n", inner, t->kind == IR_NAMED ? "" : "    .nullable = true,\n");
        return d->name;
    }
    if (t->kind == IR_NAMED && t->def->kind != IR_DEF_ENUM) {
        const ir_def *def = t->def;
        object_desc(g, d, def->c_name, def->name, def->fields, def->nfields, def->extra_forbid,
                    def->kind == IR_DEF_RECORD);
        return d->name;
    }

    /* Sub-descriptors first. */
    const char *elem = NULL;
    const char **items = NULL;
    if (t->kind == IR_LIST || t->kind == IR_SET || t->kind == IR_DICT)
        elem = desc_of(g, t->elem, HOLD_VALUE);
    if (is_optional(t))
        elem = desc_of(g, t->items[0], HOLD_INDIRECT);
    else if (t->kind == IR_TUPLE || t->kind == IR_UNION) {
        items = mcp_arena_alloc(g->a, t->nitems * sizeof *items);
        if (!items) {
            g->oom = true;
            return d->name;
        }
        for (size_t i = 0; i < t->nitems; i++)
            items[i] = desc_of(g, t->items[i], HOLD_INDIRECT);
    }
    const char *cinit = constraints(g, d->name, &t->c);
    if (t->kind == IR_LITERAL)
        literal_values(g, d->name, t->values, t->nvalues);
    if (t->kind == IR_NAMED)
        literal_values(g, d->name, t->def->values, t->def->nvalues);
    if (items) {
        mcp_buf_printf(b, "static const mcp_type *const %s_items[] = {", d->name);
        for (size_t i = 0; i < t->nitems; i++)
            mcp_buf_printf(b, "%s&%s", i ? ", " : "", items[i]);
        mcp_buf_puts(b, "};\n");
        if (t->kind == IR_TUPLE) {
            mcp_buf_printf(b, "static const uint32_t %s_offsets[] = {", d->name);
            for (size_t i = 0; i < t->nitems; i++)
                mcp_buf_printf(b, "%soffsetof(%s, item%zu)", i ? ", " : "", ct, i);
            mcp_buf_puts(b, "};\n");
        } else {
            mcp_buf_printf(b, "static const uint32_t %s_offsets[] = {offsetof(%s, as)};\n", d->name, ct);
        }
    }

    static const char *const KIND[] = {
        [IR_INT] = "MCP_T_INT",   [IR_FLOAT] = "MCP_T_FLOAT", [IR_STR] = "MCP_T_STR",     [IR_BOOL] = "MCP_T_BOOL",
        [IR_BYTES] = "MCP_T_BYTES", [IR_NONE] = "MCP_T_NONE", [IR_ANY] = "MCP_T_ANY",     [IR_LIST] = "MCP_T_LIST",
        [IR_SET] = "MCP_T_SET",   [IR_TUPLE] = "MCP_T_TUPLE", [IR_DICT] = "MCP_T_DICT",   [IR_UNION] = "MCP_T_UNION",
        [IR_LITERAL] = "MCP_T_LITERAL", [IR_NAMED] = "MCP_T_ENUM", [IR_CONTENT] = "MCP_T_NONE",
    };
    mcp_buf_printf(b, "static const mcp_type %s = {\n    .kind = %s,\n", d->name,
                   is_optional(t) ? "MCP_T_OPTIONAL" : KIND[t->kind]);
    mcp_buf_printf(b, "    .size = sizeof(%s),\n    .align = _Alignof(%s),\n    .tag = %s,\n", ct, ct, tag_string(g, t));
    if (cinit)
        mcp_buf_printf(b, "    .c = %s,\n", cinit);
    if (elem)
        mcp_buf_printf(b, "    .elem = &%s,\n", elem);
    if (t->kind == IR_DICT) {
        mcp_buf_printf(b, "    .elem_offset = offsetof(%s_item, value),\n    .item_size = sizeof(%s_item),\n", ct, ct);
        if (t->int_keys)
            mcp_buf_puts(b, "    .int_keys = true,\n");
    }
    if (is_optional(t))
        mcp_buf_printf(b, "    .elem_offset = offsetof(%s, value),\n", ct);
    if (t->kind == IR_LIST && t->tuple_variadic)
        mcp_buf_puts(b, "    .variadic = true,\n");
    if (items)
        mcp_buf_printf(b, "    .items = %s_items,\n    .offsets = %s_offsets,\n    .nitems = %zu,\n", d->name, d->name,
                       t->nitems);
    if (t->kind == IR_LITERAL)
        mcp_buf_printf(b, "    .values = %s_values,\n    .nvalues = %zu,\n", d->name, t->nvalues);
    if (t->kind == IR_NAMED)
        mcp_buf_printf(b, "    .values = %s_values,\n    .nvalues = %zu,\n", d->name, t->def->nvalues);
    mcp_buf_puts(b, "};\n\n");
    return d->name;
}

/* ------------------------------------------------------------------ files */

static const char *upper_guard(gen *g, const char *stem)
{
    char *s = fmt(g, "%s_MCP_H", stem);
    for (char *p = s; *p; p++)
        *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    if (isdigit((unsigned char)s[0]))
        s = fmt(g, "MCP_%s", s);
    return s;
}

static const char *out_type(gen *g, const ir_tool *t)
{
    return t->returns->kind == IR_CONTENT ? NULL : ctype(g, t->returns, HOLD_VALUE);
}

static void prototype(gen *g, mcp_buf *b, const ir_tool *t)
{
    const char *ot = out_type(g, t);
    mcp_buf_printf(b, "mcp_status %s_%s(mcp_call *call, const %s_%s_args *in", g->prefix, t->c_name, g->prefix,
                   t->c_name);
    if (ot) {
        mcp_buf_puts(b, ", ");
        mcp_buf m;
        mcp_buf_init(&m);
        mcp_buf_printf(&m, "%s%s*", ot, ot[strlen(ot) - 1] == '*' ? "" : " ");
        member(b, m.data ? m.data : "void *", "out");
        mcp_buf_free(&m);
    }
    mcp_buf_putc(b, ')');
}

static const char *output_kind(const ir_tool *t)
{
    switch (t->output) {
    case IR_OUTPUT_OBJECT: return "MCP_OUTPUT_OBJECT";
    case IR_OUTPUT_DICT: return "MCP_OUTPUT_DICT";
    case IR_OUTPUT_WRAPPED: return "MCP_OUTPUT_WRAPPED";
    default: return "MCP_OUTPUT_NONE";
    }
}

static const char *output_title(gen *g, const ir_tool *t)
{
    switch (t->output) {
    case IR_OUTPUT_OBJECT: return t->returns->def->name;
    case IR_OUTPUT_DICT: return fmt(g, "%sDictOutput", t->name);
    default: return fmt(g, "%sOutput", t->name);
    }
}

/* ------------------------------------------------------------------ resources, prompts, forms */

/* The C name of a completion handler. */
static const char *completer_name(gen *g, const char *owner_c, const ir_completion *k)
{
    return fmt(g, "%s_complete_%s_%s", g->prefix, owner_c, k->c_name);
}

static bool resource_has_reader(const ir_resource *r) { return !r->text && !r->blob; }

static void completer_prototypes(gen *g, const char *owner_c, const ir_completion *k, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (k[i].handler)
            mcp_buf_printf(g->h,
                           "/* Completes %s '%s': mcp_complete_value() for each suggestion. */\n"
                           "mcp_status %s(mcp_call *call, const char *value, const mcp_json *context);\n",
                           what, comment_text(g, k[i].name), completer_name(g, owner_c, &k[i]));
}

static void prompt_prototype(gen *g, mcp_buf *b, const ir_prompt *p)
{
    if (p->nargs)
        mcp_buf_printf(b, "mcp_status %s_prompt_%s(mcp_call *call, const %s_%s_prompt_args *args)", g->prefix,
                       p->c_name, g->prefix, p->c_name);
    else
        mcp_buf_printf(b, "mcp_status %s_prompt_%s(mcp_call *call)", g->prefix, p->c_name);
}

static void template_prototype(gen *g, mcp_buf *b, const ir_template *t)
{
    mcp_buf_printf(b, "mcp_status %s_read_%s(mcp_call *call, const char *uri, const %s_%s_vars *vars)", g->prefix,
                   t->c_name, g->prefix, t->c_name);
}

static void elicit_prototype(gen *g, mcp_buf *b, const ir_elicitation *e)
{
    mcp_buf_printf(b, "bool %s_elicit_%s(mcp_call *call, const char *message, %s_%s_form *out,\n"
                      "    mcp_elicit_action *action)",
                   g->prefix, e->c_name, g->prefix, e->c_name);
}

/* Prototypes of readers, prompts, completions; the typed elicitation calls. */
static void beyond_header(gen *g)
{
    const ir_server *srv = g->srv;
    mcp_buf *h = g->h;
    bool any_reader = false;
    for (size_t i = 0; i < srv->nresources; i++)
        any_reader = any_reader || resource_has_reader(&srv->resources[i]);
    if (any_reader || srv->ntemplates)
        mcp_buf_puts(h, "\n/* Readers: define one per resource without static content and one per\n"
                        " * template; each appends contents with mcp_resource_text/blob(). */\n");
    for (size_t i = 0; i < srv->nresources; i++) {
        const ir_resource *r = &srv->resources[i];
        if (!resource_has_reader(r))
            continue;
        mcp_buf_printf(h, "\n/* %s */\nmcp_status %s_read_%s(mcp_call *call, const char *uri);\n",
                       comment_text(g, r->uri), g->prefix, r->c_name);
    }
    for (size_t i = 0; i < srv->ntemplates; i++) {
        const ir_template *t = &srv->templates[i];
        mcp_buf_printf(h, "\n/* The variables of %s (percent-decoded). */\ntypedef struct %s_%s_vars {\n",
                       comment_text(g, t->uri_template), g->prefix, t->c_name);
        for (size_t j = 0; j < t->nvars; j++)
            mcp_buf_printf(h, "    const char *%s;\n", t->var_c_names[j]);
        mcp_buf_printf(h, "} %s_%s_vars;\n", g->prefix, t->c_name);
        template_prototype(g, h, t);
        mcp_buf_puts(h, ";\n");
        completer_prototypes(g, t->c_name, t->complete, t->ncomplete, "variable");
    }
    if (srv->nprompts)
        mcp_buf_puts(h, "\n/* Prompts: define one function per prompt; each content block it appends\n"
                        " * (mcp_content_text, ...) is one message, spoken by mcp_prompt_role()'s role. */\n");
    for (size_t i = 0; i < srv->nprompts; i++) {
        const ir_prompt *p = &srv->prompts[i];
        mcp_buf_printf(h, "\n/* %s: %s */\n", comment_text(g, p->name), comment_text(g, p->description));
        if (p->nargs) {
            mcp_buf_printf(h, "typedef struct %s_%s_prompt_args {\n", g->prefix, p->c_name);
            for (size_t j = 0; j < p->nargs; j++) {
                const ir_prompt_arg *a = &p->args[j];
                mcp_buf_printf(h, "    const char *%s; /* %s%s */\n", a->c_name,
                               strcmp(a->c_name, a->name) ? fmt(g, "\"%s\", ", comment_text(g, a->name)) : "",
                               a->required ? "required" : "NULL when absent");
            }
            mcp_buf_printf(h, "} %s_%s_prompt_args;\n", g->prefix, p->c_name);
        }
        prompt_prototype(g, h, p);
        mcp_buf_puts(h, ";\n");
        completer_prototypes(g, p->c_name, p->complete, p->ncomplete, "argument");
    }
    if (srv->nelicitations)
        mcp_buf_puts(h, "\n/* Elicitations: ask the client's user to fill a form (mcp_elicit_form). True\n"
                        " * when the user accepted and the answer fits: *out holds it. */\n");
    for (size_t i = 0; i < srv->nelicitations; i++) {
        const ir_elicitation *e = &srv->elicitations[i];
        mcp_buf_printf(h, "extern const mcp_elicitation %s_%s_elicitation;\n", g->prefix, e->c_name);
        elicit_prototype(g, h, e);
        mcp_buf_puts(h, ";\n");
    }
}

static void completers(gen *g, const char *table, const char *owner_c, const ir_completion *k, size_t n)
{
    mcp_buf *c = g->c;
    for (size_t i = 0; i < n; i++) {
        if (k[i].handler || !k[i].nvalues)
            continue;
        mcp_buf_printf(c, "static const char *const %s_%zu[] = {", table, i);
        for (size_t j = 0; j < k[i].nvalues; j++) {
            if (j)
                mcp_buf_puts(c, ", ");
            c_string(c, k[i].values[j], strlen(k[i].values[j]));
        }
        mcp_buf_puts(c, "};\n");
    }
    mcp_buf_printf(c, "static const mcp_completer %s[] = {\n", table);
    for (size_t i = 0; i < n; i++) {
        mcp_buf_puts(c, "    {");
        c_string(c, k[i].name, strlen(k[i].name));
        if (k[i].handler)
            mcp_buf_printf(c, ", NULL, 0, %s},\n", completer_name(g, owner_c, &k[i]));
        else if (k[i].nvalues)
            mcp_buf_printf(c, ", %s_%zu, %zu, NULL},\n", table, i, k[i].nvalues);
        else
            mcp_buf_puts(c, ", NULL, 0, NULL},\n");
    }
    mcp_buf_puts(c, "};\n\n");
}

static void list_entry(gen *g, mcp_json *v)
{
    mcp_buf e;
    mcp_buf_init(&e);
    mcp_json_write(&e, v, -1);
    c_string_long(g->c, e.data ? e.data : "{}", e.len, "            ");
    if (e.oom)
        g->oom = true;
    mcp_buf_free(&e);
}

static void opt_member(gen *g, const char *member_name, const char *s)
{
    if (!s)
        return;
    mcp_buf_printf(g->c, "        .%s = ", member_name);
    c_string_long(g->c, s, strlen(s), "            ");
    mcp_buf_puts(g->c, ",\n");
}

/* Thunks and tables of resources, templates, prompts; the elicitation forms. */
static void beyond_source(gen *g, const char **form_desc)
{
    const ir_server *srv = g->srv;
    mcp_buf *c = g->c;
    mcp_arena *a = g->a;
    for (size_t i = 0; i < srv->nresources; i++) {
        const ir_resource *r = &srv->resources[i];
        if (resource_has_reader(r))
            mcp_buf_printf(c,
                           "static mcp_status resource_thunk_%s(mcp_call *call, const char *uri, "
                           "const char *const *vars)\n{\n    (void)vars;\n    return %s_read_%s(call, uri);\n}\n\n",
                           r->c_name, g->prefix, r->c_name);
    }
    if (srv->nresources) {
        mcp_buf_printf(c, "static const mcp_resource %s_resources[] = {\n", g->prefix);
        for (size_t i = 0; i < srv->nresources; i++) {
            const ir_resource *r = &srv->resources[i];
            mcp_buf_puts(c, "    {\n");
            opt_member(g, "name", r->name);
            opt_member(g, "uri", r->uri);
            opt_member(g, "mime_type", r->mime_type);
            mcp_buf_puts(c, "        .list_entry = ");
            list_entry(g, beyond_resource_entry(a, r));
            mcp_buf_puts(c, ",\n");
            opt_member(g, "text", r->text);
            opt_member(g, "blob", r->blob);
            if (resource_has_reader(r))
                mcp_buf_printf(c, "        .read = resource_thunk_%s,\n", r->c_name);
            mcp_buf_puts(c, "    },\n");
        }
        mcp_buf_puts(c, "};\n\n");
    }
    for (size_t i = 0; i < srv->ntemplates; i++) {
        const ir_template *t = &srv->templates[i];
        mcp_buf_printf(c, "static mcp_status template_thunk_%s(mcp_call *call, const char *uri, "
                          "const char *const *vars)\n{\n    %s_%s_vars v = {",
                       t->c_name, g->prefix, t->c_name);
        for (size_t j = 0; j < t->nvars; j++)
            mcp_buf_printf(c, "%svars[%zu]", j ? ", " : "", j);
        mcp_buf_printf(c, "};\n    return %s_read_%s(call, uri, &v);\n}\n\n", g->prefix, t->c_name);
        if (t->ncomplete)
            completers(g, fmt(g, "template_complete_%s", t->c_name), t->c_name, t->complete, t->ncomplete);
    }
    if (srv->ntemplates) {
        mcp_buf_printf(c, "static const mcp_resource_template %s_templates[] = {\n", g->prefix);
        for (size_t i = 0; i < srv->ntemplates; i++) {
            const ir_template *t = &srv->templates[i];
            mcp_buf_puts(c, "    {\n");
            opt_member(g, "name", t->name);
            opt_member(g, "uri_template", t->uri_template);
            opt_member(g, "mime_type", t->mime_type);
            mcp_buf_puts(c, "        .list_entry = ");
            list_entry(g, beyond_template_entry(a, t));
            mcp_buf_printf(c, ",\n        .nvars = %zu,\n        .read = template_thunk_%s,\n", t->nvars, t->c_name);
            if (t->ncomplete)
                mcp_buf_printf(c, "        .complete = template_complete_%s,\n        .ncomplete = %zu,\n", t->c_name,
                               t->ncomplete);
            mcp_buf_puts(c, "    },\n");
        }
        mcp_buf_puts(c, "};\n\n");
    }
    for (size_t i = 0; i < srv->nprompts; i++) {
        const ir_prompt *p = &srv->prompts[i];
        mcp_buf_printf(c, "static mcp_status prompt_thunk_%s(mcp_call *call, const char *const *args)\n{\n",
                       p->c_name);
        if (p->nargs) {
            mcp_buf_printf(c, "    %s_%s_prompt_args in = {", g->prefix, p->c_name);
            for (size_t j = 0; j < p->nargs; j++)
                mcp_buf_printf(c, "%sargs[%zu]", j ? ", " : "", j);
            mcp_buf_printf(c, "};\n    return %s_prompt_%s(call, &in);\n}\n\n", g->prefix, p->c_name);
            mcp_buf_printf(c, "static const mcp_prompt_arg prompt_args_%s[] = {\n", p->c_name);
            for (size_t j = 0; j < p->nargs; j++) {
                mcp_buf_puts(c, "    {");
                c_string(c, p->args[j].name, strlen(p->args[j].name));
                mcp_buf_printf(c, ", %s},\n", p->args[j].required ? "true" : "false");
            }
            mcp_buf_puts(c, "};\n\n");
        } else {
            mcp_buf_printf(c, "    (void)args;\n    return %s_prompt_%s(call);\n}\n\n", g->prefix, p->c_name);
        }
        if (p->ncomplete)
            completers(g, fmt(g, "prompt_complete_%s", p->c_name), p->c_name, p->complete, p->ncomplete);
    }
    if (srv->nprompts) {
        mcp_buf_printf(c, "static const mcp_prompt %s_prompts[] = {\n", g->prefix);
        for (size_t i = 0; i < srv->nprompts; i++) {
            const ir_prompt *p = &srv->prompts[i];
            mcp_buf_puts(c, "    {\n");
            opt_member(g, "name", p->name);
            mcp_buf_puts(c, "        .list_entry = ");
            list_entry(g, beyond_prompt_entry(a, p));
            mcp_buf_puts(c, ",\n");
            if (p->nargs)
                mcp_buf_printf(c, "        .args = prompt_args_%s,\n        .nargs = %zu,\n", p->c_name, p->nargs);
            mcp_buf_printf(c, "        .get = prompt_thunk_%s,\n", p->c_name);
            if (p->ncomplete)
                mcp_buf_printf(c, "        .complete = prompt_complete_%s,\n        .ncomplete = %zu,\n", p->c_name,
                               p->ncomplete);
            mcp_buf_puts(c, "    },\n");
        }
        mcp_buf_puts(c, "};\n\n");
    }
    for (size_t i = 0; i < srv->nelicitations; i++) {
        const ir_elicitation *e = &srv->elicitations[i];
        mcp_buf_printf(c, "const mcp_elicitation %s_%s_elicitation = {\n", g->prefix, e->c_name);
        opt_member(g, "name", e->name);
        opt_member(g, "message", e->message);
        mcp_buf sch;
        mcp_buf_init(&sch);
        mcp_json_write(&sch, beyond_form_schema(a, e), -1);
        mcp_buf_puts(c, "        .schema = ");
        c_string_long(c, sch.data ? sch.data : "{}", sch.len, "            ");
        if (sch.oom)
            g->oom = true;
        mcp_buf_free(&sch);
        mcp_buf_printf(c, ",\n        .type = &%s,\n};\n\n", form_desc[i]);
        elicit_prototype(g, c, e);
        mcp_buf_printf(c, "\n{\n    return mcp_elicit_form(call, &%s_%s_elicitation, message, out, action);\n}\n\n",
                       g->prefix, e->c_name);
    }
}

/* Mock readers and prompts: they fail, saying so (mocks answer tools). */
static void beyond_mock(gen *g, mcp_buf *m)
{
    const ir_server *srv = g->srv;
    for (size_t i = 0; i < srv->nresources; i++) {
        const ir_resource *r = &srv->resources[i];
        if (resource_has_reader(r))
            mcp_buf_printf(m, "\nmcp_status %s_read_%s(mcp_call *call, const char *uri)\n{\n"
                              "    return mcp_fail(call, \"no mock for %%s\", uri);\n}\n",
                           g->prefix, r->c_name);
    }
    for (size_t i = 0; i < srv->ntemplates; i++) {
        const ir_template *t = &srv->templates[i];
        mcp_buf_putc(m, '\n');
        template_prototype(g, m, t);
        mcp_buf_puts(m, "\n{\n    (void)vars;\n    return mcp_fail(call, \"no mock for %s\", uri);\n}\n");
    }
    for (size_t i = 0; i < srv->nprompts; i++) {
        const ir_prompt *p = &srv->prompts[i];
        mcp_buf_putc(m, '\n');
        prompt_prototype(g, m, p);
        mcp_buf_printf(m, "\n{\n%s    return mcp_fail(call, \"no mock for prompts\");\n}\n", p->nargs ? "    (void)args;\n" : "");
    }
    for (size_t i = 0; i < srv->nprompts + srv->ntemplates; i++) {
        bool is_prompt = i < srv->nprompts;
        const ir_completion *k = is_prompt ? srv->prompts[i].complete : srv->templates[i - srv->nprompts].complete;
        size_t n = is_prompt ? srv->prompts[i].ncomplete : srv->templates[i - srv->nprompts].ncomplete;
        const char *owner = is_prompt ? srv->prompts[i].c_name : srv->templates[i - srv->nprompts].c_name;
        for (size_t j = 0; j < n; j++)
            if (k[j].handler)
                mcp_buf_printf(m, "\nmcp_status %s(mcp_call *call, const char *value, const mcp_json *context)\n{\n"
                                  "    (void)call;\n    (void)value;\n    (void)context;\n    return MCP_OK;\n}\n",
                               completer_name(g, owner, &k[j]));
    }
}

bool emit_c(mcp_arena *a, const ir_server *srv, const char *stem, const char *source_name, bool mock, c_output *out)
{
    gen G = {.a = a, .srv = srv, .prefix = srv->c_prefix, .h = &out->header, .c = &out->source};
    gen *g = &G;
    mcp_buf_init(&out->header);
    mcp_buf_init(&out->source);
    mcp_buf_init(&out->mock);
    mcp_buf_init(&g->defs);

    /* Every named type, then every tool's arguments and result. */
    for (size_t i = 0; i < srv->ndefs; i++) {
        const ir_def *d = srv->defs[i];
        cstruct *s = mcp_arena_alloc(a, sizeof *s);
        if (!s)
            return false;
        *s = (cstruct){.key = d->name, .name = d->c_name, .def = d, .is_enum = d->kind == IR_DEF_ENUM};
        push(g, (void ***)&g->structs, &g->nstructs, &g->cap_structs, s);
    }
    for (size_t i = 0; i < srv->ndefs; i++)
        for (size_t j = 0; j < srv->defs[i]->nfields; j++)
            ctype(g, srv->defs[i]->fields[j].type, HOLD_VALUE);
    const char **args_desc = mcp_arena_alloc(a, (srv->ntools ? srv->ntools : 1) * sizeof *args_desc);
    const char **result_desc = mcp_arena_alloc(a, (srv->ntools ? srv->ntools : 1) * sizeof *result_desc);
    if (!args_desc || !result_desc)
        return false;
    for (size_t i = 0; i < srv->ntools; i++) {
        const ir_tool *t = &srv->tools[i];
        cstruct *s = mcp_arena_alloc(a, sizeof *s);
        if (!s)
            return false;
        *s = (cstruct){.key = fmt(g, "args:%s", t->name), .name = fmt(g, "%s_%s_args", g->prefix, t->c_name),
                       .args_of = t};
        push(g, (void ***)&g->structs, &g->nstructs, &g->cap_structs, s);
        for (size_t j = 0; j < t->nparams; j++)
            ctype(g, t->params[j].type, HOLD_VALUE);
        if (t->returns)
            out_type(g, t);
    }
    for (size_t i = 0; i < srv->nelicitations; i++) {
        const ir_elicitation *e = &srv->elicitations[i];
        cstruct *s = mcp_arena_alloc(a, sizeof *s);
        if (!s)
            return false;
        *s = (cstruct){.key = fmt(g, "form:%s", e->name), .name = fmt(g, "%s_%s_form", g->prefix, e->c_name),
                       .form_of = e};
        push(g, (void ***)&g->structs, &g->nstructs, &g->cap_structs, s);
        for (size_t j = 0; j < e->nfields; j++)
            ctype(g, e->fields[j].type, HOLD_VALUE);
    }
    /* Descriptors (this also registers every C type a descriptor needs). */
    for (size_t i = 0; i < srv->ntools; i++) {
        const ir_tool *t = &srv->tools[i];
        desc *d = new_desc(g, fmt(g, "args:%s", t->name), NULL, HOLD_VALUE);
        if (!d)
            return false;
        d->args_of = t;
        object_desc(g, d, fmt(g, "%s_%s_args", g->prefix, t->c_name), fmt(g, "%sArguments", t->name), t->params,
                    t->nparams, t->extra_forbid, false);
        args_desc[i] = d->name;
        result_desc[i] = t->returns && t->returns->kind != IR_CONTENT ? desc_of(g, t->returns, HOLD_VALUE) : NULL;
    }
    const char **form_desc = mcp_arena_alloc(a, (srv->nelicitations ? srv->nelicitations : 1) * sizeof *form_desc);
    if (!form_desc)
        return false;
    for (size_t i = 0; i < srv->nelicitations; i++) {
        const ir_elicitation *e = &srv->elicitations[i];
        desc *d = new_desc(g, fmt(g, "form:%s", e->name), NULL, HOLD_VALUE);
        if (!d)
            return false;
        object_desc(g, d, fmt(g, "%s_%s_form", g->prefix, e->c_name), e->name, e->fields, e->nfields, false, true);
        form_desc[i] = d->name;
    }

    /* ---- the header */
    mcp_buf *h = g->h;
    const char *guard = upper_guard(g, stem);
    mcp_buf_printf(h,
                   "/* %s.mcp.h: generated by mcpidlc %s from %s; do not edit.\n"
                   " * The generated code is yours to use under any terms. */\n"
                   "#ifndef %s\n#define %s\n\n#include <mcpidl/mcpidl.h>\n\n"
                   "#if MCPIDL_ABI != %d\n"
                   "#error \"%s.mcp.h was generated for libmcpidl ABI %d: run mcpidlc again\"\n#endif\n\n"
                   "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
                   stem, MCPIDL_VERSION_STRING, comment_text(g, source_name), guard, guard, GENERATED_ABI, stem,
                   GENERATED_ABI);
    size_t nstructs = g->nstructs;
    bool any_struct = false;
    for (size_t i = 0; i < nstructs; i++) {
        cstruct *s = g->structs[i];
        if (s->is_enum || (s->t && s->t->kind == IR_LITERAL))
            continue;
        mcp_buf_printf(h, "typedef struct %s %s;\n", s->name, s->name);
        if (s->t && s->t->kind == IR_DICT && !s->def && !s->args_of && !s->form_of)
            mcp_buf_printf(h, "typedef struct %s_item %s_item;\n", s->name, s->name);
        any_struct = true;
    }
    if (any_struct)
        mcp_buf_putc(h, '\n');
    /* Enums first: C cannot declare an enum ahead, and even a pointer to one
     * (a list of enum values) needs its name. */
    for (size_t i = 0; i < g->nstructs; i++)
        if (g->structs[i]->is_enum || (g->structs[i]->t && g->structs[i]->t->kind == IR_LITERAL))
            emit_struct(g, g->structs[i]);
    for (size_t i = 0; i < g->nstructs; i++)
        emit_struct(g, g->structs[i]);
    emit_dict_items(g);

    mcp_buf_puts(h, "/* Handlers: define one function per tool. Return MCP_OK after filling *out\n"
                    " * (or after mcp_return_json*), or mcp_fail(call, ...) to fail the call. */\n");
    for (size_t i = 0; i < srv->ntools; i++) {
        const ir_tool *t = &srv->tools[i];
        const char *desc = t->description ? comment_text(g, t->description) : NULL;
        mcp_buf_printf(h, "\n/* %s%s%s */\n", t->name, desc ? ": " : "", desc ? desc : "");
        prototype(g, h, t);
        mcp_buf_puts(h, ";\n");
    }
    beyond_header(g);
    mcp_buf_printf(h, "\n/* The server: pass its address to mcp_main(). */\nextern const mcp_server %s_server;\n",
                   g->prefix);
    mcp_buf_printf(h, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s */\n", guard);

    /* ---- the source */
    mcp_buf *c = g->c;
    mcp_buf_printf(c,
                   "/* %s.mcp.c: generated by mcpidlc %s from %s; do not edit.\n"
                   " * The generated code is yours to use under any terms. */\n"
                   "#include <stddef.h>\n\n#include \"%s.mcp.h\"\n\n",
                   stem, MCPIDL_VERSION_STRING, comment_text(g, source_name), stem);
    mcp_buf_puts(c, "/* Type descriptors, read by libmcpidl's codec. */\n");
    for (size_t i = 0; i < g->ndescs; i++)
        mcp_buf_printf(c, "static const mcp_type %s; /* %s */\n", g->descs[i]->name,
                       comment_text(g, g->descs[i]->key));
    mcp_buf_putc(c, '\n');
    mcp_buf_put(c, g->defs.data ? g->defs.data : "", g->defs.len);

    mcp_buf_puts(c, "/* Thunks: the runtime calls handlers through these. */\n");
    for (size_t i = 0; i < srv->ntools; i++) {
        const ir_tool *t = &srv->tools[i];
        const char *ot = out_type(g, t);
        mcp_buf_printf(c, "static mcp_status %s_thunk(mcp_call *call, const void *in, void *out)\n{\n", t->c_name);
        if (ot) {
            mcp_buf_printf(c, "    return %s_%s(call, in, out);\n}\n\n", g->prefix, t->c_name);
        } else {
            mcp_buf_printf(c, "    (void)out;\n    return %s_%s(call, in);\n}\n\n", g->prefix, t->c_name);
        }
    }

    beyond_source(g, form_desc);
    schema_emitter *se = schema_emitter_new(a, srv);
    if (!se)
        return false;
    if (srv->ntools) {
        mcp_buf_printf(c, "static const mcp_tool %s_tools[] = {\n", g->prefix);
        for (size_t i = 0; i < srv->ntools; i++) {
            const ir_tool *t = &srv->tools[i];
            mcp_buf entry;
            mcp_buf_init(&entry);
            mcp_json_write(&entry, schema_tool_entry(se, t), -1);
            mcp_buf_puts(c, "    {\n        .name = ");
            c_string(c, t->name, strlen(t->name));
            mcp_buf_puts(c, ",\n        .list_entry = ");
            c_string_long(c, entry.data ? entry.data : "{}", entry.len, "            ");
            mcp_buf_free(&entry);
            mcp_buf_printf(c, ",\n        .args = &%s,\n", args_desc[i]);
            if (result_desc[i])
                mcp_buf_printf(c, "        .result = &%s,\n", result_desc[i]);
            mcp_buf_printf(c, "        .output = %s,\n        .structured = %s,\n        .output_title = ", output_kind(t),
                           t->output != IR_OUTPUT_NONE ? "true" : "false");
            const char *title = output_title(g, t);
            c_string(c, title, strlen(title));
            mcp_buf_printf(c, ",\n        .handler = %s_thunk,\n    },\n", t->c_name);
        }
        mcp_buf_puts(c, "};\n\n");
    }
    mcp_buf_printf(c, "const mcp_server %s_server = {\n    .abi = MCPIDL_ABI,\n    .name = ", g->prefix);
    c_string(c, srv->name, strlen(srv->name));
    mcp_buf_puts(c, ",\n    .version = ");
    c_string(c, srv->version, strlen(srv->version));
    if (srv->title) {
        mcp_buf_puts(c, ",\n    .title = ");
        c_string(c, srv->title, strlen(srv->title));
    }
    if (srv->instructions) {
        mcp_buf_puts(c, ",\n    .instructions = ");
        c_string_long(c, srv->instructions, strlen(srv->instructions), "        ");
    }
    if (srv->ntools)
        mcp_buf_printf(c, ",\n    .tools = %s_tools,\n    .ntools = %zu", g->prefix, srv->ntools);
    if (srv->nresources)
        mcp_buf_printf(c, ",\n    .resources = %s_resources,\n    .nresources = %zu", g->prefix, srv->nresources);
    if (srv->ntemplates)
        mcp_buf_printf(c, ",\n    .templates = %s_templates,\n    .ntemplates = %zu", g->prefix, srv->ntemplates);
    if (srv->nprompts)
        mcp_buf_printf(c, ",\n    .prompts = %s_prompts,\n    .nprompts = %zu", g->prefix, srv->nprompts);
    mcp_buf_puts(c, ",\n};\n");

    /* ---- the mock */
    if (mock) {
        mcp_buf *m = &out->mock;
        mcp_buf_printf(m,
                       "/* %s.mock.c: generated by mcpidlc %s from %s; do not edit.\n"
                       " * Mock handlers: every tool answers with canned JSON read at run time\n"
                       " * (mcp_mock_main: --mock FILE). The generated code is yours to use under any terms. */\n"
                       "#include <mcpidl/mock.h>\n\n#include \"%s.mcp.h\"\n",
                       stem, MCPIDL_VERSION_STRING, comment_text(g, source_name), stem);
        for (size_t i = 0; i < srv->ntools; i++) {
            const ir_tool *t = &srv->tools[i];
            mcp_buf_putc(m, '\n');
            prototype(g, m, t);
            mcp_buf_printf(m, "\n{\n    (void)in;\n%s    return mcp_mock_respond(call);\n}\n",
                           out_type(g, t) ? "    (void)out;\n" : "");
        }
        beyond_mock(g, m);
        mcp_buf_printf(m, "\nint main(int argc, char **argv)\n{\n    return mcp_mock_main(&%s_server, argc, argv);\n}\n",
                       g->prefix);
    }
    bool ok = !g->oom && !out->header.oom && !out->source.oom && !out->mock.oom && !g->defs.oom;
    mcp_buf_free(&g->defs);
    return ok;
}
