/* c_text.c: C text the three C outputs share: literals, comments, and the
 * prototypes of the functions a user defines (c_names.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "c_names.h"
#include "fmt.h"

char *c_fmt(c_names *n, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *p = idl_vfmt(n->a, f, ap);
    va_end(ap);
    if (!p)
        n->oom = true;
    return p ? p : (char *)"";
}

void c_string(mcp_buf *b, const char *s, size_t len)
{
    /* Written straight into the buffer, with room for the longest form (every
     * byte an octal escape): the JSON of the tools/list entries is most of
     * NAME.mcp.c, and full of quotes. */
    if (len > (SIZE_MAX - 2) / 4 || !mcp_buf_reserve(b, 4 * len + 2)) {
        b->oom = true;
        return;
    }
    char *o = b->data + b->len;
    *o++ = '"';
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        /* Most bytes are written as they are: tested first, in few steps. */
        if (ch > '?' ? ch != '\\' && ch != 0x7f : ch >= 0x20 && ch != '"' && ch != '?') {
            *o++ = (char)ch;
        } else if (ch == '"' || ch == '\\') {
            *o++ = '\\';
            *o++ = (char)ch;
        } else if (ch == '\n') {
            *o++ = '\\';
            *o++ = 'n';
        } else if (ch == '\t') {
            *o++ = '\\';
            *o++ = 't';
        } else if (ch < 0x20 || ch == 0x7f) {
            *o++ = '\\';
            *o++ = (char)('0' + (ch >> 6));
            *o++ = (char)('0' + ((ch >> 3) & 7));
            *o++ = (char)('0' + (ch & 7));
        } else if (ch == '?' && i > 0 && s[i - 1] == '?') { /* not a trigraph */
            *o++ = '\\';
            *o++ = '?';
        } else {
            *o++ = (char)ch;
        }
    }
    *o++ = '"';
    b->len = (size_t)(o - b->data);
    b->data[b->len] = 0;
}

void c_string_long(mcp_buf *b, const char *s, size_t len, const char *indent)
{
    if (len <= 100) {
        c_string(b, s, len);
        return;
    }
    for (size_t i = 0; i < len;) {
        size_t k = len - i > 100 ? 100 : len - i;
        while (i + k < len && ((unsigned char)s[i + k] & 0xC0) == 0x80)
            k++; /* keep a UTF-8 character whole */
        if (i) {
            mcp_buf_putc(b, '\n');
            mcp_buf_puts(b, indent);
        }
        c_string(b, s + i, k);
        i += k;
    }
}

const char *c_comment(c_names *n, const char *s)
{
    if (!s)
        return "";
    size_t len = strcspn(s, "\n");
    char *t = mcp_arena_strndup(n->a, s, len > 120 ? 120 : len);
    if (!t) {
        n->oom = true;
        return "";
    }
    for (char *p = t; *p; p++)
        if (p[0] == '*' && p[1] == '/')
            p[1] = ' ';
    return t;
}

void c_flush(c_names *n, mcp_buf *b)
{
    enum { PIECE = 64 << 10 };
    if (!n->piece || n->unwritten || b->oom || b->len < PIECE)
        return;
    if (n->piece(n->piece_ctx, b->data, b->len))
        mcp_buf_clear(b);
    else
        n->unwritten = true;
}

void c_json(c_names *n, mcp_buf *b, const mcp_json *v)
{
    if (!v || !mcp_json_write(b, v, -1))
        n->oom = true; /* a part that could not be built, or written */
}

void c_member(mcp_buf *b, const char *type, const char *name)
{
    size_t len = strlen(type);
    if (len && type[len - 1] == '*')
        mcp_buf_printf(b, "%s%s", type, name);
    else
        mcp_buf_printf(b, "%s %s", type, name);
}

/* ------------------------------------------------------------------ prototypes */

const char *c_out_type(c_names *n, const ir_tool *t)
{
    return t->returns->kind == IR_CONTENT ? NULL : c_type_of(n, t->returns, C_HOLD_VALUE);
}

void c_tool_prototype(c_names *n, mcp_buf *b, const ir_tool *t)
{
    const char *ot = c_out_type(n, t);
    mcp_buf_printf(b, "mcp_status " C_NAME_HANDLER "(mcp_call *call, const " C_NAME_ARGS " *in", n->prefix, t->c_name,
                   n->prefix, t->c_name);
    if (ot) {
        mcp_buf_puts(b, ", ");
        mcp_buf m;
        mcp_buf_init(&m);
        mcp_buf_printf(&m, "%s%s*", ot, ot[strlen(ot) - 1] == '*' ? "" : " ");
        c_member(b, m.data ? m.data : "void *", "out");
        mcp_buf_free(&m);
    }
    mcp_buf_putc(b, ')');
}

const char *c_completer_name(c_names *n, const char *owner_c, const ir_completion *k)
{
    return c_fmt(n, C_NAME_COMPLETE, n->prefix, owner_c, k->c_name);
}

bool c_resource_has_reader(const ir_resource *r) { return !r->text && !r->blob; }

void c_prompt_prototype(c_names *n, mcp_buf *b, const ir_prompt *p)
{
    if (p->nargs)
        mcp_buf_printf(b, "mcp_status " C_NAME_PROMPT "(mcp_call *call, const " C_NAME_PROMPT_ARGS " *args)", n->prefix,
                       p->c_name, n->prefix, p->c_name);
    else
        mcp_buf_printf(b, "mcp_status " C_NAME_PROMPT "(mcp_call *call)", n->prefix, p->c_name);
}

void c_template_prototype(c_names *n, mcp_buf *b, const ir_template *t)
{
    mcp_buf_printf(b, "mcp_status " C_NAME_READER "(mcp_call *call, const char *uri, const " C_NAME_VARS " *vars)",
                   n->prefix, t->c_name, n->prefix, t->c_name);
}

void c_elicit_prototype(c_names *n, mcp_buf *b, const ir_elicitation *e)
{
    mcp_buf_printf(b,
                   "bool " C_NAME_ELICIT "(mcp_call *call, const char *message, " C_NAME_FORM " *out,\n"
                   "    mcp_elicit_action *action)",
                   n->prefix, e->c_name, n->prefix, e->c_name);
}
