/* check_int.h (internal): the checker's state and what its parts share.
 *
 *   check.c          idl_check, idl_compile: the top level, `server`, the pass order
 *   check_util.c     keys, strings, places inside scalars, small common readers
 *   check_repeat.c   equality and hashes of values and types, sets of indices and
 *                    sorted names: repeats and collisions found in n log n
 *   check_types.c    named types and type expressions
 *   check_fields.c   fields and parameters, their constraints, 'extra'
 *   check_values.c   defaults and literal values against their types
 *   check_tools.c    tools: params, returns, annotations, structured output
 *   check_file.c     whole-file checks: finite types, by-value cycles, C names
 *   check_beyond.c   resources, resource templates, prompts, elicitations
 *   check_meta.c     header, task, cache, list_changed, scopes, schema_extra
 *   check_registry.c the `registry` section (server.json)

 *   check_display.c  icons and _meta of what is listed; the server's description and websiteUrl
 */
#ifndef MCPIDL_IDL_CHECK_INT_H
#define MCPIDL_IDL_CHECK_INT_H

#include "fmt.h"
#include "ir.h"
#include "node.h"

typedef struct def_slot {
    const char *name;
    ir_def *def;
} def_slot;

/* A default waiting for its check (check_values.c): the field it belongs to,
 * the YAML value, and its owner for messages ("model 'Person'"). */
typedef struct ck_default {
    ir_field *field;
    const idl_node *node;
    const char *owner;
} ck_default;

/* The start of each line of one source file, built when first needed. */
typedef struct ck_lines {
    size_t *starts;
    size_t n;
    bool built;
} ck_lines;

typedef struct checker {
    mcp_arena *a;
    mcp_arena *scratch; /* what is dropped once used: a type expression's syntax tree */
    idl_diags *d;
    const idl_options *opts;
    ir_server *srv;
    def_slot *table; /* open addressing, by name */
    size_t table_cap;
    const char **def_names;           /* for "did you mean" */
    size_t suggest_budget;            /* type names left to compare for "did you mean" */
    const ir_field **never_finite_at; /* per type: the field reported as never finite, or NULL */
    ck_lines *lines;                  /* per file of the diagnostics */
    size_t nline_files;
    const idl_unit *units; /* the files of the compilation (units[0]: the one compiled) */
    size_t nunits;
    bool *sees;           /* sees[u * nunits + v]: file u sees the types of file v */
    const char *prefix;   /* the C prefix of the file being read */
    ck_default *defaults; /* in the order the fields were read */
    size_t ndefaults, cap_defaults;
} checker;

#define ERR(c, loc, ...) idl_error((c)->d, (loc), __VA_ARGS__)
#define COUNT(a) (sizeof(a) / sizeof *(a))

/* ---------------------------------------------------------------- check_util.c */

/* A key valid in a sibling form, with the message to give instead of
 * "unknown key". */
typedef struct key_hint {
    const char *key;
    const char *message;
} key_hint;

bool ck_is_str(const idl_node *n);
bool ck_str_eq(const idl_node *n, const char *s);
/* The key node of `key` in mapping `map` (which must have it). */
const idl_node *ck_map_key(const idl_node *map, const char *key);
/* Report every key of `map` not in allowed[0..nallowed), with "did you mean";
 * `what` names the mapping in messages ("tool 'get_weather'"). */
void ck_keys(checker *c, const idl_node *map, const char *const *allowed, size_t nallowed, const key_hint *hints,
             size_t nhints, const char *what);
/* ck_keys, with `what` made from a format (only when a key is reported, and
 * cut at 299 bytes). */
void ck_keysf(checker *c, const idl_node *map, const char *const *allowed, size_t nallowed, const key_hint *hints,
              size_t nhints, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* A cursor over the places of the bytes of one scalar's value, for offsets
 * asked for in increasing order (the parts of one type expression): each
 * costs only the text between it and the one before. */
typedef struct ck_scalar_pos {
    const idl_node *node;
    bool lost;   /* no place is known from here on */
    size_t off;  /* the offset in the value reached */
    size_t pos;  /* the source byte that gives it */
    idl_loc loc; /* the place of that byte */
} ck_scalar_pos;

void ck_scalar_pos_start(checker *c, ck_scalar_pos *sp, const idl_node *n);
/* The place of byte `off` of the scalar's value. */
idl_loc ck_scalar_pos_at(checker *c, ck_scalar_pos *sp, size_t off);
/* The place of byte `off` of scalar n's value in the source. */
idl_loc ck_loc_in_scalar(checker *c, const idl_node *n, size_t off);

/* Free the line tables. */
void ck_free_lines(checker *c);

/* A scalar's text, or "a mapping" / "a sequence". */
const char *ck_scalar_text(const idl_node *n);
/* A string value, or NULL after an error naming `what`. */
const char *ck_string(checker *c, const idl_node *n, const char *what);
/* A trimmed description (NULL for null, or after an error). */
char *ck_description(checker *c, const idl_node *n, const char *what);
/* The trimmed 'description' of mapping `map`, or NULL when it has none. */
char *ck_description_of(checker *c, const idl_node *map);

/* A section of the top level (`key`), a mapping of NAME: `what`; NULL when it
 * is absent or null, or after an error when it is not a mapping. */
const idl_node *ck_section(checker *c, const idl_node *root, const char *key, const char *what);
/* Whether the body of item p (a `kind`, "tool") is a mapping; if not, an error
 * that lists its keys (keys_hint). */
bool ck_body_ok(checker *c, const idl_pair *p, const char *kind, const char *keys_hint);
/* The C name of an item: the explicit 'c_name' of its mapping `body` (which
 * may be NULL), or `name` made an identifier. */
const char *ck_c_name(checker *c, const idl_node *body, const char *name);

/* A new type, zeroed but for its kind and place (NULL without memory). */
ir_type *ck_new_type(checker *c, ir_kind kind, idl_loc loc);
/* The constraints of t, to be written: allocated for t when it has none yet
 * (it shared ir_no_constraints). NULL without memory. */
ir_constraints *ck_own_constraints(checker *c, ir_type *t);

/* ---------------------------------------------------------------- check_repeat.c */

/* A YAML value as an IR value (a JSON value in the checker's arena): mappings
 * keep their keys in document order, aliases are expanded, an integer beyond
 * int64 holds its clamped value. NULL without memory. */
const mcp_json *ck_value(checker *c, const idl_node *n);
/* Hashes that agree with mcp_json_equal (values are equal as JSON sees them:
 * 1 and 1.0 are) and with the equality of types as Python sees them (the
 * repeated arms of a union). */
uint64_t ck_value_hash(const mcp_json *v);
uint64_t ck_type_hash(const ir_type *t);
/* FNV-1a of n bytes (also the type table's hash of a name). */
uint64_t ck_hash_bytes(const char *s, size_t n);

/* Indices of items[] seen so far, to find a repeat among them. */
typedef struct ck_index_set {
    size_t *slot; /* index + 1; 0: empty */
    uint64_t *hash;
    size_t mask;
} ck_index_set;

typedef bool (*ck_items_equal_fn)(const void *items, size_t a, size_t b);

/* A set for up to n indices; free it with ck_index_set_free. */
void ck_index_set_init(ck_index_set *s, size_t n);
void ck_index_set_free(ck_index_set *s);
/* The index of an item already seen that equals items[i] (whose hash is h), or
 * SIZE_MAX after adding i. Indices are added in increasing order. */
size_t ck_index_set_add(ck_index_set *s, uint64_t h, size_t i, const void *items, ck_items_equal_fn eq);
/* Item equality for arrays of `ir_type *` and of `const mcp_json *`. */
bool ck_types_at_equal(const void *items, size_t a, size_t b);
bool ck_values_at_equal(const void *items, size_t a, size_t b);

/* A name with its index, to be sorted by name then index. */
typedef struct ck_name_ix {
    const char *name;
    size_t ix;
} ck_name_ix;

int ck_name_ix_cmp(const void *a, const void *b);
/* The first position in sorted v[0..n) whose name is not less than `name`. */
size_t ck_name_ix_lower(const ck_name_ix *v, size_t n, const char *name);
/* The end of the run of equal names in sorted v[0..n) that starts at v[g]. */
size_t ck_name_ix_run_end(const ck_name_ix *v, size_t n, size_t g);
/* The sorted (name, index) pairs of the n names at `names`, one every `stride`
 * bytes, NULL names left out; *m receives their count. ck_sorted_index gives
 * malloc'd memory (free it), ck_sorted_names memory of the arena. NULL without
 * memory. */
ck_name_ix *ck_sorted_index(const char *const *names, size_t stride, size_t n, size_t *m);
ck_name_ix *ck_sorted_names(checker *c, const char *const *names, size_t stride, size_t n, size_t *m);
/* The index of the entry of sorted v[0..n) named `name` whose length (len_of) is
 * `len`, or SIZE_MAX: names may hold NUL characters, which strcmp does not see. */
size_t ck_sorted_find(const ck_name_ix *v, size_t n, const char *name, size_t len,
                      size_t (*len_of)(const void *ctx, size_t i), const void *ctx);

/* ---------------------------------------------------------------- check_types.c */

/* The named type called `name`, or NULL. */
ir_def *ck_find_def(checker *c, const char *name);
/* "model", "record" or "enum". */
const char *ck_def_kind_word(const ir_def *def);
/* Room for n named types (of every file). */
void ck_alloc_types(checker *c, size_t n);
/* Pass 2: a shell for every named type of `types` (the section of one file, or
 * NULL), its C name with c->prefix. */
void ck_declare_types(checker *c, const idl_node *types);
/* Pass 3a: the bodies of the named types. */
void ck_define_types(checker *c, const idl_node *types);
/* Parse and resolve the type expression held by scalar `n`; fmt and what
 * follows name it in messages ("type of '%s'", made only for one). */
ir_type *ck_parse_type(checker *c, const idl_node *n, bool allow_content, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---------------------------------------------------------------- check_fields.c */

/* The constraint keys of a field or of returns, in the order key lists give them. */
#define CK_CONSTRAINT_KEY_NAMES \
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", \
        "format", "minItems", "maxItems"

typedef enum ck_field_owner { CK_OWNER_MODEL, CK_OWNER_RECORD, CK_OWNER_PARAMS } ck_field_owner;

/* The mapping of fields or parameters `map` (may be NULL) as an array of *n.
 * `c_owner` is the C name of what holds them, without the prefix (a type's
 * name, TOOL_args), that the C enums of their Literals are named after. */
ir_field *ck_parse_fields(checker *c, const idl_node *map, ck_field_owner owner, const char *owner_what,
                          const char *c_owner, size_t *n);
/* Name the C enums of the Literals in t, the type of a field (or of a tool's
 * return) declared in mapping `spec` (may be NULL): prefix_SITE, or
 * prefix_C_TYPE with the mapping's 'c_type'; when t holds several Literals,
 * each gets _1, _2, ... in the order they are written. `what` names t in
 * messages ("the type of field 'color' of model 'Shirt'"). */
void ck_name_literals(checker *c, ir_type *t, const idl_node *spec, const char *site, const char *what);
/* Whether ck_name_literals has anything to do: t holds a Literal, or `spec`
 * has a 'c_type' (to check). */
bool ck_literals_to_name(const ir_type *t, const idl_node *spec);
/* Apply the constraint keys of mapping `m` to type `t` (to the non-null arm of
 * an Optional). */
void ck_apply_constraints(checker *c, const idl_node *m, ir_type *t);
/* An explicit 'title' of field mapping `map` into f; false when it has none
 * (or after an error). */
bool ck_field_title(checker *c, const idl_node *map, ir_field *f);
/* The 'extra' of mapping `body`, when it has one: ignore (false) or forbid (true). */
void ck_extra_of(checker *c, const idl_node *body, bool *forbid);

/* ---------------------------------------------------------------- check_values.c */

/* Remember the default `node` of field f (of `owner`, copied) for
 * ck_check_defaults. */
void ck_add_default(checker *c, ir_field *f, const idl_node *node, const char *owner);
/* Every default of a type's field or a tool's parameter against its type, in
 * the order they were read; each becomes the field's IR value. */
void ck_check_defaults(checker *c);

/* ---------------------------------------------------------------- check_tools.c */

/* Pass 3b: the `tools` section (or NULL). */
void ck_parse_tools(checker *c, const idl_node *tools);

/* ---------------------------------------------------------------- check_file.c */

/* Types that can never be finite (a value would need itself). */
void ck_check_finite(checker *c);
/* Models and records whose fields hold themselves by value. */
void ck_check_by_value_cycles(checker *c);
/* Mark the types on a reference cycle (ir_def.on_cycle). */
void ck_mark_cycles(checker *c);
/* Collisions of the C names of fields, parameters, tools and types. */
void ck_check_c_names(checker *c);

/* ---------------------------------------------------------------- check_beyond.c */

/* resources, resource_templates, prompts, elicitations. */
void ck_beyond(checker *c, const idl_node *root);

/* ---------------------------------------------------------------- check_meta.c */

/* The 'header' of parameter (or field) spec `spec`, into f (whose type is
 * resolved); an error for a field of a model or record. */
void ck_header_of(checker *c, const idl_node *spec, ck_field_owner owner, const char *owner_what, ir_field *f);
/* Header names repeated (case-insensitively) among a tool's parameters. */
void ck_check_headers(checker *c, const ir_tool *t);
/* The 'task' of tool body `body`. */
void ck_task_of(checker *c, const idl_node *body, ir_tool *t);
/* The 'inline' of tool body `body` (after ck_task_of). */
void ck_inline_of(checker *c, const idl_node *body, ir_tool *t);
/* The 'cache' of mapping `body` (`what` names it); its scope is private when
 * it names none and `private_default`. */
void ck_cache_of(checker *c, const idl_node *body, const char *what, bool private_default, ir_cache *out);
/* The server's 'list_changed', once the sections it names are read. */
void ck_list_changed(checker *c, const idl_node *server);
/* The 'scopes' of mapping `body` (may be NULL). */
void ck_scopes_of(checker *c, const idl_node *body, const char *what, ir_scopes *out);

/* Where a schema_extra is merged: the root of a tool's inputSchema, a named
 * type's schema, a property's schema. */
typedef enum ck_extra_site { CK_EXTRA_TOOL, CK_EXTRA_TYPE, CK_EXTRA_FIELD } ck_extra_site;
/* Whether the YAML value n is one JSON can carry: no infinite or NaN float,
 * no integer beyond 64 bits. Reports the first one found, as inside key `key`
 * of `what`. The loader bounds the depth. */
bool ck_json_value_ok(checker *c, const idl_node *n, const char *key, const char *what);
/* The 'schema_extra' of mapping `body` as a JSON object, or NULL (absent,
 * empty, or after an error). */
const mcp_json *ck_schema_extra_of(checker *c, const idl_node *body, ck_extra_site site, const char *what);

/* ---------------------------------------------------------------- check_registry.c */

/* The `registry` section, once the server is read. */
void ck_registry(checker *c, const idl_node *root);

/* ---------------------------------------------------------------- check_display.c */

/* The 'icons' and '_meta' of mapping `body` (`what` names it: "tool 'x'"). */
void ck_display_of(checker *c, const idl_node *body, const char *what, ir_display *out);
/* The server's 'description', 'websiteUrl', 'icons' and '_meta'. */
void ck_server_display(checker *c, const idl_node *server);
/* Whether s starts with a URI scheme and its ':' (RFC 3986: ALPHA *( ALPHA /
 * DIGIT / "+" / "-" / "." ) ":"). */
bool ck_has_scheme(const char *s);

#endif
