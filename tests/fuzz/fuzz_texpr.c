/* fuzz_texpr: the type-expression lexer (texpr_lex.re) and parser
 * (texpr_parse.c), on the whole input as the expression text.
 *
 * Properties: every token and node lies within the text, a node's extent is
 * ordered, arguments are never NULL, `...` appears only as an argument of a
 * generic, a decoded string is never longer than its quoted form, and a
 * depth limit only ever turns a success into a failure.
 */
#include <string.h>

#include "fuzz_util.h"
#include "texpr.h"

static void check_tree(const texpr *e, size_t len, const texpr *parent, size_t depth)
{
    FUZZ_CHECK(e != NULL);
    FUZZ_CHECK(depth <= 256);
    FUZZ_CHECK(e->off <= e->end && e->end <= len);
    if (e->kind == TEXPR_ELLIPSIS)
        FUZZ_CHECK(parent && parent->kind == TEXPR_GENERIC);
    if (e->kind == TEXPR_NAME || e->kind == TEXPR_GENERIC || e->kind == TEXPR_LITERAL)
        FUZZ_CHECK(e->name != NULL);
    if (e->kind == TEXPR_STRING)
        FUZZ_CHECK(e->str != NULL && e->len <= e->end - e->off);
    if (e->kind == TEXPR_UNION)
        FUZZ_CHECK(e->nargs >= 2);
    for (size_t i = 0; i < e->nargs; i++)
        check_tree(e->args[i], len, e, depth + 1);
}

static void lex_all(const char *text, size_t len)
{
    texpr_lexer lx;
    texpr_lex_init(&lx, text, len);
    char *out = malloc(len + 1);
    FUZZ_CHECK(out != NULL);
    size_t last_end = 0;
    for (size_t n = 0;; n++) {
        FUZZ_CHECK(n <= len + 1); /* every token but END consumes a byte */
        texpr_tok t = texpr_lex_next(&lx);
        FUZZ_CHECK(lx.tok_off <= lx.tok_end && lx.tok_end <= len);
        FUZZ_CHECK(t == TOK_ERROR || lx.tok_off >= last_end);
        if (t == TOK_END) {
            FUZZ_CHECK(lx.tok_off == len);
            break;
        }
        if (t == TOK_ERROR) {
            FUZZ_CHECK(lx.error[0] != 0);
            break;
        }
        FUZZ_CHECK(lx.tok_end > lx.tok_off);
        if (t == TOK_STRING)
            FUZZ_CHECK(texpr_lex_string(&lx, out) <= lx.tok_end - lx.tok_off);
        last_end = lx.tok_end;
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    lex_all(text, size);

    mcp_arena a;
    mcp_arena_init(&a);
    texpr_error err;
    memset(&err, 0, sizeof err);
    texpr *e = texpr_parse(&a, text, size, 0, &err);
    if (e) {
        check_tree(e, size, NULL, 0);
    } else {
        FUZZ_CHECK(err.off <= size);
        FUZZ_CHECK(err.message[0] != 0 && memchr(err.message, 0, sizeof err.message));
    }
    /* A tighter limit: a success there is a success with the default too. */
    texpr_error err2;
    texpr *shallow = texpr_parse(&a, text, size, 2, &err2);
    if (shallow) {
        check_tree(shallow, size, NULL, 0);
        FUZZ_CHECK(e != NULL);
    }
    mcp_arena_free(&a);
    return 0;
}
