/* capture.h: the client's side of the tests that drive a session through its
 * sink (test_features.c, test_beyond.c): every message the server sends is
 * kept, in order, with the session and reply context it came with; and, when
 * capture_path is set, appended to that file for tests/spec/validate.py to
 * check against the specification's schema. */
#ifndef MCPIDL_TESTS_CAPTURE_H
#define MCPIDL_TESTS_CAPTURE_H

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_runtime.h"

static const char *capture_path;

typedef struct line {
    char *text;
    void *session; /* the sink context: which session sent it */
    void *rctx;    /* the reply context */
    bool final;
} line;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    line *lines;
    size_t n, cap;
} cap = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0};

static bool sink(void *ctx, void *reply_ctx, const mcp_out_part *parts, size_t n, bool final)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += parts[i].n;
    char *t = malloc(len + 1);
    if (!t)
        abort(); /* on a worker thread: no check assertions there */
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(t + at, parts[i].p, parts[i].n);
        at += parts[i].n;
    }
    t[len] = 0;
    pthread_mutex_lock(&cap.mu);
    if (cap.n == cap.cap) {
        cap.cap = cap.cap ? cap.cap * 2 : 16;
        cap.lines = realloc(cap.lines, cap.cap * sizeof *cap.lines);
        if (!cap.lines)
            abort();
    }
    cap.lines[cap.n++] = (line){t, ctx, reply_ctx, final};
    if (capture_path && len > 0) {
        FILE *f = fopen(capture_path, "a");
        if (f) {
            fprintf(f, "%s\n", t);
            fclose(f);
        }
    }
    pthread_cond_broadcast(&cap.cv);
    pthread_mutex_unlock(&cap.mu);
    return true;
}

static void cap_reset(void)
{
    pthread_mutex_lock(&cap.mu);
    for (size_t i = 0; i < cap.n; i++)
        free(cap.lines[i].text);
    cap.n = 0;
    pthread_mutex_unlock(&cap.mu);
}

/* Wait (up to 10 s, a guard against hangs) until `count` messages are in; the count then. */
static size_t cap_wait(size_t count)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 10;
    pthread_mutex_lock(&cap.mu);
    while (cap.n < count)
        if (pthread_cond_timedwait(&cap.cv, &cap.mu, &dl) == ETIMEDOUT)
            break;
    size_t n = cap.n;
    pthread_mutex_unlock(&cap.mu);
    return n;
}

/* main(): with an argument, capture to that file (emptied first). */
static void capture_start(int argc, char **argv)
{
    if (argc < 2)
        return;
    capture_path = argv[1];
    FILE *f = fopen(capture_path, "w");
    if (f)
        fclose(f);
}

static const line *cap_at(size_t i)
{
    pthread_mutex_lock(&cap.mu);
    const line *l = i < cap.n ? &cap.lines[i] : NULL;
    pthread_mutex_unlock(&cap.mu);
    return l;
}

#endif
