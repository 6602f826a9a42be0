/* generated.h: what only generated code needs: the type descriptors and
 * the server table mcpidlc writes (NAME.mcp.c), and the runtime's entry
 * points that code calls. User code takes the table's address
 * (&weather_server) and needs nothing else from here.
 */
#ifndef MCPIDL_GENERATED_H
#define MCPIDL_GENERATED_H

#include <stdbool.h>
#include <stddef.h>

#include "mcpidl/api.h"
#include "mcpidl/json.h"
#include "mcpidl/types.h"

MCPIDL_BEGIN_DECLS

/* A form of the IDL's `elicitations`: what mcp_elicit_form() sends. */
typedef struct mcp_elicitation mcp_elicitation;
struct mcp_elicitation {
    const char *name;
    const char *message;  /* the default message */
    const char *schema;   /* requestedSchema, JSON text */
    const mcp_type *type; /* the form's record (decodes `content`) */
};


typedef enum mcp_output_kind {
    MCP_OUTPUT_NONE,    /* no outputSchema (structured_output: false, or content) */
    MCP_OUTPUT_OBJECT,  /* a model or record, published as is */
    MCP_OUTPUT_DICT,    /* dict[str, T] */
    MCP_OUTPUT_WRAPPED, /* {"result": value} */
} mcp_output_kind;

/* Whether a tool runs as a task (the tasks extension; IDL `task:`). */
typedef enum mcp_task_support {
    MCP_TASK_NONE,     /* always answered at once */
    MCP_TASK_OPTIONAL, /* a task when the client supports tasks */
    MCP_TASK_REQUIRED, /* only as a task */
} mcp_task_support;

/* A tool parameter mirrored in an HTTP header (2026-07-28, IDL `header:`,
 * published as x-mcp-header): Mcp-Param-NAME carries the value at `path`
 * (property names from the arguments object down), which the transport
 * checks against the body. */
typedef enum mcp_header_kind { MCP_HEADER_STRING, MCP_HEADER_INTEGER, MCP_HEADER_BOOLEAN } mcp_header_kind;

typedef struct mcp_header_param {
    const char *name; /* the header is Mcp-Param-NAME */
    const char *const *path;
    size_t depth;
    mcp_header_kind kind;
} mcp_header_param;

typedef mcp_status (*mcp_handler_fn)(mcp_call *call, const void *args, void *out);

typedef struct mcp_tool {
    const char *name;
    const char *list_entry; /* this tool's entry of tools/list, compact JSON */
    const mcp_type *args;   /* an OBJECT titled <tool>Arguments */
    const mcp_type *result; /* the declared return type; NULL for `content` */
    mcp_output_kind output;
    bool structured;          /* false: no structuredContent, no output validation */
    bool run_inline;          /* IDL `inline: true`: the handler runs on the thread that read the call */
    const char *output_title; /* the title of output reports (WeatherData, <tool>Output) */
    mcp_handler_fn handler;
    mcp_task_support task;
    const mcp_header_param *headers;
    size_t nheaders;
    const char *const *scopes; /* OAuth scopes a caller needs (IDL `scopes:`); NULL: the server's */
    size_t nscopes;
} mcp_tool;

/* A reader: `vars` holds the values of a template's variables, in the
 * template's order (NULL for a plain resource). */
typedef mcp_status (*mcp_read_fn)(mcp_call *call, const char *uri, const char *const *vars);
/* A prompt: `args` holds its arguments in declared order (NULL when absent). */
typedef mcp_status (*mcp_prompt_fn)(mcp_call *call, const char *const *args);
/* A completion: `value` is what the user typed so far; `context` the
 * request's context.arguments object (NULL when absent). */
typedef mcp_status (*mcp_complete_fn)(mcp_call *call, const char *value, const mcp_json *context);

typedef struct mcp_completer {
    const char *name;          /* the prompt argument or template variable */
    const char *const *values; /* static suggestions, filtered by prefix; or */
    size_t nvalues;
    mcp_complete_fn handler; /* a handler (NULL with static values) */
} mcp_completer;

/* Caching hints of a modern result (2026-07-28: ttlMs, cacheScope), from the
 * IDL's `cache:` key. Not set: the runtime's defaults. */
typedef struct mcp_cache {
    bool set;
    bool private_scope; /* cacheScope "private" (else "public") */
    long long ttl_ms;   /* >= 0 */
} mcp_cache;

typedef struct mcp_resource {
    const char *name;
    const char *uri;
    const char *mime_type;     /* NULL when absent */
    const char *list_entry;    /* this resource's entry of resources/list, compact JSON */
    const char *text;          /* static content: text, */
    const char *blob;          /* or base64; */
    mcp_read_fn read;          /* else a reader */
    mcp_cache cache;           /* resources/read's hints */
    const char *const *scopes; /* as mcp_tool's */
    size_t nscopes;
} mcp_resource;

typedef struct mcp_resource_template {
    const char *name;
    const char *uri_template; /* RFC 6570 level 1 */
    const char *mime_type;
    const char *list_entry; /* the entry of resources/templates/list */
    size_t nvars;
    mcp_read_fn read;
    const mcp_completer *complete;
    size_t ncomplete;
    mcp_cache cache;
    const char *const *scopes;
    size_t nscopes;
} mcp_resource_template;

typedef struct mcp_prompt_arg {
    const char *name;
    bool required;
} mcp_prompt_arg;

typedef struct mcp_prompt {
    const char *name;
    const char *list_entry; /* the entry of prompts/list */
    const mcp_prompt_arg *args;
    size_t nargs;
    mcp_prompt_fn get;
    const mcp_completer *complete;
    size_t ncomplete;
    const char *const *scopes;
    size_t nscopes;
} mcp_prompt;

/* What the server announces beyond its tables (mcp_server.flags). */
enum {
    MCP_SERVER_TOOLS_CHANGE = 1 << 0,     /* tools.listChanged: it sends list changes */
    MCP_SERVER_PROMPTS_CHANGE = 1 << 1,   /* prompts.listChanged */
    MCP_SERVER_RESOURCES_CHANGE = 1 << 2, /* resources.listChanged */
};

typedef struct mcp_server {
    int abi; /* MCPIDL_ABI of the generated code */
    const char *name;
    const char *version;
    const char *title;        /* NULL when absent */
    const char *instructions; /* NULL when absent */
    const mcp_tool *tools;
    size_t ntools;
    const mcp_resource *resources;
    size_t nresources;
    const mcp_resource_template *templates;
    size_t ntemplates;
    const mcp_prompt *prompts;
    size_t nprompts;
    unsigned flags;            /* MCP_SERVER_* */
    mcp_cache cache;           /* the hints of discover and the lists */
    const char *const *scopes; /* the scopes of items that name none (IDL server `scopes:`) */
    size_t nscopes;
    /* More of serverInfo (MCP's Implementation), each NULL when absent: */
    const char *description; /* a human-readable description */
    const char *website_url; /* websiteUrl */
    const char *icons;       /* icons: a JSON array of Icon objects */
    /* The members of the server's `_meta`: a JSON object, sent in the _meta
     * of the initialize and server/discover results; NULL when absent. */
    const char *meta;
} mcp_server;

MCPIDL_END_DECLS

#endif
