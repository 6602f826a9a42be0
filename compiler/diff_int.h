/* diff_int.h: what the parts of the contract comparison (diff.h) share:
 * diff.c walks the items and reports, diff_types.c compares types and fields,
 * diff_subset.c decides whether the values of one type are values of another.
 */
#ifndef MCPIDL_COMPILER_DIFF_INT_H
#define MCPIDL_COMPILER_DIFF_INT_H

#include <stdarg.h>

#include "diff.h"
#include "mcpidl/buf.h"

typedef enum side { IN, OUT } side;

/* What a change is about, for its kind. */
typedef enum aspect { A_TYPE, A_VALUES, A_NULL } aspect;

typedef enum kind {
    K_REMOVED,
    K_ADDED,
    K_REQUIRED,
    K_INPUT_REMOVED,
    K_INPUT_NARROWED,
    K_INPUT_VALUES,
    K_INPUT_WIDENED,
    K_OUTPUT_REMOVED,
    K_OUTPUT_OPTIONAL,
    K_OUTPUT_WIDENED,
    K_OUTPUT_VALUES,
    K_OUTPUT_NARROWED,
    K_DEFAULT,
    K_DESCRIPTION,
    K_RENAMED,
    NKINDS
} kind;

/* One diagnostic to print: a head (error, warning or note in NEW) or a note
 * that belongs to the head before it (in OLD or NEW). */
typedef struct entry {
    idl_severity sev;
    bool in_old;
    idl_loc loc;
    idl_loc key; /* the place of its head: the sort key */
    size_t seq;
    const char *msg;
} entry;

/* Whether the values of one named type are values of another: being decided, or decided. */
typedef enum sub_state { SUB_DECIDING, SUB_TRUE, SUB_FALSE } sub_state;
typedef struct sub_pair {
    const ir_def *o, *n; /* of either version: pointers, not indices */
    sub_state state;
} sub_pair;

/* A pair of named types already compared on one side. */
typedef struct seen_pair {
    size_t o, n;
    side s;
} seen_pair;

typedef struct differ {
    mcp_arena *a;
    const diff_source *o, *n;
    const diff_options *opt;
    entry *items;
    size_t len, cap;
    seen_pair *seen;
    size_t nseen, capseen;
    sub_pair *subs;
    size_t nsubs, capsubs;
    size_t errors;
    bool oom;
    idl_loc field; /* the key of the field (or the returns mapping) being compared, in NEW */
} differ;

/* A lower or upper bound of a number: minimum/exclusiveMinimum, or
 * maximum/exclusiveMaximum, the tighter of the two when both are given. */
typedef struct bound {
    bool set, excl;
    double v;
} bound;

/* Reporting (diff.c). A change at `loc` of NEW: "SUBJECT: WHAT; EFFECT [KIND]";
 * `client` and `server`: whether it breaks clients, servers. */
void dx_report(differ *d, idl_loc loc, kind k, bool client, bool server, const char *subject, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* A note after the last change, at `loc` of OLD (in_old) or NEW. */
void dx_note(differ *d, bool in_old, idl_loc loc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A change of the values at a place on side `s`: NEW lost some OLD allowed,
 * gained some it did not, or neither (compatible); the kind follows. */
void dx_judge(differ *d, idl_loc loc, side s, aspect asp, bool lost, bool gained, const char *subject, const char *fmt,
              ...) __attribute__((format(printf, 8, 9)));

/* Text for messages (diff.c), in the differ's arena. */
void dx_put_value(mcp_buf *b, const mcp_json *v);
const char *dx_value_text(differ *d, const mcp_json *v);
const char *dx_type_text(differ *d, const ir_type *t);
bool dx_str_eq(const char *x, const char *y);
idl_loc dx_loc_or(idl_loc a, idl_loc b);

/* Numbers and values (diff_subset.c). */
bound dx_lower_of(const ir_constraints *c);
bound dx_upper_of(const ir_constraints *c);
/* > 0 when bound y admits fewer values than x, < 0 more, 0 the same. */
int dx_tighter(bound x, bound y, bool upper);
/* Whether every multiple of x is a multiple of y (y == 0: no constraint). */
bool dx_multiple_within(double x, double y);
bool dx_is_enum(const ir_type *t);
/* The constant values of a Literal or an enum. */
const mcp_json *const *dx_values_of(const ir_type *t, size_t *n);
bool dx_has_value(const mcp_json *const *vs, size_t n, const mcp_json *v);
/* Whether every value of o is a value of n. */
bool dx_sub(differ *d, const ir_type *o, const ir_type *n, int depth);

/* Types and fields (diff_types.c). */
void dx_cmp_type(differ *d, const char *subject, side s, const ir_type *o, const ir_type *n, idl_loc at);
/* The fields of two models or records (odef, ndef), or the parameters of a
 * tool (NULL, NULL; owner is the tool's name); `word` names them. */
void dx_cmp_fields(differ *d, const char *owner, side s, const ir_def *odef, const ir_def *ndef, const ir_field *ofs,
                   size_t on, const ir_field *nfs, size_t nn, bool oforbid, bool nforbid, idl_loc owner_loc,
                   const char *word);

#endif
