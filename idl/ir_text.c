/* ir_text.c: a type of the IR written back as the IDL spells it
 * (`Optional[list[WeatherData]]`, `Literal['a', True]`), for messages and pages. */
#include "ir.h"

/* A constant of a Literal, as Python (and the IDL) writes it. */
static void put_literal(mcp_buf *b, const mcp_json *v)
{
    switch (v->kind) {
    case MCP_JSTRING:
        mcp_buf_putc(b, '\'');
        mcp_buf_put(b, v->s, v->len);
        mcp_buf_putc(b, '\'');
        return;
    case MCP_JBOOL:
        mcp_buf_puts(b, v->b ? "True" : "False");
        return;
    case MCP_JNULL:
        mcp_buf_puts(b, "None");
        return;
    default:
        if (!mcp_json_write(b, v, -1))
            mcp_buf_putc(b, '?');
        return;
    }
}

static void put_items(mcp_buf *b, const ir_type *t, const char *sep, int depth);

static void put_type(mcp_buf *b, const ir_type *t, int depth)
{
    if (depth > 20) {
        mcp_buf_puts(b, "...");
        return;
    }
    switch (t->kind) {
    case IR_INT:
        mcp_buf_puts(b, "int");
        return;
    case IR_FLOAT:
        mcp_buf_puts(b, "float");
        return;
    case IR_STR:
        mcp_buf_puts(b, "str");
        return;
    case IR_BOOL:
        mcp_buf_puts(b, "bool");
        return;
    case IR_BYTES:
        mcp_buf_puts(b, "bytes");
        return;
    case IR_NONE:
        mcp_buf_puts(b, "None");
        return;
    case IR_ANY:
        mcp_buf_puts(b, "any");
        return;
    case IR_CONTENT:
        mcp_buf_puts(b, "content");
        return;
    case IR_FORMAT:
        mcp_buf_puts(b, ir_format_name(t->format));
        return;
    case IR_NAMED:
        mcp_buf_puts(b, t->def->name);
        return;
    case IR_LIST:
    case IR_SET:
        mcp_buf_puts(b, t->kind == IR_SET ? "set[" : t->tuple_variadic ? "tuple[" : "list[");
        put_type(b, t->elem, depth + 1);
        mcp_buf_puts(b, t->tuple_variadic ? ", ...]" : "]");
        return;
    case IR_DICT:
        mcp_buf_puts(b, t->int_keys ? "dict[int, " : "dict[str, ");
        put_type(b, t->elem, depth + 1);
        mcp_buf_putc(b, ']');
        return;
    case IR_TUPLE:
        mcp_buf_puts(b, "tuple[");
        put_items(b, t, ", ", depth);
        mcp_buf_putc(b, ']');
        return;
    case IR_UNION:
        if (t->nitems == 2 && t->items[1]->kind == IR_NONE) {
            mcp_buf_puts(b, "Optional[");
            put_type(b, t->items[0], depth + 1);
            mcp_buf_putc(b, ']');
            return;
        }
        put_items(b, t, " | ", depth);
        return;
    case IR_LITERAL:
        mcp_buf_puts(b, "Literal[");
        for (size_t i = 0; i < t->nvalues; i++) {
            if (i)
                mcp_buf_puts(b, ", ");
            put_literal(b, t->values[i]);
        }
        mcp_buf_putc(b, ']');
        return;
    }
}

static void put_items(mcp_buf *b, const ir_type *t, const char *sep, int depth)
{
    for (size_t i = 0; i < t->nitems; i++) {
        if (i)
            mcp_buf_puts(b, sep);
        put_type(b, t->items[i], depth + 1);
    }
}

void ir_type_write(mcp_buf *b, const ir_type *t) { put_type(b, t, 0); }
