/* jsonc_server.c: the bare json-c ceiling of the server benchmark.
 *
 * The least a C server can do and still read its requests: each line is
 * parsed whole with json-c (one tokener, reused), the id and the method are
 * read from the tree, and a pre-rendered answer (answers.h) goes out with the
 * id, one write(2) per answer, as the answer is ready. No validation, no
 * dispatch on the tool, no handler. */
#include <errno.h>
#include <json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "answers.h"

static int write_all(const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(1, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int main(void)
{
    size_t cap = 1 << 16, start = 0, end = 0;
    char *buf = malloc(cap);
    char out[1024];
    json_tokener *tok = json_tokener_new();
    for (;;) {
        char *nl;
        while ((nl = memchr(buf + start, '\n', end - start))) {
            size_t len = (size_t)(nl - (buf + start));
            json_tokener_reset(tok);
            json_object *m = json_tokener_parse_ex(tok, buf + start, (int)len);
            start += len + 1;
            if (!m)
                continue;
            json_object *id = NULL, *method = NULL;
            json_object_object_get_ex(m, "method", &method);
            if (json_object_object_get_ex(m, "id", &id) && method) {
                const char *name = json_object_get_string(method);
                const char *tail = strcmp(name, "tools/call") == 0   ? CALL_TAIL
                                   : strcmp(name, "initialize") == 0 ? INIT_TAIL
                                                                     : UNKNOWN_TAIL;
                int n = snprintf(out, sizeof out, ANSWER_HEAD "%lld%s", (long long)json_object_get_int64(id), tail);
                if (write_all(out, (size_t)n))
                    return 1;
            }
            json_object_put(m);
        }
        if (start == end)
            start = end = 0;
        if (end == cap) {
            memmove(buf, buf + start, end - start);
            end -= start;
            start = 0;
            if (end == cap && !(buf = realloc(buf, cap *= 2)))
                return 1;
        }
        ssize_t r = read(0, buf + end, cap - end);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        end += (size_t)r;
    }
    json_tokener_free(tok);
    free(buf);
    return 0;
}
