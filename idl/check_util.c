/* check_util.c: what every part of the checker uses: the keys of a mapping,
 * strings and descriptions, places inside scalars (a type expression or a
 * pattern is reported at the exact character), and the small readers that
 * types, tools and the sections beyond them share (sections, bodies, C names).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_int.h"
#include "internal/utf8.h"

/* ---------------------------------------------------------------- keys */

bool ck_is_str(const idl_node *n) { return n && n->kind == IDL_NODE_STR; }

/* The key node of `key` in mapping `map` (which must have it). */
const idl_node *ck_map_key(const idl_node *map, const char *key)
{
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->pairs[i].key->str, key) == 0)
            return map->pairs[i].key;
    return map;
}

bool ck_str_eq(const idl_node *n, const char *s) { return ck_is_str(n) && strcmp(n->str, s) == 0; }

/* The name of the mapping in messages: `what`, or made from fmt and ap when
 * first needed (cut at 299 bytes). */
typedef struct what_text {
    const char *what;
    const char *fmt;
    va_list *ap;
    char buf[300];
} what_text;

static const char *what_of(what_text *w)
{
    if (!w->what) {
        idl_vsnprintf(w->buf, sizeof w->buf, w->fmt, *w->ap);
        w->what = w->buf;
    }
    return w->what;
}

/* Check the keys of a mapping against the allowed ones. `hints` lists keys
 * that are valid in a sibling form, with a message for each (may be NULL). */
static void check_keys(checker *c, const idl_node *map, const char *const *allowed, size_t nallowed,
                       const key_hint *hints, size_t nhints, what_text *w)
{
    for (size_t i = 0; i < map->n; i++) {
        const idl_node *k = map->pairs[i].key;
        bool ok = false;
        for (size_t j = 0; j < nallowed && !ok; j++)
            ok = strcmp(k->str, allowed[j]) == 0;
        if (ok)
            continue;
        bool hinted = false;
        for (size_t j = 0; j < nhints && !hinted; j++)
            if (strcmp(k->str, hints[j].key) == 0) {
                ERR(c, k->loc, "%s", hints[j].message);
                hinted = true;
            }
        if (hinted)
            continue;
        const char *near = idl_did_you_mean(k->str, allowed, nallowed);
        if (near)
            ERR(c, k->loc, "unknown key '%s' in %s; did you mean '%s'?", k->str, what_of(w), near);
        else
            ERR(c, k->loc, "unknown key '%s' in %s", k->str, what_of(w));
    }
}

void ck_keys(checker *c, const idl_node *map, const char *const *allowed, size_t nallowed, const key_hint *hints,
             size_t nhints, const char *what)
{
    what_text w = {.what = what};
    check_keys(c, map, allowed, nallowed, hints, nhints, &w);
}

void ck_keysf(checker *c, const idl_node *map, const char *const *allowed, size_t nallowed, const key_hint *hints,
              size_t nhints, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    what_text w = {.fmt = fmt, .ap = &ap};
    check_keys(c, map, allowed, nallowed, hints, nhints, &w);
    va_end(ap);
}

/* ---- places inside a scalar
 *
 * A type expression or a pattern is reported at the exact character. The
 * scalar's text is the loaded value: to find a column, the source is read from
 * the scalar's start, escapes ("\\d", "\u00e9", '') counted as written. Past a
 * line break (a multi-line scalar) and in block scalars, the scalar's start is
 * the place. A cursor moves forward only, so that the places of the parts of one
 * expression, asked for in order, cost one pass over it. */

/* A line ends at "\n", "\r\n" or a lone "\r", as libyaml reads them. */
static bool is_break(const char *src, size_t len, size_t i)
{
    return src[i] == '\n' || (src[i] == '\r' && (i + 1 >= len || src[i + 1] != '\n'));
}

/* Byte offset of the start of line `line` (1-based) of file `file`, or SIZE_MAX. */
static size_t line_start(checker *c, uint32_t file, uint32_t line)
{
    if (!c->lines) {
        c->nline_files = c->d->nfiles + 1;
        c->lines = calloc(c->nline_files, sizeof *c->lines);
        if (!c->lines)
            return SIZE_MAX;
    }
    if (file >= c->nline_files)
        return SIZE_MAX;
    ck_lines *l = &c->lines[file];
    if (!l->built) {
        l->built = true;
        const char *src;
        size_t len;
        idl_diags_file(c->d, file, &src, &len);
        /* Without a '\r', every break is a '\n': memchr finds them. */
        bool lf_only = src && !memchr(src, '\r', len);
        size_t n = 1;
        if (lf_only)
            for (const char *p = src; (p = memchr(p, '\n', len - (size_t)(p - src))) != NULL; p++)
                n++;
        else
            for (size_t i = 0; i < len; i++)
                n += is_break(src, len, i);
        l->starts = src ? malloc(n * sizeof *l->starts) : NULL;
        if (l->starts) {
            /* libyaml does not count a byte-order mark as a character */
            l->starts[0] = len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
            l->n = 1;
            if (lf_only)
                for (const char *p = src; (p = memchr(p, '\n', len - (size_t)(p - src))) != NULL; p++)
                    l->starts[l->n++] = (size_t)(p - src) + 1;
            else
                for (size_t i = 0; i < len; i++)
                    if (is_break(src, len, i))
                        l->starts[l->n++] = i + 1;
        }
    }
    if (!l->starts || line == 0 || line > l->n)
        return SIZE_MAX;
    return l->starts[line - 1];
}

void ck_free_lines(checker *c)
{
    for (size_t i = 0; c->lines && i < c->nline_files; i++)
        free(c->lines[i].starts);
    free(c->lines);
    c->lines = NULL;
}

/* The byte length of the source character at src[p] (the loader has checked
 * the file is UTF-8; a stray byte counts as one). */
static size_t utf8_width(const char *src, size_t len, size_t p)
{
    size_t w = mcp_utf8_seq((const unsigned char *)src + p, len - p, NULL, NULL);
    return w ? w : 1;
}

static size_t hex_value(const char *s, size_t n, size_t digits, uint32_t *out)
{
    uint32_t v = 0;
    for (size_t i = 0; i < digits; i++) {
        if (i >= n)
            return 0;
        char ch = s[i];
        int d = ch >= '0' && ch <= '9'                     ? ch - '0'
                : (ch | 0x20) >= 'a' && (ch | 0x20) <= 'f' ? (ch | 0x20) - 'a' + 10
                                                           : -1;
        if (d < 0)
            return 0;
        v = v * 16 + (uint32_t)d;
    }
    *out = v;
    return digits;
}

void ck_scalar_pos_start(checker *c, ck_scalar_pos *sp, const idl_node *n)
{
    *sp = (ck_scalar_pos){.node = n, .loc = n->loc};
    sp->lost = n->style != IDL_STYLE_PLAIN && n->style != IDL_STYLE_SINGLE && n->style != IDL_STYLE_DOUBLE;
    size_t p = sp->lost ? SIZE_MAX : line_start(c, n->loc.file, n->loc.line);
    if (p == SIZE_MAX) {
        sp->lost = true;
        return;
    }
    const char *src;
    size_t len;
    idl_diags_file(c->d, n->loc.file, &src, &len);
    for (uint32_t col = 1; col < n->loc.col && p < len && src[p] != '\n' && src[p] != '\r'; col++)
        p += utf8_width(src, len, p);
    if (n->style != IDL_STYLE_PLAIN) {
        p++; /* the opening quote */
        sp->loc.col++;
    }
    sp->pos = p;
}

idl_loc ck_scalar_pos_at(checker *c, ck_scalar_pos *sp, size_t off)
{
    const char *src;
    size_t len;
    idl_diags_file(c->d, sp->node->loc.file, &src, &len);
    if (!src) {
        /* No source at hand: count the value's characters, as if nothing were escaped. */
        const idl_node *n = sp->node;
        idl_loc l = n->loc;
        if (n->style == IDL_STYLE_LITERAL || n->style == IDL_STYLE_FOLDED ||
            memchr(n->str, '\n', n->len < off ? n->len : off))
            return l;
        if (n->style == IDL_STYLE_SINGLE || n->style == IDL_STYLE_DOUBLE)
            l.col++;
        l.col += idl_char_col(n->str, 0, off > n->len ? n->len : off) - 1;
        return l;
    }
    if (off < sp->off)
        ck_scalar_pos_start(c, sp, sp->node);
    const idl_node *n = sp->node;
    while (!sp->lost && sp->off < off && sp->off < n->len) {
        size_t p = sp->pos;
        if (p >= len) {
            sp->lost = true;
            break;
        }
        size_t src_w = utf8_width(src, len, p), val_w = src_w;
        uint32_t cols = 1;
        size_t q = p;
        while (q < len && (src[q] == ' ' || src[q] == '\t'))
            q++;
        if (q < len && (src[q] == '\n' || src[q] == '\r')) {
            /* A line break, with the white space around it, is folded: one space, or
             * one '\n' per empty line after the first break. */
            size_t breaks = 0, last = q;
            while (q < len && (src[q] == ' ' || src[q] == '\t' || src[q] == '\n' || src[q] == '\r')) {
                if (is_break(src, len, q)) {
                    breaks++;
                    last = q + 1;
                }
                q++;
            }
            if (breaks == 0 || q >= len) {
                sp->lost = true;
                break;
            }
            sp->pos = q;
            sp->off += breaks == 1 ? 1 : breaks - 1;
            sp->loc.line += (uint32_t)breaks;
            sp->loc.col = idl_char_col(src, last, q);
            continue;
        }
        if (q > p) {
            /* Blanks within a line are themselves; step over them at once. */
            size_t step = q - p < off - sp->off ? q - p : off - sp->off;
            sp->pos += step;
            sp->off += step;
            sp->loc.col += (uint32_t)step;
            continue;
        }
        if (n->style == IDL_STYLE_SINGLE && src[p] == '\'') {
            src_w = 2; /* '' */
            val_w = 1;
            cols = 2;
        } else if (n->style == IDL_STYLE_DOUBLE && src[p] == '\\' && p + 1 < len) {
            char e = src[p + 1];
            uint32_t cp = 0;
            size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
            if (digits) {
                if (!hex_value(src + p + 2, len - p - 2, digits, &cp)) {
                    sp->lost = true;
                    break;
                }
                src_w = 2 + digits;
                val_w = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            } else if (e == '\n' || e == '\r') {
                sp->lost = true; /* an escaped line break */
                break;
            } else {
                src_w = 2;
                val_w = e == 'N' || e == '_' ? 2 : e == 'L' || e == 'P' ? 3 : 1;
            }
            cols = (uint32_t)src_w;
        }
        sp->pos += src_w;
        sp->off += val_w;
        sp->loc.col += cols;
    }
    return sp->lost ? n->loc : sp->loc;
}

/* Location of byte `off` of a scalar's text (for pointing inside a type expression). */
idl_loc ck_loc_in_scalar(checker *c, const idl_node *n, size_t off)
{
    ck_scalar_pos sp;
    ck_scalar_pos_start(c, &sp, n);
    return ck_scalar_pos_at(c, &sp, off);
}

const char *ck_scalar_text(const idl_node *n)
{
    switch (n->kind) {
    case IDL_NODE_MAP:
        return "a mapping";
    case IDL_NODE_SEQ:
        return "a sequence";
    default:
        return n->str;
    }
}

/* A string value, or an error naming what was found. */
const char *ck_string(checker *c, const idl_node *n, const char *what)
{
    if (ck_is_str(n))
        return n->str;
    if (n->kind == IDL_NODE_MAP || n->kind == IDL_NODE_SEQ)
        ERR(c, n->loc, "%s must be a string, not %s", what, idl_node_kind_name(n));
    else
        ERR(c, n->loc, "%s must be a string, not %s '%s'; quote it", what, idl_node_kind_name(n), ck_scalar_text(n));
    return NULL;
}

char *ck_description(checker *c, const idl_node *n, const char *what)
{
    if (n->kind == IDL_NODE_NULL)
        return NULL;
    const char *s = ck_string(c, n, what);
    if (!s)
        return NULL;
    return idl_trim_description(c->a, n->str, n->len);
}

char *ck_description_of(checker *c, const idl_node *map)
{
    const idl_node *desc = idl_map_get(map, "description");
    return desc ? ck_description(c, desc, "'description'") : NULL;
}

/* ---------------------------------------------------------------- sections and items */

const idl_node *ck_section(checker *c, const idl_node *root, const char *key, const char *what)
{
    const idl_node *m = idl_map_get(root, key);
    if (!m || m->kind == IDL_NODE_NULL)
        return NULL;
    if (m->kind != IDL_NODE_MAP) {
        ERR(c, m->loc, "'%s' must be a mapping of NAME: %s, not %s", key, what, idl_node_kind_name(m));
        return NULL;
    }
    return m;
}

bool ck_body_ok(checker *c, const idl_pair *p, const char *kind, const char *keys_hint)
{
    if (p->value->kind == IDL_NODE_MAP)
        return true;
    ERR(c, p->value->kind == IDL_NODE_NULL ? p->key->loc : p->value->loc, "%s '%s' must be a mapping (%s), not %s",
        kind, p->key->str, keys_hint, idl_node_kind_name(p->value));
    return false;
}

const char *ck_c_name(checker *c, const idl_node *body, const char *name)
{
    const idl_node *v = body ? idl_map_get(body, "c_name") : NULL;
    if (v && ck_string(c, v, "'c_name'")) {
        if (!idl_is_c_identifier(v->str) || idl_is_c_keyword(v->str))
            ERR(c, v->loc, "'c_name' must be a C identifier that is not a keyword, not '%s'", v->str);
        return v->str;
    }
    return idl_c_ident(c->a, name);
}

ir_type *ck_new_type(checker *c, ir_kind kind, idl_loc loc)
{
    ir_type *t = mcp_arena_alloc(c->a, sizeof *t); /* zeroed */
    if (t) {
        t->kind = kind;
        t->loc = loc;
        t->c = &ir_no_constraints;
    }
    return t;
}

ir_constraints *ck_own_constraints(checker *c, ir_type *t)
{
    if (t->c == &ir_no_constraints) {
        ir_constraints *k = mcp_arena_alloc(c->a, sizeof *k);
        if (!k)
            return NULL;
        t->c = k;
    }
    return (ir_constraints *)t->c; /* allocated above, for t alone */
}
