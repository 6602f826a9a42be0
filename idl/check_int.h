/* check_int.h (internal): the checker's state and the helpers its parts
 * share. check.c checks the top level, types and tools; check_beyond.c the
 * rest of the file (resources, templates, prompts, elicitations). */
#ifndef MCPIDL_IDL_CHECK_INT_H
#define MCPIDL_IDL_CHECK_INT_H

#include "ir.h"

typedef struct def_slot {
    const char *name;
    ir_def *def;
} def_slot;

typedef struct checker {
    mcp_arena *a;
    idl_diags *d;
    const idl_options *opts;
    ir_server *srv;
    def_slot *table; /* open addressing, by name */
    size_t table_cap;
    const char **def_names; /* for "did you mean" */
    size_t suggest_budget;  /* type names left to compare for "did you mean" */
    const ir_field **never_finite_at; /* per type: the field reported as never finite, or NULL */
    size_t *line_starts;    /* byte offset of each line of the source, built when first needed */
    size_t nlines;
    bool lines_built;
} checker;

#define ERR(c, loc, ...) idl_error((c)->d, (loc), __VA_ARGS__)
#define COUNT(a) (sizeof(a) / sizeof *(a))

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
void ck_keys(checker *c, const idl_node *map, const char *const *allowed, size_t nallowed,
             const key_hint *hints, size_t nhints, const char *what);
/* The place of byte `off` of scalar n's value in the source. */
idl_loc ck_loc_in_scalar(checker *c, const idl_node *n, size_t off);
/* A scalar's text, or "a mapping" / "a sequence". */
const char *ck_scalar_text(const idl_node *n);
/* A string value, or NULL after an error naming `what`. */
const char *ck_string(checker *c, const idl_node *n, const char *what);
/* A trimmed description (NULL for null, or after an error). */
char *ck_description(checker *c, const idl_node *n, const char *what);

/* check_beyond.c: resources, resource_templates, prompts, elicitations. */
void ck_beyond(checker *c, const idl_node *root);

#endif
