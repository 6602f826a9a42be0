/* check_types.c: named types and type expressions.
 *
 * The names of `types` are declared first (pass 2), so that types may refer to
 * each other in any order; then their bodies are defined (pass 3a): a model's
 * or record's fields (check_fields.c), an enum's values. A type expression
 * (`list[Optional[City]]`) is parsed by texpr_parse and resolved here against
 * the built-in and the named types; unions are flattened, with repeated arms
 * dropped and None last.
 */
#include <stdarg.h>
#include <string.h>

#include "check_int.h"
#include "texpr.h"

/* ---------------------------------------------------------------- the type table */

ir_def *ck_find_def(checker *c, const char *name)
{
    if (!c->table_cap)
        return NULL;
    for (size_t i = ck_hash_bytes(name, strlen(name)) & (c->table_cap - 1);; i = (i + 1) & (c->table_cap - 1)) {
        if (!c->table[i].name)
            return NULL;
        if (strcmp(c->table[i].name, name) == 0)
            return c->table[i].def;
    }
}

static void add_def(checker *c, ir_def *def)
{
    for (size_t i = ck_hash_bytes(def->name, strlen(def->name)) & (c->table_cap - 1);; i = (i + 1) & (c->table_cap - 1))
        if (!c->table[i].name) {
            c->table[i] = (def_slot){def->name, def};
            return;
        }
}

static const char *const BUILTIN_NAMES[] = {
    "int",  "float", "str",      "bool", "bytes", "None",      "any",   "Any",      "content", "list",
    "List", "dict",  "Dict",     "set",  "Set",   "tuple",     "Tuple", "Optional", "Union",   "Literal",
    "True", "False", "datetime", "date", "time",  "timedelta", "uuid",  "url",      "decimal",
};

const ir_constraints ir_no_constraints = {0};

const char *ir_format_name(mcp_format f)
{
    static const char *const N[] = {[MCP_FMT_DATETIME] = "datetime",   [MCP_FMT_DATE] = "date", [MCP_FMT_TIME] = "time",
                                    [MCP_FMT_TIMEDELTA] = "timedelta", [MCP_FMT_UUID] = "uuid", [MCP_FMT_URL] = "url",
                                    [MCP_FMT_DECIMAL] = "decimal"};
    return f > MCP_FMT_NONE && f <= MCP_FMT_DECIMAL ? N[f] : "?";
}

const char *ir_format_schema(mcp_format f)
{
    static const char *const N[] = {[MCP_FMT_DATETIME] = "date-time", [MCP_FMT_DATE] = "date", [MCP_FMT_TIME] = "time",
                                    [MCP_FMT_TIMEDELTA] = "duration", [MCP_FMT_UUID] = "uuid", [MCP_FMT_URL] = "uri",
                                    [MCP_FMT_DECIMAL] = NULL};
    return f > MCP_FMT_NONE && f <= MCP_FMT_DECIMAL ? N[f] : NULL;
}

static bool is_builtin_name(const char *s)
{
    for (size_t i = 0; i < COUNT(BUILTIN_NAMES); i++)
        if (strcmp(s, BUILTIN_NAMES[i]) == 0)
            return true;
    return false;
}

static bool is_type_name(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return false;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* The path of the file a place lies in, for messages. */
static const char *file_of(const checker *c, idl_loc loc) { return idl_diags_file(c->d, loc.file, NULL, NULL); }

/* ---------------------------------------------------------------- type expressions */

typedef struct texpr_ctx {
    const idl_node *node; /* the scalar holding the expression */
    bool allow_content;
    ck_scalar_pos pos; /* for places inside it */
} texpr_ctx;

/* Flatten, drop duplicates, put None last; one arm left is that arm. */
static ir_type *make_union(checker *c, idl_loc loc, ir_type **arms, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += arms[i]->kind == IR_UNION ? arms[i]->nitems : 1;
    ir_type **flat = mcp_arena_alloc(c->a, (total ? total : 1) * sizeof *flat);
    if (!flat)
        return NULL;
    size_t k = 0;
    bool has_none = false;
    ir_type *none = NULL;
    ck_index_set seen;
    ck_index_set_init(&seen, total);
    for (size_t i = 0; i < n; i++) {
        ir_type **src = arms[i]->kind == IR_UNION ? arms[i]->items : &arms[i];
        size_t m = arms[i]->kind == IR_UNION ? arms[i]->nitems : 1;
        for (size_t j = 0; j < m; j++) {
            ir_type *t = src[j];
            if (t->kind == IR_NONE) {
                has_none = true;
                none = t;
                continue;
            }
            flat[k] = t;
            if (ck_index_set_add(&seen, ck_type_hash(t), k, flat, ck_types_at_equal) == SIZE_MAX)
                k++;
        }
    }
    ck_index_set_free(&seen);
    if (has_none)
        flat[k++] = none;
    if (k == 1)
        return flat[0];
    ir_type *u = ck_new_type(c, IR_UNION, loc);
    if (u) {
        u->items = flat;
        u->nitems = k;
    }
    return u;
}

/* A value of a Literal (a string, an integer, True, False or None). */
static const mcp_json *literal_value(checker *c, const texpr *e)
{
    switch (e->kind) {
    case TEXPR_STRING:
        return mcp_json_new_string(c->a, e->str, e->len);
    case TEXPR_INT:
        return mcp_json_new_int(c->a, e->ival);
    default:
        if (strcmp(e->name, "True") == 0 || strcmp(e->name, "False") == 0)
            return mcp_json_new_bool(c->a, e->name[0] == 'T');
        return mcp_json_new_null(c->a);
    }
}

static const char *const GENERIC_NAMES[] = {"list", "List",  "set",   "Set",      "dict",
                                            "Dict", "tuple", "Tuple", "Optional", "Union"};

static ir_type *resolve(checker *c, texpr_ctx *x, const texpr *e);

/* The types of every argument of e (an array of e->nargs), or NULL when one does
 * not resolve (each one that does not is reported). */
static ir_type **resolve_args(checker *c, texpr_ctx *x, const texpr *e)
{
    ir_type **types = mcp_arena_alloc(c->a, e->nargs * sizeof *types);
    if (!types)
        return NULL;
    bool ok = true;
    for (size_t i = 0; i < e->nargs; i++)
        ok &= (types[i] = resolve(c, x, e->args[i])) != NULL;
    return ok ? types : NULL;
}

static ir_type *resolve_name(checker *c, texpr_ctx *x, const texpr *e, idl_loc loc)
{
    static const struct {
        const char *name;
        ir_kind kind;
    } SCALARS[] = {
        {"int", IR_INT},     {"float", IR_FLOAT}, {"str", IR_STR}, {"bool", IR_BOOL},
        {"bytes", IR_BYTES}, {"None", IR_NONE},   {"any", IR_ANY}, {"Any", IR_ANY},
    };
    for (size_t i = 0; i < COUNT(SCALARS); i++)
        if (strcmp(e->name, SCALARS[i].name) == 0)
            return ck_new_type(c, SCALARS[i].kind, loc);
    for (mcp_format f = MCP_FMT_DATETIME; f <= MCP_FMT_DECIMAL; f++)
        if (strcmp(e->name, ir_format_name(f)) == 0) {
            ir_type *t = ck_new_type(c, IR_FORMAT, loc);
            if (t)
                t->format = f;
            return t;
        }
    if (strcmp(e->name, "content") == 0) {
        if (!x->allow_content) {
            ERR(c, loc, "'content' is only allowed as a tool's whole return type");
            return NULL;
        }
        return ck_new_type(c, IR_CONTENT, loc);
    }
    for (size_t i = 0; i < COUNT(GENERIC_NAMES); i++)
        if (strcmp(e->name, GENERIC_NAMES[i]) == 0) {
            ERR(c, loc, "'%s' needs type arguments, e.g. '%s'", e->name,
                e->name[0] == 'd' || e->name[0] == 'D'   ? "dict[str, int]"
                : e->name[0] == 'O'                      ? "Optional[int]"
                : e->name[0] == 'U'                      ? "Union[int, str]"
                : e->name[0] == 't' || e->name[0] == 'T' ? "tuple[int, str]"
                                                         : "list[int]");
            return NULL;
        }
    if (strcmp(e->name, "Literal") == 0) {
        ERR(c, loc, "'Literal' needs values, e.g. Literal['a', 'b']");
        return NULL;
    }
    if (strcmp(e->name, "True") == 0 || strcmp(e->name, "False") == 0) {
        ERR(c, loc, "expected a type, found '%s'; write Literal[%s]", e->name, e->name);
        return NULL;
    }
    ir_def *def = ck_find_def(c, e->name);
    if (!def) {
        /* A suggestion compares the name with every type's: a file with thousands of
         * unknown names among thousands of types gets suggestions until a budget of
         * comparisons is spent (and none once the diagnostics are cut short). */
        bool shown = c->d->len < c->d->max_items && c->srv->ndefs <= c->suggest_budget;
        if (shown)
            c->suggest_budget -= c->srv->ndefs;
        const char *near = shown ? idl_did_you_mean(e->name, c->def_names, c->srv->ndefs) : NULL;
        if (!near && shown) {
            static const char *const KNOWN[] = {"int",      "float", "str",  "bool",      "bytes", "None", "any",
                                                "datetime", "date",  "time", "timedelta", "uuid",  "url",  "decimal"};
            near = idl_did_you_mean(e->name, KNOWN, COUNT(KNOWN));
        }
        if (near)
            ERR(c, loc, "unknown type '%s'; did you mean '%s'?", e->name, near);
        else
            ERR(c, loc, "unknown type '%s'", e->name);
        return NULL;
    }
    uint32_t from = x->node->loc.file;
    if (c->sees && from < c->nunits && def->loc.file < c->nunits && !c->sees[from * c->nunits + def->loc.file]) {
        ERR(c, loc, "type '%s' is defined in '%s', which '%s' does not import; add it to 'imports'", e->name,
            file_of(c, def->loc), file_of(c, x->node->loc));
        idl_note(c->d, def->loc, "'%s' is defined here", e->name);
        return NULL;
    }
    ir_type *t = ck_new_type(c, IR_NAMED, loc);
    if (t)
        t->def = def;
    return t;
}

/* A list, set or dict of `elem`; NULL when elem is (it did not resolve). */
static ir_type *container(checker *c, ir_kind kind, idl_loc loc, ir_type *elem)
{
    if (!elem)
        return NULL;
    ir_type *t = ck_new_type(c, kind, loc);
    if (t)
        t->elem = elem;
    return t;
}

static bool check_arity(checker *c, const texpr *e, idl_loc loc, size_t want, const char *example)
{
    if (e->nargs == want)
        return true;
    ERR(c, loc, "'%s' takes %zu type argument%s, not %zu (e.g. '%s')", e->name, want, want == 1 ? "" : "s", e->nargs,
        example);
    return false;
}

static ir_type *resolve_generic(checker *c, texpr_ctx *x, const texpr *e, idl_loc loc)
{
    const char *h = e->name;
    /* `...` is only allowed as the second argument of tuple. */
    bool is_tuple = strcmp(h, "tuple") == 0 || strcmp(h, "Tuple") == 0;
    for (size_t i = 0; i < e->nargs; i++)
        if (e->args[i]->kind == TEXPR_ELLIPSIS && !(is_tuple && i == 1 && e->nargs == 2)) {
            ERR(c, ck_scalar_pos_at(c, &x->pos, e->args[i]->off), "'...' is only allowed in tuple[T, ...]");
            return NULL;
        }
    if (strcmp(h, "list") == 0 || strcmp(h, "List") == 0 || strcmp(h, "set") == 0 || strcmp(h, "Set") == 0) {
        if (!check_arity(c, e, loc, 1, h[0] == 's' || h[0] == 'S' ? "set[str]" : "list[str]"))
            return NULL;
        return container(c, h[0] == 's' || h[0] == 'S' ? IR_SET : IR_LIST, loc, resolve(c, x, e->args[0]));
    }
    if (strcmp(h, "dict") == 0 || strcmp(h, "Dict") == 0) {
        if (!check_arity(c, e, loc, 2, "dict[str, int]"))
            return NULL;
        const texpr *k = e->args[0];
        bool int_keys = false;
        if (k->kind == TEXPR_NAME && strcmp(k->name, "int") == 0)
            int_keys = true;
        else if (!(k->kind == TEXPR_NAME && strcmp(k->name, "str") == 0)) {
            if (k->kind == TEXPR_NAME)
                ERR(c, ck_scalar_pos_at(c, &x->pos, k->off), "dict keys must be 'str' or 'int', not '%s'", k->name);
            else
                ERR(c, ck_scalar_pos_at(c, &x->pos, k->off), "dict keys must be 'str' or 'int'");
            return NULL;
        }
        ir_type *t = container(c, IR_DICT, loc, resolve(c, x, e->args[1]));
        if (t)
            t->int_keys = int_keys;
        return t;
    }
    if (is_tuple) {
        if (e->nargs == 2 && e->args[1]->kind == TEXPR_ELLIPSIS) {
            ir_type *t = container(c, IR_LIST, loc, resolve(c, x, e->args[0]));
            if (t)
                t->tuple_variadic = true;
            return t;
        }
        ir_type **items = resolve_args(c, x, e);
        if (!items)
            return NULL;
        ir_type *t = ck_new_type(c, IR_TUPLE, loc);
        if (t) {
            t->items = items;
            t->nitems = e->nargs;
        }
        return t;
    }
    if (strcmp(h, "Optional") == 0) {
        if (!check_arity(c, e, loc, 1, "Optional[str]"))
            return NULL;
        ir_type *arms[2] = {resolve(c, x, e->args[0]), ck_new_type(c, IR_NONE, loc)};
        if (!arms[0] || !arms[1])
            return NULL;
        return make_union(c, loc, arms, 2);
    }
    if (strcmp(h, "Union") == 0) {
        ir_type **arms = resolve_args(c, x, e);
        return arms ? make_union(c, loc, arms, e->nargs) : NULL;
    }
    if (is_builtin_name(h) || ck_find_def(c, h)) {
        ERR(c, loc, "'%s' takes no type arguments", h);
        return NULL;
    }
    const char *near = idl_did_you_mean(h, GENERIC_NAMES, COUNT(GENERIC_NAMES));
    if (near)
        ERR(c, loc, "unknown generic type '%s'; did you mean '%s'?", h, near);
    else
        ERR(c, loc, "unknown generic type '%s'", h);
    return NULL;
}

static ir_type *resolve(checker *c, texpr_ctx *x, const texpr *e)
{
    idl_loc loc = ck_scalar_pos_at(c, &x->pos, e->off);
    switch (e->kind) {
    case TEXPR_NAME:
        return resolve_name(c, x, e, loc);
    case TEXPR_GENERIC:
        return resolve_generic(c, x, e, loc);
    case TEXPR_UNION: {
        ir_type **arms = resolve_args(c, x, e);
        return arms ? make_union(c, loc, arms, e->nargs) : NULL;
    }
    case TEXPR_LITERAL: {
        const mcp_json **vals = mcp_arena_alloc(c->a, e->nargs * sizeof *vals);
        if (!vals)
            return NULL;
        size_t k = 0;
        ck_index_set seen;
        ck_index_set_init(&seen, e->nargs);
        for (size_t i = 0; i < e->nargs; i++) {
            const texpr *v = e->args[i];
            const char *problem = v->kind == TEXPR_INT && v->overflow ? "Literal integer does not fit in 64 bits"
                                  : v->kind == TEXPR_STRING && memchr(v->str, 0, v->len)
                                      ? "Literal strings cannot contain NUL characters"
                                      : NULL;
            const mcp_json *n = problem ? NULL : literal_value(c, v);
            if (!n) {
                if (problem)
                    ERR(c, ck_scalar_pos_at(c, &x->pos, v->off), "%s", problem);
                ck_index_set_free(&seen);
                return NULL;
            }
            vals[k] = n;
            if (ck_index_set_add(&seen, ck_value_hash(n), k, vals, ck_values_at_equal) == SIZE_MAX)
                k++;
        }
        ck_index_set_free(&seen);
        ir_type *t = ck_new_type(c, IR_LITERAL, loc);
        if (t) {
            t->values = vals;
            t->nvalues = k;
        }
        return t;
    }
    case TEXPR_ELLIPSIS:
        ERR(c, loc, "'...' is only allowed in tuple[T, ...]");
        return NULL;
    default:
        ERR(c, loc, "expected a type");
        return NULL;
    }
}

ir_type *ck_parse_type(checker *c, const idl_node *n, bool allow_content, const char *fmt, ...)
{
    if (!ck_is_str(n)) {
        char what[300]; /* cut as its callers have always cut it */
        va_list ap;
        va_start(ap, fmt);
        idl_vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        if (n->kind == IDL_NODE_NULL)
            ERR(c, n->loc, "%s: expected a type expression, found nothing", what);
        else if (n->kind == IDL_NODE_MAP || n->kind == IDL_NODE_SEQ)
            ERR(c, n->loc, "%s: expected a type expression, not %s", what, idl_node_kind_name(n));
        else
            ERR(c, n->loc, "%s: expected a type expression, not %s '%s'", what, idl_node_kind_name(n), n->str);
        return NULL;
    }
    /* The syntax tree is dropped once resolved: the type keeps nothing of it. */
    texpr_error err;
    texpr *e = texpr_parse(c->scratch, n->str, n->len, 0, &err);
    if (!e) {
        ERR(c, ck_loc_in_scalar(c, n, err.off), "%s", err.message);
        mcp_arena_reset(c->scratch);
        return NULL;
    }
    texpr_ctx x = {n, allow_content, {0}};
    ck_scalar_pos_start(c, &x.pos, n);
    ir_type *t = resolve(c, &x, e);
    mcp_arena_reset(c->scratch);
    return t;
}

/* ---------------------------------------------------------------- named types */

static const char *const MODEL_KEYS[] = {"kind", "description", "extra", "fields", "schema_extra"};
static const char *const ENUM_KEYS[] = {"kind", "description", "values"};

const char *ck_def_kind_word(const ir_def *def)
{
    return def->kind == IR_DEF_ENUM ? "enum" : def->kind == IR_DEF_RECORD ? "record" : "model";
}

void ck_alloc_types(checker *c, size_t n)
{
    size_t cap = 16;
    while (cap < n * 2)
        cap *= 2;
    c->table = mcp_arena_alloc(c->a, cap * sizeof *c->table);
    c->def_names = mcp_arena_alloc(c->a, (n ? n : 1) * sizeof *c->def_names);
    c->srv->defs = mcp_arena_alloc(c->a, (n ? n : 1) * sizeof *c->srv->defs);
    if (c->table && c->def_names && c->srv->defs)
        c->table_cap = cap;
}

/* A shell for every named type, so that references resolve in any order. */
void ck_declare_types(checker *c, const idl_node *types)
{
    if (!types || !c->table_cap)
        return;
    for (size_t i = 0; i < types->n; i++) {
        const idl_node *k = types->pairs[i].key, *v = types->pairs[i].value;
        if (!is_type_name(k->str)) {
            ERR(c, k->loc, "invalid type name '%s': a type name is a letter or '_' followed by letters, digits or '_'",
                k->str);
            continue;
        }
        if (is_builtin_name(k->str)) {
            ERR(c, k->loc, "'%s' is a built-in type name; choose another name", k->str);
            continue;
        }
        const ir_def *first = ck_find_def(c, k->str);
        if (first) {
            /* Keys of one mapping are unique: the other is in another file. */
            ERR(c, k->loc, "type '%s' is already defined in '%s'", k->str, file_of(c, first->loc));
            idl_note(c->d, first->loc, "'%s' first defined here", k->str);
            continue;
        }
        ir_def *def = mcp_arena_alloc(c->a, sizeof *def);
        if (!def)
            return;
        def->name = k->str;
        def->loc = k->loc;
        def->c_name = idl_fmt(c->a, "%s_%s", c->prefix, k->str);
        def->kind = IR_DEF_MODEL;
        if (v->kind == IDL_NODE_MAP) {
            const idl_node *kind = idl_map_get(v, "kind");
            if (kind) {
                if (ck_str_eq(kind, "model"))
                    def->kind = IR_DEF_MODEL;
                else if (ck_str_eq(kind, "record"))
                    def->kind = IR_DEF_RECORD;
                else if (ck_str_eq(kind, "enum"))
                    def->kind = IR_DEF_ENUM;
                else {
                    static const char *const KINDS[] = {"model", "record", "enum"};
                    const char *near = ck_is_str(kind) ? idl_did_you_mean(kind->str, KINDS, 3) : NULL;
                    if (near)
                        ERR(c, kind->loc, "unknown kind '%s'; did you mean '%s'?", ck_scalar_text(kind), near);
                    else
                        ERR(c, kind->loc, "unknown kind '%s': a type is a model, a record or an enum",
                            ck_scalar_text(kind));
                }
            }
        }
        def->index = c->srv->ndefs;
        c->srv->defs[c->srv->ndefs] = def;
        c->def_names[c->srv->ndefs++] = def->name;
        add_def(c, def);
    }
}

static void define_enum(checker *c, ir_def *def, const idl_node *body)
{
    const idl_node *values = idl_map_get(body, "values");
    if (!values) {
        ERR(c, def->loc, "enum '%s' has no 'values'", def->name);
        return;
    }
    if (values->kind != IDL_NODE_SEQ || values->n == 0) {
        ERR(c, values->loc, "'values' of enum '%s' must be a non-empty list", def->name);
        return;
    }
    def->values = mcp_arena_alloc(c->a, values->n * sizeof *def->values);
    if (!def->values)
        return;
    bool strings = false, ints = false;
    ck_index_set seen;
    ck_index_set_init(&seen, values->n);
    for (size_t i = 0; i < values->n; i++) {
        const idl_node *v = values->items[i];
        bool is_str = v->kind == IDL_NODE_STR;
        if (is_str && memchr(v->str, 0, v->len)) {
            ERR(c, v->loc, "enum values cannot contain NUL characters");
            continue;
        }
        if (!is_str && !(v->kind == IDL_NODE_INT && !v->overflow)) {
            ERR(c, v->loc, "enum values must be strings or 64-bit integers, not %s%s%s", idl_node_kind_name(v),
                v->kind <= IDL_NODE_FLOAT ? " " : "", v->kind <= IDL_NODE_FLOAT ? v->str : "");
            continue;
        }
        if (is_str ? ints : strings) {
            ERR(c, v->loc, "enum '%s' mixes strings and integers: its values must be all strings or all integers",
                def->name);
            continue;
        }
        *(is_str ? &strings : &ints) = true;
        const mcp_json *value = ck_value(c, v);
        if (!value)
            break;
        def->values[def->nvalues] = value;
        if (ck_index_set_add(&seen, ck_value_hash(value), def->nvalues, def->values, ck_values_at_equal) == SIZE_MAX)
            def->nvalues++;
        else
            ERR(c, v->loc, "enum '%s' repeats the value '%s'", def->name, v->str);
    }
    ck_index_set_free(&seen);
    def->int_enum = ints;
}

void ck_define_types(checker *c, const idl_node *types)
{
    if (!types)
        return;
    for (size_t i = 0; i < types->n; i++) {
        const idl_node *k = types->pairs[i].key, *body = types->pairs[i].value;
        ir_def *def = ck_find_def(c, k->str);
        if (!def || def->loc.line != k->loc.line || def->loc.col != k->loc.col || def->loc.file != k->loc.file)
            continue; /* not declared, or a repeated name */
        if (!ck_body_ok(c, &types->pairs[i], "type", "kind, fields or values, ..."))
            continue;
        char what[300];
        idl_snprintf(what, sizeof what, "%s '%s'", ck_def_kind_word(def), def->name);
        if (def->kind == IR_DEF_ENUM) {
            static const key_hint HINTS[] = {
                {"fields", "'fields' is not allowed on an enum; an enum has 'values'"},
                {"extra", "'extra' is not allowed on an enum"},
                {"schema_extra", "'schema_extra' applies to models and records, not to an enum"},
            };
            ck_keys(c, body, ENUM_KEYS, COUNT(ENUM_KEYS), HINTS, COUNT(HINTS), what);
            define_enum(c, def, body);
        } else {
            static const key_hint HINTS[] = {
                {"values", "'values' is only allowed on enums (kind: enum)"},
            };
            ck_keys(c, body, MODEL_KEYS, COUNT(MODEL_KEYS), HINTS, COUNT(HINTS), what);
            ck_extra_of(c, body, &def->extra_forbid);
            def->fields = ck_parse_fields(c, idl_map_get(body, "fields"),
                                          def->kind == IR_DEF_MODEL ? CK_OWNER_MODEL : CK_OWNER_RECORD, what, def->name,
                                          &def->nfields);
            def->schema_extra = ck_schema_extra_of(c, body, CK_EXTRA_TYPE, what);
        }
        /* As a class docstring: an empty one is none. */
        def->description = ck_description_of(c, body);
        if (def->description && !*def->description)
            def->description = NULL;
    }
}
