/* methods.h (internal): the MCP methods (methods/), and the call a handler
 * gets.
 *
 * Each method is one entry of mcp_methods, the table the runtime gives
 * its sessions; each file of methods/ defines the entries of its methods
 * (tools.c: tools/list and tools/call; resources.c; prompts.c;
 * completion.c; logging.c; lifecycle.c: initialize and ping) and the
 * handler functions of mcpidl.h that belong with them. The state they share
 * across a runtime's sessions (the pre-rendered lists, the subscriptions)
 * is one mcp_methods_state.
 */
#ifndef MCPIDL_INTERNAL_METHODS_H
#define MCPIDL_INTERNAL_METHODS_H

#include <stdatomic.h>

#include "internal/codec.h"
#include "internal/rpc.h"
#include "mcpidl/buf.h"
#include "mcpidl/generated.h"
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
    mcp_role role; /* prompts/get: who speaks it */
} mcp_text_block;

struct mcp_call {
    mcp_arena *arena; /* the request's arena */
    const mcp_tool *tool;
    const mcp_json *meta;         /* params._meta, or NULL */
    const atomic_bool *cancelled; /* set by the protocol layer; may be NULL */
    /* What the handler said. */
    const char *fail_message; /* mcp_fail */
    const mcp_json *raw;      /* mcp_return_json*: the value */
    const char *raw_error;    /* mcp_return_json_text: text that was not JSON */
    mcp_text_block *blocks;   /* mcp_content_* */
    size_t nblocks, cap_blocks;
    /* The job serving the request (NULL outside a session: logging,
     * progress and client requests are then no-ops or errors), and the
     * message of the last client request that failed. */
    mcp_job *job;
    const char *client_error;
    /* resources/read, prompts/get, completion/complete. */
    const char *uri;          /* the URI read, or the prompt's name */
    const char *default_mime; /* the resource's declared mimeType */
    mcp_role role;            /* the role of the next block (prompts) */
    const char *prompt_description;
    const char **values; /* completions */
    size_t nvalues, cap_values;
    bool not_found; /* mcp_not_found() */
    bool failed;    /* the handler returned MCP_ERROR */
    /* A modern request's multi round-trip state (mrtr.c); NULL otherwise. */
    struct mcp_mrtr *mrtr;
    /* Tasks (tasks.c). */
    int task_mode;      /* MCP_CALL_* below */
    bool task_start;    /* mcp_task_start said yes */
    unsigned task_caps; /* a task's run: the client capabilities of its call */
    int rpc_code;       /* mcp_fail_protocol: a JSON-RPC error (0: none) */
};

/* call->task_mode: an ordinary call; one that may become a task (a tool
 * with `task:`, a client that declares the extension); a task's run. */
enum { MCP_CALL_PLAIN = 0, MCP_CALL_TASK_MAY, MCP_CALL_TASK_RUN };
/* The client capabilities (MCP_CLIENT_*) of the call: its request's, or, in
 * a task's run, those of the request that created the task. */
unsigned mcp_call_client_caps(const mcp_call *call);

/* A call outside any session (tests, benchmarks: logging, progress and
 * client requests are then no-ops or errors). */
void mcp_call_init(mcp_call *call, mcp_arena *arena, const mcp_tool *tool, const mcp_json *meta,
                   const atomic_bool *cancelled);
/* A call for the job's handler: its arena, _meta and cancellation flag. */
void mcp_call_for_job(mcp_call *call, mcp_job *j);

/* ---------------------------------------------------------------- multi round-trip requests (mrtr.c) */

typedef struct mcp_mrtr mcp_mrtr;
/* Before the handler of a modern tools/call, prompts/get or resources/read
 * (a no-op for others): read the answers the request carries (inputResponses,
 * requestState, checked). 0, or the JSON-RPC error with *msg. */
int mcp_mrtr_begin(mcp_call *call, mcp_job *j, const char *method, const char **msg);
/* A handler's request to the client in a modern request: the answer the
 * request carries under the request's key, or NULL (call->client_error says
 * why) after recording it as an input request of the round. */
const mcp_json *mcp_mrtr_request(mcp_call *call, const char *method, const char *params, size_t params_len);
/* The handler asked for a capability (MCP_CLIENT_*) the client did not declare. */
void mcp_mrtr_missing(mcp_call *call, unsigned capability);
/* After the handler: the run's code, or MCP_RUN_INPUT_REQUIRED with out
 * replaced by the InputRequiredResult's members, or -32021 (*msg, err_data)
 * when the handler failed (`failed`) after asking for a capability the
 * client lacks. Releases what begin took. */
int mcp_mrtr_end(mcp_call *call, const mcp_env *env, int code, bool failed, mcp_buf *out, const char **msg,
                 mcp_buf *err_data);
/* A task's run (tasks.c): the handler's requests to the client are answered
 * from `answers` (an object of KEY: ANSWER, or NULL); the others become the
 * task's input requests. False when out of memory. */
bool mcp_mrtr_begin_task(mcp_call *call, const mcp_json *answers);
/* After the handler of a call begun by either: appends the requests asked
 * ("KEY":{"method":..,"params":..},...) to asked and the answers used
 * ("KEY":ANSWER,...) to kept (either may be NULL); returns how many were
 * asked. */
size_t mcp_mrtr_peek(const mcp_call *call, mcp_buf *asked, mcp_buf *kept);
/* Whether answer is a result of method (elicitation/create: an action; ...). */
bool mcp_mrtr_answer_fits(const char *method, const mcp_json *answer);
/* 2025-11-25's tasks. A tools/call with params.task: the handler's requests
 * to the client are real ones, and record makes each answer one the task's
 * run sees (under the key the run's request has); begin_record false when
 * out of memory. A task's run (after begin_task): a request without a
 * recorded answer fails at once (no_asking). */
bool mcp_mrtr_begin_record(mcp_call *call);
bool mcp_mrtr_recording(const mcp_call *call);
void mcp_mrtr_record(mcp_call *call, const mcp_json *answer);
void mcp_mrtr_no_asking(mcp_call *call);
/* Release what a task run's begin took (mcp_mrtr_end does for requests). */
void mcp_mrtr_release(mcp_call *call);

/* ---------------------------------------------------------------- the table and its state */

extern const mcp_method_table mcp_methods;

typedef struct mcp_methods_state mcp_methods_state;
/* What the methods share across a runtime's sessions: the lists rendered
 * once (pages of opt->page_size), the subscriptions. NULL when out of memory. */
mcp_methods_state *mcp_methods_state_new(const mcp_server *srv, const mcp_options *opt);
void mcp_methods_state_free(mcp_methods_state *st);
/* mcp_env.session_gone. */
void mcp_methods_session_gone(void *st, mcp_session *s);
/* The function that serves a tools/call whose tool is known (decode and
 * validate the arguments, call the handler, validate and encode its output,
 * write the CallToolResult to out; false only when out of memory): the
 * codec's, mcp_tool_invoke, unless a test puts its own in (the seam the
 * protocol tests use instead of link-time stubs). */
typedef bool (*mcp_tool_invoker)(mcp_call *call, const mcp_json *arguments, mcp_buf *out);
bool mcp_tool_invoke(mcp_call *call, const mcp_json *arguments, mcp_buf *out);
/* mcp_tool_invoke without its shortcut for a plain C value (mcp_write_plain):
 * every answer through the general path, for tests that compare the two. */
bool mcp_tool_invoke_general(mcp_call *call, const mcp_json *arguments, mcp_buf *out);
void mcp_methods_set_invoker(mcp_methods_state *st, mcp_tool_invoker f);
mcp_tool_invoker mcp_methods_invoker(const mcp_methods_state *st);
/* notifications/resources/updated to the sessions subscribed to uri. */
void mcp_methods_resource_updated(mcp_methods_state *st, const char *uri);

/* The entries of the table, by file. */
extern const mcp_method mcp_method_initialize, mcp_method_discover, mcp_method_ping;
extern const mcp_method mcp_method_tools_list, mcp_method_tools_call;
extern const mcp_method mcp_method_resources_list, mcp_method_templates_list, mcp_method_resources_read,
    mcp_method_subscribe, mcp_method_unsubscribe;
extern const mcp_method mcp_method_prompts_list, mcp_method_prompts_get;
extern const mcp_method mcp_method_complete;
extern const mcp_method mcp_method_set_level;
extern const mcp_method mcp_method_listen;
extern const mcp_method mcp_method_tasks_get, mcp_method_tasks_update, mcp_method_tasks_cancel, mcp_method_tasks_result,
    mcp_method_tasks_list;

/* ---------------------------------------------------------------- tasks (tasks.c) */

/* The tasks of a runtime: at most opt->max_tasks live at once, each kept
 * opt->task_ttl seconds from its creation. */
typedef struct mcp_tasks mcp_tasks;
mcp_tasks *mcp_tasks_new(const mcp_methods_state *st, const mcp_options *opt);
/* Cancels the runs still going and waits for them. */
void mcp_tasks_free(mcp_tasks *ts);
mcp_tasks *mcp_methods_tasks(const mcp_methods_state *st);
/* A task for a call of `tool` (arguments: an object or NULL) whose handler
 * asked to become one: the task's runs see the answers (JSON object
 * members "KEY":ANSWER,..., len bytes) the call used. Writes the
 * CreateTaskResult's members to out (an object without resultType) and
 * returns MCP_RUN_TASK; or an error code with *msg. */
int mcp_task_create(mcp_tasks *ts, const mcp_tool *tool, const mcp_json *arguments, const char *answers, size_t len,
                    unsigned client_caps, const char *subject, mcp_buf *out, const char **msg);
/* A task of 2025-11-25's experimental tasks (a tools/call with params.task):
 * ttl_ms the ttl asked for (0: none; at most the store's); done, when the
 * handler answered at once without mcp_task_start, its CallToolResult (or
 * rpc_code and rpc_message, its JSON-RPC error): the task is born ended. */
typedef struct mcp_task25 {
    long long ttl_ms;
    const mcp_buf *done;
    int rpc_code;
    const char *rpc_message;
    const char *answers;        /* "KEY":ANSWER,... the client's answers in the tools/call, or NULL */
    unsigned long long session; /* the serial of the session (mcp_session_serial): the task is its */
} mcp_task25;
/* Writes the CreateTaskResult ({"task":{..}}) to out and returns 0; or an
 * error code with *msg. */
int mcp_task_create25(mcp_tasks *ts, const mcp_tool *tool, const mcp_json *arguments, unsigned client_caps,
                      const char *subject, const mcp_task25 *how, mcp_buf *out, const char **msg);

/* ---------------------------------------------------------------- shared by the methods */

/* The server's capabilities object (initialize; modern: server/discover). */
void mcp_capabilities_write(mcp_buf *r, const mcp_server *srv, bool modern, bool tasks25);
/* Whether a session of this revision has 2025-11-25's experimental tasks. */
bool mcp_version_has_tasks25(const char *version);
/* The server's Implementation object: {"name","title"?,"version"}, and when
 * `full` its "description", "icons" and "websiteUrl" too. */
void mcp_server_info_write(mcp_buf *r, const mcp_server *srv, bool full);
/* Whether a tool of the server can run as a task. */
bool mcp_server_has_tasks(const mcp_server *srv);

/* The rendered pages of one list method (lists.c). */
typedef struct mcp_listing mcp_listing;
enum { MCP_LIST_TOOLS, MCP_LIST_RESOURCES, MCP_LIST_TEMPLATES, MCP_LIST_PROMPTS };
/* Answer a list request from the state's pages (cursor checked). */
void mcp_list_answer(mcp_req *r, int which);
/* The tool named name[0..len), by binary search; NULL when none, or when
 * the program disabled it. */
const mcp_tool *mcp_find_tool(const mcp_methods_state *st, const char *name, size_t len);
/* Whether item i of the server table's list `which` (MCP_LIST_*) is
 * disabled (mcp_runtime_tool_enable and its siblings). */
bool mcp_item_off(const mcp_methods_state *st, int which, size_t i);
/* The server table the state is for. */
const mcp_server *mcp_methods_server(const mcp_methods_state *st);
/* Enable or disable the items of a kind (tools; prompts; resources and
 * templates) named `name`, and render their lists again. */
enum { MCP_ENABLE_UNKNOWN = -1, MCP_ENABLE_OOM = -2, MCP_ENABLE_SAME = 0, MCP_ENABLE_CHANGED = 1 };
int mcp_methods_enable(mcp_methods_state *st, mcp_list_kind kind, const char *name, bool on);
/* Mark the tool `name` to run on the thread that read its call (mcp_req_run_here);
 * false when the server has no such tool, or the tool may run as a task. */
bool mcp_methods_tool_inline(mcp_methods_state *st, const char *name, bool on);
/* Whether `tool` (one of the server's table) is marked so. */
bool mcp_tool_runs_inline(const mcp_methods_state *st, const mcp_tool *tool);
/* Whether an item of that kind and name is there and enabled. */
bool mcp_methods_enabled(const mcp_methods_state *st, mcp_list_kind kind, const char *name);
/* The resource-side state (subscriptions) of resources.c. */
typedef struct mcp_subs mcp_subs;
mcp_subs *mcp_subs_new(void);
void mcp_subs_free(mcp_subs *subs);
void mcp_subs_session_gone(mcp_subs *subs, mcp_session *s);
void mcp_subs_updated(mcp_subs *subs, const char *uri);
mcp_subs *mcp_methods_subs(const mcp_methods_state *st);
const mcp_methods_state *mcp_req_methods(const mcp_req *r);

/* Whether the server serves `uri` (an enabled resource's, or one an enabled
 * template matches); false with *oom when out of memory. */
bool mcp_uri_served(const mcp_methods_state *st, const char *uri, mcp_arena *a, bool *oom);
/* What listens for changes (listen.c): modern subscriptions
 * (subscriptions/listen) and, for list changes, the initialized 2025
 * sessions. */
typedef struct mcp_listeners mcp_listeners;
mcp_listeners *mcp_listeners_new(void);
void mcp_listeners_free(mcp_listeners *l);
mcp_listeners *mcp_methods_listeners(const mcp_methods_state *st);
/* initialize: the session hears list changes from now on. */
void mcp_listeners_add_session(mcp_listeners *l, mcp_session *s);
void mcp_listeners_session_gone(mcp_listeners *l, mcp_session *s);
/* notifications/resources/updated to the subscriptions listening to uri. */
void mcp_listeners_updated(mcp_listeners *l, const char *uri);
/* notifications/KIND/list_changed to whoever listens. */
void mcp_listeners_list_changed(mcp_listeners *l, const mcp_server *srv, mcp_list_kind which);

/* The prompt named name[0..len) (prompts.c); NULL when none, or disabled. */
const mcp_prompt *mcp_find_prompt(const mcp_methods_state *st, const mcp_server *srv, const char *name, size_t len);
/* A required string member of params; after the -32602 answer, NULL. */
const mcp_json *mcp_need_string(mcp_req *r, const mcp_json *params, const char *key);
/* params.arguments: an object, or NULL when absent or null. False after the
 * -32602 answer. */
bool mcp_arguments_of(mcp_req *r, const mcp_json **out);
bool mcp_json_str_is(const mcp_json *v, const char *lit);

/* One content block as its MCP ContentBlock object; a comma first unless
 * *first (which it clears). */
void mcp_block_write(mcp_buf *b, bool *first, const mcp_text_block *blk);
/* A text block {"type":"text","text":TEXT}, the same way. */
void mcp_text_block_write(mcp_buf *b, bool *first, const char *text, size_t len);
/* A string a handler gave, as a JSON string: bytes that are not UTF-8 become
 * U+FFFD. */
void mcp_handler_string(mcp_buf *b, const char *s, size_t n);
/* Standard base64 (RFC 4648 section 4): padded, nothing else. */
bool mcp_base64_valid(const char *s);
/* The error of a handler that returned MCP_ERROR: -32603 "Internal error:
 * WHAT: MESSAGE". */
int mcp_handler_error(mcp_call *call, const char *what, const char **msg);

#endif
