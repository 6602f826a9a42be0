/* uritemplate.h (internal): URI templates of RFC 6570 level 1 ("test://template/{id}/data"),
 * for resource templates: checked by mcpidlc, matched by the runtime. */
#ifndef MCPIDL_INTERNAL_URITEMPLATE_H
#define MCPIDL_INTERNAL_URITEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

#include "mcpidl/arena.h"

/* Check a template: literal text and {name} expressions, where a name is
 * [A-Za-z0-9_] (RFC 6570 varchar without '%' and '.'), two expressions never
 * adjacent (nothing could tell where one value ends). On success *nvars is the
 * number of expressions; on failure returns false with a message and the byte
 * offset of the problem. */
bool mcp_uri_template_check(const char *tmpl, size_t *nvars, const char **err, size_t *err_off);

/* The name of expression i (0-based) of a valid template, copied into `a`. */
const char *mcp_uri_template_var(const char *tmpl, size_t i, mcp_arena *a);

/* Match `uri` against a valid template. A value is a non-empty run of
 * unreserved characters and %XX escapes (what level-1 expansion produces),
 * percent-decoded into `a`; values[0..nvars) receive them in expression order.
 * False when the URI does not match. */
bool mcp_uri_template_match(const char *tmpl, const char *uri, mcp_arena *a, const char **values, size_t nvars);

#endif
