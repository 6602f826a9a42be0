/* driver.c: the generated decoder's verdict on JSON instances, for the
 * differential test (tests/diff/run.py).
 *
 * Built per IDL with the generated NAME.mcp.c and stub handlers, with
 * -DMCPIDL_DIFF_SERVER=NAME_server naming the server table.
 *
 *   driver --list   one line per tool: NAME<TAB>OUTPUT<TAB>INT_KEYS, where
 *                   OUTPUT is none, object, dict or wrapped, and INT_KEYS is 1
 *                   when a dict[int, T] is reachable from the tool's
 *                   arguments or result (else 0)
 *   driver          reads lines INDEX<TAB>JSON from standard input and writes
 *                   one line per instance: 1 (valid), 0 (invalid), or
 *                   "E message" (not JSON, or a bad index). INDEX 2*i is tool
 *                   i's inputSchema (decoded with tools[i].args), 2*i+1 its
 *                   outputSchema (tools[i].result; a wrapped output is the
 *                   object {"result": value}, other keys allowed).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/methods.h"
#include "mcpidl/mcpidl.h"
#include "mcpidl/report.h"

#ifndef MCPIDL_DIFF_SERVER
#error "compile with -DMCPIDL_DIFF_SERVER=NAME_server"
#endif

extern const mcp_server MCPIDL_DIFF_SERVER;

static const char *output_name(mcp_output_kind k)
{
    switch (k) {
    case MCP_OUTPUT_NONE:
        return "none";
    case MCP_OUTPUT_OBJECT:
        return "object";
    case MCP_OUTPUT_DICT:
        return "dict";
    case MCP_OUTPUT_WRAPPED:
        return "wrapped";
    }
    return "?";
}

/* Whether a dict[int, T] is reachable from t (descriptors may be cyclic). */
#define MAX_SEEN 4096
static bool int_keys_from(const mcp_type *t, const mcp_type **seen, size_t *nseen)
{
    if (!t)
        return false;
    for (size_t i = 0; i < *nseen; i++)
        if (seen[i] == t)
            return false;
    if (*nseen < MAX_SEEN)
        seen[(*nseen)++] = t;
    if (t->kind == MCP_T_DICT && t->int_keys)
        return true;
    if (int_keys_from(t->elem, seen, nseen))
        return true;
    for (uint32_t i = 0; i < t->nitems; i++)
        if (int_keys_from(t->items[i], seen, nseen))
            return true;
    for (uint32_t i = 0; i < t->nfields; i++)
        if (int_keys_from(t->fields[i].type, seen, nseen))
            return true;
    return false;
}

static int list_tools(const mcp_server *s)
{
    static const mcp_type *seen[MAX_SEEN];
    for (size_t i = 0; i < s->ntools; i++) {
        const mcp_tool *t = &s->tools[i];
        size_t n = 0;
        bool ik = int_keys_from(t->args, seen, &n);
        n = 0;
        ik = int_keys_from(t->result, seen, &n) || ik;
        printf("%s\t%s\t%d\n", t->name, output_name(t->output), ik ? 1 : 0);
    }
    return 0;
}

static bool verdict(const mcp_type *t, const mcp_json *v, mcp_arena *a)
{
    mcp_report rep;
    mcp_report_init(&rep, a);
    void *out = mcp_arena_alloc(a, t->size ? t->size : 1);
    if (!out) {
        fprintf(stderr, "driver: out of memory\n");
        exit(2);
    }
    memset(out, 0, t->size);
    bool ok = mcp_decode(t, v, out, a, &rep);
    if (rep.oom) {
        fprintf(stderr, "driver: out of memory in the decoder\n");
        exit(2);
    }
    /* The verdict and the report must agree. */
    if (ok != (rep.len == 0)) {
        printf("E decode returned %s with %zu report entries\n", ok ? "true" : "false", rep.len);
        return false;
    }
    printf("%d\n", ok ? 1 : 0);
    return true;
}

int main(int argc, char **argv)
{
    const mcp_server *s = &MCPIDL_DIFF_SERVER;
    if (argc > 1 && strcmp(argv[1], "--list") == 0)
        return list_tools(s);
    mcp_arena a;
    mcp_arena_init(&a);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        mcp_arena_reset(&a);
        char *tab = memchr(line, '\t', (size_t)n);
        char *end;
        unsigned long idx = strtoul(line, &end, 10);
        if (!tab || end != tab || idx / 2 >= s->ntools) {
            printf("E bad input line\n");
            continue;
        }
        const char *text = tab + 1;
        size_t len = (size_t)(line + n - text);
        mcp_json_err err;
        size_t off;
        mcp_json *v = mcp_json_parse(&a, text, len, NULL, &err, &off);
        if (!v) {
            printf("E not JSON (error %d at byte %zu)\n", (int)err, off);
            continue;
        }
        const mcp_tool *tool = &s->tools[idx / 2];
        if (idx % 2 == 0) {
            verdict(tool->args, v, &a);
            continue;
        }
        switch (tool->output) {
        case MCP_OUTPUT_NONE:
            printf("E tool %s has no output schema\n", tool->name);
            break;
        case MCP_OUTPUT_OBJECT:
        case MCP_OUTPUT_DICT:
            verdict(tool->result, v, &a);
            break;
        case MCP_OUTPUT_WRAPPED: {
            const mcp_json *r = v->kind == MCP_JOBJECT ? mcp_json_get(v, "result") : NULL;
            if (!r)
                printf("0\n");
            else
                verdict(tool->result, r, &a);
            break;
        }
        }
    }
    free(line);
    mcp_arena_free(&a);
    fflush(stdout);
    return ferror(stdout) ? 1 : 0;
}
