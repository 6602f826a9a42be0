/* mock.c: canned responses for the handlers that mcpidlc --emit=mock writes. */
#include "mcpidl/mock.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/methods.h"

typedef struct mock_tool {
    const char *name;
    const mcp_json **entries; /* the entries of this tool, in file order */
    size_t n;
    atomic_size_t next;
} mock_tool;

static struct {
    mcp_arena arena;       /* holds the parsed file for the life of the process */
    const mcp_json *calls; /* the list form, or NULL */
    mock_tool *tools;
    size_t ntools;
} MOCK;

static mock_tool *find_tool(const char *name)
{
    for (size_t i = 0; i < MOCK.ntools; i++)
        if (strcmp(MOCK.tools[i].name, name) == 0)
            return &MOCK.tools[i];
    return NULL;
}

static const mcp_json *pick(mcp_call *call, const char **why)
{
    const char *tool = mcp_call_tool(call);
    const mcp_json *meta = mcp_call_meta(call);
    const mcp_json *idx = meta ? mcp_json_get(meta, "mcpidl/call") : NULL;
    if (idx && MOCK.calls) {
        if (idx->kind != MCP_JINT || idx->i < 0 || (size_t)idx->i >= MOCK.calls->n) {
            *why = "_meta[\"mcpidl/call\"] is not the index of an entry of the mock file";
            return NULL;
        }
        const mcp_json *e = MOCK.calls->items[idx->i];
        const mcp_json *t = mcp_json_get(e, "tool");
        if (!t || t->kind != MCP_JSTRING || strcmp(t->s, tool) != 0) {
            *why = "the mock entry chosen by _meta[\"mcpidl/call\"] is for another tool";
            return NULL;
        }
        return e;
    }
    mock_tool *mt = find_tool(tool);
    if (!mt || mt->n == 0) {
        *why = "the mock file has no response for this tool";
        return NULL;
    }
    size_t i = atomic_fetch_add(&mt->next, 1);
    return mt->entries[i < mt->n ? i : mt->n - 1];
}

mcp_status mcp_mock_respond(mcp_call *call)
{
    const char *why = NULL;
    const mcp_json *e = pick(call, &why);
    if (!e)
        return mcp_fail(call, "%s", why);
    const mcp_json *r = mcp_json_get(e, "raise");
    if (r)
        return mcp_fail(call, "%s", r->kind == MCP_JSTRING ? r->s : "mock failure");
    const mcp_json *v = mcp_json_get(e, "returns");
    if (!v)
        return mcp_fail(call, "the mock entry has neither \"returns\" nor \"raise\"");
    if (!call->tool->result) {
        if (v->kind == MCP_JSTRING)
            return mcp_content_text(call, v->s);
        for (size_t i = 0; v->kind == MCP_JARRAY && i < v->n; i++)
            if (v->items[i]->kind == MCP_JSTRING)
                mcp_content_text(call, v->items[i]->s);
        return MCP_OK;
    }
    return mcp_return_json(call, v);
}

static bool add_entry(const char *tool, const mcp_json *entry)
{
    mock_tool *mt = find_tool(tool);
    if (!mt) {
        mock_tool *tools = mcp_arena_realloc(&MOCK.arena, MOCK.tools, MOCK.ntools * sizeof *tools,
                                             (MOCK.ntools + 1) * sizeof *tools);
        if (!tools)
            return false;
        MOCK.tools = tools;
        mt = &MOCK.tools[MOCK.ntools++];
        memset(mt, 0, sizeof *mt);
        mt->name = tool;
    }
    const mcp_json **entries = mcp_arena_realloc(&MOCK.arena, mt->entries, mt->n * sizeof *entries,
                                                 (mt->n + 1) * sizeof *entries);
    if (!entries)
        return false;
    mt->entries = entries;
    mt->entries[mt->n++] = entry;
    return true;
}

static bool load(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "mcpidl: mock: cannot open '%s': %s\n", path, strerror(errno));
        return false;
    }
    mcp_buf b;
    mcp_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        mcp_buf_put(&b, chunk, n);
    fclose(f);
    mcp_json_err err = MCP_JSON_OK;
    size_t off = 0;
    mcp_json *root = b.oom ? NULL : mcp_json_parse(&MOCK.arena, b.data ? b.data : "", b.len, NULL, &err, &off);
    mcp_buf_free(&b);
    if (!root) {
        fprintf(stderr, "mcpidl: mock: '%s' is not JSON: %s at byte %zu\n", path, mcp_json_error_str(err), off);
        return false;
    }
    if (root->kind == MCP_JARRAY) {
        MOCK.calls = root;
        for (size_t i = 0; i < root->n; i++) {
            const mcp_json *t = mcp_json_get(root->items[i], "tool");
            if (!t || t->kind != MCP_JSTRING) {
                fprintf(stderr, "mcpidl: mock: entry %zu of '%s' has no \"tool\"\n", i, path);
                return false;
            }
            if (!add_entry(t->s, root->items[i]))
                return false;
        }
        return true;
    }
    if (root->kind == MCP_JOBJECT) {
        for (size_t i = 0; i < root->n; i++) {
            const mcp_json *list = root->members[i].value;
            if (list->kind != MCP_JARRAY) {
                fprintf(stderr, "mcpidl: mock: the responses of '%s' in '%s' must be a list\n", root->members[i].key,
                        path);
                return false;
            }
            for (size_t j = 0; j < list->n; j++)
                if (!add_entry(root->members[i].key, list->items[j]))
                    return false;
        }
        return true;
    }
    fprintf(stderr, "mcpidl: mock: '%s' must hold a list of calls or a map of tool -> responses\n", path);
    return false;
}

int mcp_mock_main(const mcp_server *server, int argc, char **argv)
{
    mcp_arena_init(&MOCK.arena);
    const char *path = getenv("MCPIDL_MOCK");
    /* Take --mock FILE out of the arguments; pass the rest on. */
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return 1;
    int nrest = 0;
    for (int i = 0; i < argc; i++) {
        if (i > 0 && strcmp(argv[i], "--mock") == 0 && i + 1 < argc)
            path = argv[++i];
        else if (i > 0 && strncmp(argv[i], "--mock=", 7) == 0)
            path = argv[i] + 7;
        else
            rest[nrest++] = argv[i];
    }
    bool info = false; /* --help and --version need no responses */
    for (int i = 1; i < nrest; i++)
        info |= strcmp(rest[i], "--help") == 0 || strcmp(rest[i], "-h") == 0 || strcmp(rest[i], "--version") == 0;
    int status;
    if (info) {
        status = mcp_main(server, nrest, rest);
    } else if (!path) {
        fprintf(stderr, "mcpidl: mock: no responses: pass --mock FILE (or set MCPIDL_MOCK)\n");
        status = 2;
    } else if (!load(path)) {
        status = 1;
    } else {
        status = mcp_main(server, nrest, rest);
    }
    free(rest);
    mcp_arena_free(&MOCK.arena);
    return status;
}
