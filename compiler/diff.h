/* diff.h: the changes between two versions of a contract, each classified as
 * breaking or compatible for clients and for servers (`mcpidlc diff`).
 *
 * Both versions are compared on their checked IR, side by side: tools,
 * resources, resource templates and prompts by name; parameters and fields by
 * name; types structurally (a named type renamed but equal in structure is the
 * same type). A change on the input side (parameters, and the types they
 * reach) is judged by the values a client may send, one on the output side by
 * the values a client may receive:
 *
 *   clients  a client written against OLD, talking to a server of NEW;
 *   servers  a server still implementing OLD, meeting a client of NEW.
 *
 * Input that NEW accepts no longer (narrowed) breaks clients; input it newly
 * accepts (widened) breaks servers. Output NEW may newly send (widened) breaks
 * clients; output it no longer sends (narrowed) breaks servers.
 *
 * Each change is a diagnostic at its place in NEW (a removal at the enclosing
 * place, with a note at the place in OLD): an error when it breaks clients, a
 * warning when it breaks servers only, a note when it is compatible. Its
 * message ends with its kind, "[input-narrowed]"; the kinds of `allow` are
 * accepted on purpose (their changes are no longer errors).
 */
#ifndef MCPIDL_COMPILER_DIFF_H
#define MCPIDL_COMPILER_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "ir.h"
#include "node.h"

/* One version: its file name as shown, its text, its IR and YAML tree. */
typedef struct diff_source {
    const char *file;
    const char *src;
    size_t len;
    const ir_server *srv;
    const idl_node *root;
    const idl_diags *files; /* the files places point into (imports), or NULL */
} diff_source;

/* Receives each diagnostic, in order, with the name of the file it points into. */
typedef void (*diff_emit_fn)(void *ctx, const char *file, const idl_diag *g, const char *text, size_t len);

typedef struct diff_options {
    const char *const *allow; /* kinds accepted on purpose */
    size_t nallow;
    bool werror;      /* changes that break servers are errors too */
    bool show_source; /* source lines and carets */
    diff_emit_fn emit;
    void *ctx;
} diff_options;

/* Compare, hand each diagnostic to o->emit, and set *errors to the number of
 * errors. False when out of memory. */
IDL_NODISCARD bool contract_diff(mcp_arena *a, const diff_source *old, const diff_source *now, const diff_options *o,
                                 size_t *errors);

/* Whether `kind` names a kind of change ("removed", "input-narrowed", ...). */
bool diff_kind_known(const char *kind);
/* The kinds, comma-separated, for messages. */
const char *diff_kind_list(void);

#endif
