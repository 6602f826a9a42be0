/* texpr_parse.c: recursive descent over the tokens of texpr_lex.re.
 *
 *   expr    := primary ('|' primary)*
 *   primary := '(' expr ')'
 *            | 'Literal' '[' value (',' value)* ']'
 *            | NAME [ '[' arg (',' arg)* ']' ]
 *   arg     := '...' | expr
 *   value   := STRING | INT | 'True' | 'False' | 'None'
 *
 * The tree is kept as written: a | b | c is one TEXPR_UNION with three arms,
 * a | (b | c) is a union whose second arm is a parenthesized union. Names and
 * arities are the checker's business.
 *
 * The parser holds one token of lookahead (p->tok, extent lx.tok_off..tok_end).
 * A TOK_ERROR is never expected anywhere, so the first time the parser looks
 * at one it fails, and fail_tok() reports the lexer's message instead of its own.
 *
 * Recursion is bounded: every '(' and '[' counts one level, and the level is
 * checked before descending, so the stack depth is O(max_depth) whatever the
 * input.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "texpr.h"

enum {
    DEFAULT_MAX_DEPTH = 64,
    MAX_DEPTH_CAP = 256, /* larger requests are capped: each level costs stack */
    QUOTE_MAX = 20,      /* bytes of a token quoted in a message */
    NAME_QUOTE_MAX = 40, /* bytes of a head name quoted in a message */
};

typedef struct parser {
    mcp_arena *arena;
    texpr_lexer lx;
    texpr_tok tok; /* the current, not yet consumed, token */
    size_t depth, max_depth;
    texpr_error *err;
    bool failed;
} parser;

static void advance(parser *p) { p->tok = texpr_lex_next(&p->lx); }

static void vfail(parser *p, size_t off, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 0)))
#endif
    ;
static void vfail(parser *p, size_t off, const char *fmt, va_list ap)
{
    if (p->failed)
        return;
    p->failed = true;
    p->err->off = off;
    vsnprintf(p->err->message, sizeof p->err->message, fmt, ap);
}

static void fail(parser *p, size_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void fail(parser *p, size_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(p, off, fmt, ap);
    va_end(ap);
}

/* Fail at the current token; a lexical error there takes precedence. */
static void fail_tok(parser *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void fail_tok(parser *p, const char *fmt, ...)
{
    if (p->tok == TOK_ERROR) {
        fail(p, p->lx.tok_off, "%s", p->lx.error);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vfail(p, p->lx.tok_off, fmt, ap);
    va_end(ap);
}

static void oom(parser *p) { fail(p, 0, "out of memory"); }

/* 'text' for a message: at most max bytes (cut at a UTF-8 character boundary),
 * then "..." when cut. */
static void quote(char *dst, size_t n, const char *s, size_t len, size_t max)
{
    size_t k = len;
    if (k > max) {
        k = max;
        while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
            k--;
    }
    idl_snprintf(dst, n, "'%.*s%s'", (int)k, s, k < len ? "..." : "");
}

/* The current token for a message: 'text' or "end of input". */
static void quote_tok(const parser *p, char *dst, size_t n)
{
    if (p->tok == TOK_END)
        idl_snprintf(dst, n, "end of input");
    else
        quote(dst, n, p->lx.src + p->lx.tok_off, p->lx.tok_end - p->lx.tok_off, QUOTE_MAX);
}

/* A head name for a message, without quotes: list, or VeryLongName... */
static void head(char *dst, size_t n, const char *name)
{
    size_t len = strlen(name);
    idl_snprintf(dst, n, "%.*s%s", (int)(len > NAME_QUOTE_MAX ? NAME_QUOTE_MAX : len), name,
                 len > NAME_QUOTE_MAX ? "..." : "");
}

static texpr *new_node(parser *p, texpr_kind kind, size_t off, size_t end)
{
    texpr *t = mcp_arena_alloc(p->arena, sizeof *t);
    if (!t) {
        oom(p);
        return NULL;
    }
    t->kind = kind;
    t->off = off;
    t->end = end;
    return t;
}

/* A growing array of children, in the arena. */
typedef struct kids {
    texpr **v;
    size_t n, cap;
} kids;

static bool push(parser *p, kids *k, texpr *t)
{
    if (k->n == k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 4;
        texpr **v = mcp_arena_realloc(p->arena, k->v, k->cap * sizeof *v, cap * sizeof *v);
        if (!v) {
            oom(p);
            return false;
        }
        k->v = v;
        k->cap = cap;
    }
    k->v[k->n++] = t;
    return true;
}

/* Enter one level of nesting at the bracket or parenthesis at the current token. */
static bool enter(parser *p)
{
    if (p->depth >= p->max_depth) {
        fail(p, p->lx.tok_off, "nesting too deep (more than %zu levels)", p->max_depth);
        return false;
    }
    p->depth++;
    return true;
}

static bool is_ident(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '_'))
            return false;
    return true;
}

static texpr *parse_expr(parser *p, size_t *wstart, size_t *wend);

/* The error for a token that cannot start a type. */
static void not_a_type(parser *p)
{
    char what[64];
    quote_tok(p, what, sizeof what);
    switch (p->tok) {
    case TOK_END:
        fail_tok(p, "expected a type, found end of input");
        break;
    case TOK_INT:
        fail_tok(p, "expected a type name, found %s", what);
        break;
    case TOK_STRING: {
        const char *s = p->lx.src + p->lx.tok_off + 1;
        size_t n = p->lx.tok_end - p->lx.tok_off - 2;
        if (is_ident(s, n))
            fail_tok(p, "expected a type name, found %s; write the name without quotes", what);
        else
            fail_tok(p, "expected a type name, found %s", what);
        break;
    }
    case TOK_ELLIPSIS:
        fail_tok(p, "'...' is only allowed in tuple[T, ...]");
        break;
    default:
        fail_tok(p, "expected a type, found %s", what);
        break;
    }
}

/* An INT token's value; the lexer guarantees [-+]?[0-9]+. */
static void int_value(texpr *t, const char *s, size_t n)
{
    bool neg = false;
    size_t i = 0;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        i = 1;
    }
    const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    for (; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (limit - d) / 10) {
            t->overflow = true;
            t->ival = neg ? INT64_MIN : INT64_MAX;
            return;
        }
        v = v * 10 + d;
    }
    if (neg)
        t->ival = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    else
        t->ival = (int64_t)v;
}

/* True, False or None. */
static bool is_constant(const char *s, size_t n)
{
    return (n == 4 && !memcmp(s, "True", 4)) || (n == 5 && !memcmp(s, "False", 5)) || (n == 4 && !memcmp(s, "None", 4));
}

/* One value of Literal[...], at the current token. */
static texpr *parse_value(parser *p)
{
    size_t off = p->lx.tok_off, end = p->lx.tok_end;
    const char *s = p->lx.src + off;
    texpr *t = NULL;
    switch (p->tok) {
    case TOK_STRING: {
        char *str = mcp_arena_alloc(p->arena, end - off); /* value + NUL fit */
        if (!str) {
            oom(p);
            return NULL;
        }
        size_t len = texpr_lex_string(&p->lx, str);
        str[len] = '\0';
        if (!(t = new_node(p, TEXPR_STRING, off, end)))
            return NULL;
        t->str = str;
        t->len = len;
        break;
    }
    case TOK_INT:
        if (!(t = new_node(p, TEXPR_INT, off, end)))
            return NULL;
        int_value(t, s, end - off);
        break;
    case TOK_NAME:
        if (is_constant(s, end - off)) {
            if (!(t = new_node(p, TEXPR_NAME, off, end)))
                return NULL;
            if (!(t->name = mcp_arena_strndup(p->arena, s, end - off))) {
                oom(p);
                return NULL;
            }
            break;
        }
        fail_tok(p, "Literal values must be strings, integers, True, False or None");
        return NULL;
    default:
        fail_tok(p, "Literal values must be strings, integers, True, False or None");
        return NULL;
    }
    advance(p);
    return t;
}

/* After 'NAME[': the arguments up to and including ']'. t is the node. */
static bool parse_args(parser *p, texpr *t, bool literal)
{
    char h[NAME_QUOTE_MAX + 8]; /* the head for a message, made when one is */
    kids k = {0};
    for (bool first = true;; first = false) {
        texpr *a;
        if (p->tok == TOK_RBRACKET) {
            head(h, sizeof h, t->name);
            if (first)
                fail_tok(p, "expected a %s inside '%s[...]'", literal ? "value" : "type", h);
            else
                fail_tok(p, "expected a %s after ',' in '%s[...]'", literal ? "value" : "type", h);
            return false;
        }
        if (literal) {
            if (p->tok == TOK_END) {
                fail_tok(p, "expected a value, found end of input");
                return false;
            }
            a = parse_value(p);
        } else if (p->tok == TOK_ELLIPSIS) {
            a = new_node(p, TEXPR_ELLIPSIS, p->lx.tok_off, p->lx.tok_end);
            if (!a)
                return false;
            advance(p);
            if (p->tok == TOK_PIPE) {
                fail(p, a->off, "'...' is only allowed in tuple[T, ...]");
                return false;
            }
        } else {
            a = parse_expr(p, NULL, NULL);
        }
        if (!a || !push(p, &k, a))
            return false;
        if (p->tok == TOK_COMMA) {
            advance(p);
            continue;
        }
        if (p->tok == TOK_RBRACKET) {
            t->end = p->lx.tok_end;
            t->args = k.v;
            t->nargs = k.n;
            advance(p);
            return true;
        }
        head(h, sizeof h, t->name);
        fail_tok(p, "expected ']' to close '%s['", h);
        return false;
    }
}

/* A primary. *wstart and *wend get its extent as written, parentheses included. */
static texpr *parse_primary(parser *p, size_t *wstart, size_t *wend)
{
    if (p->tok == TOK_LPAREN) {
        size_t open = p->lx.tok_off;
        if (!enter(p))
            return NULL;
        advance(p);
        texpr *t = parse_expr(p, NULL, NULL);
        if (!t)
            return NULL;
        if (p->tok != TOK_RPAREN) {
            fail_tok(p, "expected ')' to close '('");
            return NULL;
        }
        t->parenthesized = true;
        *wstart = open;
        *wend = p->lx.tok_end;
        p->depth--;
        advance(p);
        return t;
    }
    if (p->tok != TOK_NAME) {
        not_a_type(p);
        return NULL;
    }
    size_t off = p->lx.tok_off, end = p->lx.tok_end;
    const char *s = p->lx.src + off;
    bool literal = end - off == 7 && !memcmp(s, "Literal", 7);
    texpr *t = new_node(p, TEXPR_NAME, off, end);
    if (!t)
        return NULL;
    if (!(t->name = mcp_arena_strndup(p->arena, s, end - off))) {
        oom(p);
        return NULL;
    }
    advance(p);
    if (p->tok == TOK_LBRACKET) {
        if (!enter(p))
            return NULL;
        t->kind = literal ? TEXPR_LITERAL : TEXPR_GENERIC;
        advance(p);
        if (!parse_args(p, t, literal))
            return NULL;
        p->depth--;
    }
    *wstart = t->off;
    *wend = t->end;
    return t;
}

/* An expression; *wstart and *wend (when not NULL) get its extent as written. */
static texpr *parse_expr(parser *p, size_t *wstart, size_t *wend)
{
    size_t s0, e0;
    texpr *first = parse_primary(p, &s0, &e0);
    if (!first)
        return NULL;
    if (p->tok == TOK_PIPE) {
        kids k = {0};
        if (!push(p, &k, first))
            return NULL;
        size_t e = e0;
        while (p->tok == TOK_PIPE) {
            advance(p);
            size_t s1;
            texpr *arm = parse_primary(p, &s1, &e);
            if (!arm || !push(p, &k, arm))
                return NULL;
        }
        texpr *u = new_node(p, TEXPR_UNION, s0, e);
        if (!u)
            return NULL;
        u->args = k.v;
        u->nargs = k.n;
        first = u;
        e0 = e;
    }
    if (wstart)
        *wstart = s0;
    if (wend)
        *wend = e0;
    return first;
}

texpr *texpr_parse(mcp_arena *arena, const char *text, size_t len, size_t max_depth, texpr_error *err)
{
    parser p = {0};
    texpr_error scratch;
    p.arena = arena;
    p.err = err ? err : &scratch;
    p.err->off = 0;
    p.err->message[0] = '\0';
    p.max_depth = max_depth == 0 ? DEFAULT_MAX_DEPTH : max_depth > MAX_DEPTH_CAP ? MAX_DEPTH_CAP : max_depth;
    texpr_lex_init(&p.lx, text, text ? len : 0);
    advance(&p);
    texpr *t = parse_expr(&p, NULL, NULL);
    if (!t)
        return NULL;
    if (p.tok != TOK_END) {
        char what[64];
        quote_tok(&p, what, sizeof what);
        if (p.tok == TOK_RPAREN || p.tok == TOK_RBRACKET)
            fail_tok(&p, "unexpected %s", what);
        else
            fail_tok(&p, "unexpected %s after the type", what);
        return NULL;
    }
    return t;
}
