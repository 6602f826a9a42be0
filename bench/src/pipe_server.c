/* pipe_server.c: the pipe ceiling of the server benchmark.
 *
 * No parsing at all: in each line, memmem finds "id": and the digits after it
 * are copied into a pre-rendered answer (answers.h); a line that names
 * "initialize" gets that answer, a line without an id none. Answers to every
 * whole line of one read(2) go out in one write(2). What is left of a call's
 * cost is the pipes, the system calls and the wake-ups: the limit of any
 * server over stdio on this machine. */
#define _GNU_SOURCE
#include <errno.h>
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
    size_t ocap = 1 << 20, olen = 0;
    char *out = malloc(ocap);
    static const char KEY[] = "\"id\":";
    for (;;) {
        char *nl;
        while ((nl = memchr(buf + start, '\n', end - start))) {
            const char *l = buf + start;
            size_t len = (size_t)(nl - l);
            start += len + 1;
            const char *k = memmem(l, len, KEY, sizeof KEY - 1);
            if (!k)
                continue; /* a notification */
            const char *d = k + sizeof KEY - 1, *e = d;
            while (e < l + len && *e >= '0' && *e <= '9')
                e++;
            const char *tail = memmem(l, len, "\"initialize\"", 12) ? INIT_TAIL : CALL_TAIL;
            size_t tl = strlen(tail);
            if (olen + sizeof ANSWER_HEAD + (size_t)(e - d) + tl > ocap) {
                if (write_all(out, olen))
                    return 1;
                olen = 0;
            }
            memcpy(out + olen, ANSWER_HEAD, sizeof ANSWER_HEAD - 1);
            olen += sizeof ANSWER_HEAD - 1;
            memcpy(out + olen, d, (size_t)(e - d));
            olen += (size_t)(e - d);
            memcpy(out + olen, tail, tl);
            olen += tl;
        }
        if (olen) {
            if (write_all(out, olen))
                return 1;
            olen = 0;
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
    free(out);
    free(buf);
    return 0;
}
