/* call.h (internal): one tools/call in flight, and the codec entry points the
 * protocol layer uses. */
#ifndef MCPIDL_LIB_CALL_H
#define MCPIDL_LIB_CALL_H

#include <stdatomic.h>

#include "mcpidl/buf.h"
#include "mcpidl/mcpidl.h"
#include "mcpidl/report.h"

/* A content block of a `returns: content` tool. {text, len} alone is a text
 * block (kind 0); the other kinds use the named strings (copies in the
 * call's arena; NULL when absent). */
typedef enum mcp_block_kind {
    MCP_BLOCK_TEXT = 0,      /* text */
    MCP_BLOCK_IMAGE,         /* data, mime */
    MCP_BLOCK_AUDIO,         /* data, mime */
    MCP_BLOCK_RESOURCE_TEXT, /* uri, mime?, text */
    MCP_BLOCK_RESOURCE_BLOB, /* uri, mime?, data */
    MCP_BLOCK_RESOURCE_LINK, /* uri, name, mime?, description? */
} mcp_block_kind;

typedef struct mcp_text_block {
    const char *text;
    size_t len;
    mcp_block_kind kind;
    const char *data, *mime, *uri, *name, *description;
    mcp_role role;                    /* prompts/get: who speaks it */
} mcp_text_block;

struct mcp_call {
    mcp_arena *arena;                 /* the request's arena */
    const mcp_tool *tool;
    const mcp_json *meta;             /* params._meta, or NULL */
    const atomic_bool *cancelled;     /* set by the protocol layer; may be NULL */
    /* What the handler said. */
    const char *fail_message;         /* mcp_fail */
    const mcp_json *raw;              /* mcp_return_json*: the value */
    const char *raw_error;            /* mcp_return_json_text: text that was not JSON */
    mcp_text_block *blocks;           /* mcp_content_* */
    size_t nblocks, cap_blocks;
    /* The protocol layer's (server.c), set after mcp_call_init: the job
     * serving the request (NULL outside a session: logging, progress and
     * client requests are then no-ops or errors), and the message of the
     * last client request that failed. */
    void *job;
    const char *client_error;
    /* resources/read, prompts/get, completion/complete (beyond.c). */
    const char *uri;                  /* the URI read, or the prompt's name */
    const char *default_mime;         /* the resource's declared mimeType */
    mcp_role role;                    /* the role of the next block (prompts) */
    const char *prompt_description;
    const char **values;              /* completions */
    size_t nvalues, cap_values;
    bool not_found;                   /* mcp_not_found() */
};

void mcp_call_init(mcp_call *call, mcp_arena *arena, const mcp_tool *tool, const mcp_json *meta,
                   const atomic_bool *cancelled);

/* Serve a tools/call whose tool is known: decode and validate `arguments`
 * (NULL: none, taken as {}; the caller has checked it is an object), call the
 * handler, validate and encode its output. Writes the CallToolResult object,
 * compact, to `out`: {"content":[...],"structuredContent":{...},"isError":false}
 * (structuredContent only when the tool has one). Failures of any kind are
 * isError results. Returns false only when out of memory (the caller answers
 * -32603). */
bool mcp_tool_invoke(mcp_call *call, const mcp_json *arguments, mcp_buf *out);

/* One content block as its MCP ContentBlock object; a comma first unless
 * *first (which it clears). */
void mcp_block_write(mcp_buf *b, bool *first, const mcp_text_block *blk);
/* A string a handler gave, as a JSON string: bytes that are not UTF-8 become
 * U+FFFD. */
void mcp_handler_string(mcp_buf *b, const char *s, size_t n);

/* Standard base64 (RFC 4648 section 4): padded, nothing else. */
bool mcp_base64_valid(const char *s);

/* The rest of the server's methods (beyond.c). Each runs the handler (if
 * any) and writes the result object to `out`, returning 0; or returns a
 * JSON-RPC error code with its message in *msg (in the call's arena). */
int mcp_read_invoke(mcp_call *call, const mcp_resource *r, const mcp_resource_template *t,
                    const char *const *vars, mcp_buf *out, const char **msg);
int mcp_prompt_invoke(mcp_call *call, const mcp_prompt *p, const char *const *args, mcp_buf *out,
                      const char **msg);
int mcp_complete_invoke(mcp_call *call, const mcp_completer *k, const char *value,
                        const mcp_json *context, mcp_buf *out, const char **msg);

/* The codec (codec.c). */
/* Decode JSON `v` as type `t` into `out` (t->size bytes, zeroed by the
 * caller), allocating in `a`; every error goes to `rep`. Returns true when no
 * error was added. */
bool mcp_decode(const mcp_type *t, const mcp_json *v, void *out, mcp_arena *a, mcp_report *rep);
/* A C value of type `t` as a JSON value in `a` (the handler's output on its way
 * to validation; a NaN float stays a NaN, for the validator to report). NULL
 * when the value cannot be represented (a NULL string or an unset union):
 * `why` then says what, with the path in `rep`'s current location. */
mcp_json *mcp_to_json(const mcp_type *t, const void *value, mcp_arena *a, const char **why);
/* Whether s[0..n) is valid UTF-8 (RFC 3629). */
bool mcp_utf8_valid(const char *s, size_t n);

#endif
