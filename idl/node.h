/* node.h: the YAML document as a tree of located nodes.
 *
 * The loader (yaml_load.c) reads a whole file with libyaml's event parser and
 * builds this tree in an arena. Every node keeps the line and column where it
 * starts. Scalars are resolved by the YAML 1.2 core schema (IDL.md, "Reading
 * the YAML"); mapping keys are always strings, taken verbatim.
 *
 * Aliases share nodes: `b: *a` makes b's value the very node anchored `&a`
 * (with the anchor's location), so the tree is a DAG. A walk that must visit
 * each node once has to remember the nodes it has seen. The loader bounds the
 * DAG: every path from the root crosses at most max_depth mappings and
 * sequences, aliases included, and the tree with every alias expanded has at
 * most max_alias_nodes nodes more than the file spells out.
 */
#ifndef MCPIDL_IDL_NODE_H
#define MCPIDL_IDL_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

typedef enum idl_node_kind {
    IDL_NODE_NULL,
    IDL_NODE_BOOL,
    IDL_NODE_INT, /* fits int64; see `overflow` */
    IDL_NODE_FLOAT,
    IDL_NODE_STR,
    IDL_NODE_MAP,
    IDL_NODE_SEQ,
} idl_node_kind;

typedef enum idl_scalar_style {
    IDL_STYLE_PLAIN,
    IDL_STYLE_SINGLE,  /* 'single quoted' */
    IDL_STYLE_DOUBLE,  /* "double quoted" */
    IDL_STYLE_LITERAL, /* | */
    IDL_STYLE_FOLDED,  /* > */
    IDL_STYLE_BLOCK,   /* a block mapping or sequence */
    IDL_STYLE_FLOW,    /* a {flow mapping} or [flow sequence] */
} idl_scalar_style;

typedef struct idl_node idl_node;

typedef struct idl_pair {
    idl_node *key; /* always IDL_NODE_STR */
    idl_node *value;
} idl_pair;

struct idl_node {
    idl_node_kind kind;
    idl_scalar_style style;
    idl_loc loc;   /* where the node starts (for quoted scalars: the quote) */
    bool overflow; /* an integer that does not fit int64 (value clamped to
                    * INT64_MIN or INT64_MAX), or a float beyond double's
                    * range (value -inf or +inf; underflow is not flagged) */
    /* Scalars: the scalar's text as loaded (after unescaping), NUL-terminated;
     * `len` bytes (the text may contain NUL characters from "\0" escapes). For
     * numbers and booleans this is the source spelling ("1e3", "0x1F", "True").
     * Mappings and sequences: NULL. */
    const char *str;
    size_t len;
    union {
        bool b;
        int64_t i;
        double f;
    } v;
    /* Mappings: pairs in document order (keys are unique). Sequences: items.
     * Empty ones have n == 0 and NULL arrays. */
    size_t n;
    idl_pair *pairs;
    idl_node **items;
};

typedef struct idl_load_limits {
    size_t max_depth;       /* nesting of mappings and sequences; default 64 */
    size_t max_alias_nodes; /* nodes reachable through aliases, counted with repetition; default 100000 */
} idl_load_limits;          /* a field left 0 takes its default */

/* Load one YAML document. On any error, diagnostics are added to `d` and NULL is
 * returned (a partial tree is never returned). Errors: YAML syntax errors
 * (libyaml's message at libyaml's location; a flow-collection error near '[', ']'
 * or ',' adds a hint to quote the type expression), invalid UTF-8, control and
 * NUL characters, a UTF-16 file, an empty file, several documents, duplicate
 * mapping keys (at the second key, with a note at the first), a mapping or sequence
 * used as a key, merge keys (`<<`), undefined or recursive aliases, nesting beyond
 * max_depth, alias expansion beyond max_alias_nodes, tags other than the core ones
 * (!!str, !!int, !!float, !!bool, !!null, !!map, !!seq) and core tags that do not
 * fit the node (`!!int abc`, `!!map x`). Syntax errors, encoding errors, the depth
 * and the alias limits stop the loading at once; the other errors are all
 * reported. `limits` may be NULL for the defaults. */
IDL_NODISCARD idl_node *idl_load_yaml(mcp_arena *arena, idl_diags *d, const char *src, size_t len,
                                      const idl_load_limits *limits);

/* idl_load_yaml for file number `file` of the diagnostics (idl_diags_add_file): every
 * place of the tree and of the diagnostics names it. */
IDL_NODISCARD idl_node *idl_load_yaml_file(mcp_arena *arena, idl_diags *d, uint32_t file, const char *src, size_t len,
                                           const idl_load_limits *limits);

/* Convenience: the value of key `key` in a mapping, or NULL. */
idl_node *idl_map_get(const idl_node *map, const char *key);
/* A short name of the node's kind for messages: "null", "a boolean", "an integer",
 * "a float", "a string", "a mapping", "a sequence"; "nothing" for NULL. */
const char *idl_node_kind_name(const idl_node *n);

#endif
