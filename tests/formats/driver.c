/* driver.c: the format checkers' verdicts, for the differential test of the
 * string-format types (tests/formats/run.py).
 *
 *   driver    reads lines FORMAT<TAB>JSON from standard input (FORMAT one of
 *             datetime, date, time, timedelta, uuid, url, decimal) and writes
 *             one line per value: "1<TAB>CANONICAL" (valid, with its canonical
 *             text) or "0<TAB>TYPE<TAB>MESSAGE" (pydantic's error type and
 *             message), or "E<TAB>WHY" (not JSON, an unknown format).
 * The message is written with \n and \\ escaped, so that a line is a value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/formats.h"
#include "mcpidl/arena.h"
#include "mcpidl/json.h"
#include "mcpidl/report.h"

static void put_escaped(const char *s)
{
    for (; *s; s++) {
        if (*s == '\n')
            fputs("\\n", stdout);
        else if (*s == '\\')
            fputs("\\\\", stdout);
        else
            putchar(*s);
    }
}

int main(void)
{
    static const char *const NAMES[] = {
        [MCP_FMT_DATETIME] = "datetime",   [MCP_FMT_DATE] = "date", [MCP_FMT_TIME] = "time",
        [MCP_FMT_TIMEDELTA] = "timedelta", [MCP_FMT_UUID] = "uuid", [MCP_FMT_URL] = "url",
        [MCP_FMT_DECIMAL] = "decimal"};
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = 0;
        char *tab = strchr(line, '\t');
        mcp_format f = MCP_FMT_NONE;
        if (tab)
            for (mcp_format k = MCP_FMT_DATETIME; k <= MCP_FMT_DECIMAL; k++)
                if ((size_t)(tab - line) == strlen(NAMES[k]) && strncmp(line, NAMES[k], (size_t)(tab - line)) == 0)
                    f = k;
        if (f == MCP_FMT_NONE) {
            puts("E\tunknown format");
            continue;
        }
        mcp_arena a;
        mcp_arena_init(&a);
        mcp_json_err err;
        const char *text = tab + 1;
        size_t off;
        mcp_json *v = mcp_json_parse(&a, text, strlen(text), NULL, &err, &off);
        if (!v) {
            puts("E\tnot JSON");
        } else {
            const char *canon = NULL;
            bool oom = false;
            mcp_format_error e;
            if (mcp_format_check(f, v, &a, &canon, &oom, &e)) {
                fputs("1\t", stdout);
                put_escaped(canon);
                putchar('\n');
            } else if (oom) {
                puts("E\tout of memory");
            } else {
                printf("0\t%s\t", mcp_verr_type_name(e.kind));
                put_escaped(e.message);
                putchar('\n');
            }
        }
        mcp_arena_free(&a);
    }
    free(line);
    return 0;
}
