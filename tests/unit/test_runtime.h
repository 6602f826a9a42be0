/* test_runtime.h: sessions for the protocol tests, each on a runtime of its
 * own whose tools/call runs the test's stub invoker (the seam of
 * internal/runtime.h) instead of the codec. test_session_free() frees the
 * session and its runtime. */
#ifndef MCPIDL_TESTS_TEST_RUNTIME_H
#define MCPIDL_TESTS_TEST_RUNTIME_H

#include <check.h>
#include <pthread.h>

#include "internal/runtime.h"
#include "mcpidl/runtime.h"
#include "mcpidl/transport.h"

/* The tools/call of the test's runtimes (NULL: the codec's). */
static mcp_tool_invoker test_invoker;

/* Runtimes log nothing (their errors are the tests' business). */
static bool test_quiet;

/* A runtime with the test's invoker; NULL when it cannot start. */
static inline mcp_runtime *test_runtime_new(const mcp_server *srv, const mcp_options *o)
{
    mcp_options opt;
    if (o)
        opt = *o;
    else
        mcp_options_default(&opt);
    if (test_quiet)
        opt.log_level = MCP_LOG_QUIET;
    mcp_runtime *rt = mcp_runtime_new(srv, &opt);
    if (rt && test_invoker)
        mcp_methods_set_invoker(mcp_runtime_methods(rt), test_invoker);
    return rt;
}

/* When set, the runtime every new session runs on (the test frees it):
 * sessions that must share subscriptions share a runtime. */
static mcp_runtime *test_shared;

/* Which runtime each session of the test runs on. */
typedef struct test_pair {
    mcp_session *s;
    mcp_runtime *rt;
} test_pair;
static test_pair test_pairs[64];
static pthread_mutex_t test_pairs_mu = PTHREAD_MUTEX_INITIALIZER;

static inline mcp_session *test_session_new(const mcp_server *srv, const mcp_options *o, mcp_sink_fn sink, void *ctx)
{
    if (test_shared) {
        ck_assert_ptr_eq(mcp_runtime_server(test_shared), srv);
        return mcp_session_new(test_shared, sink, ctx);
    }
    mcp_runtime *rt = test_runtime_new(srv, o);
    if (!rt)
        return NULL;
    mcp_session *s = mcp_session_new(rt, sink, ctx);
    if (!s) {
        mcp_runtime_free(rt);
        return NULL;
    }
    pthread_mutex_lock(&test_pairs_mu);
    size_t i = 0;
    while (i < sizeof test_pairs / sizeof *test_pairs && test_pairs[i].s)
        i++;
    ck_assert_uint_lt(i, sizeof test_pairs / sizeof *test_pairs);
    test_pairs[i] = (test_pair){s, rt};
    pthread_mutex_unlock(&test_pairs_mu);
    return s;
}

/* The runtime a session of test_session_new runs on. */
static inline mcp_runtime *test_runtime_of(mcp_session *s)
{
    mcp_runtime *rt = test_shared;
    pthread_mutex_lock(&test_pairs_mu);
    for (size_t i = 0; i < sizeof test_pairs / sizeof *test_pairs; i++)
        if (test_pairs[i].s == s)
            rt = test_pairs[i].rt;
    pthread_mutex_unlock(&test_pairs_mu);
    return rt;
}

static inline void test_session_free(mcp_session *s)
{
    if (!s)
        return;
    mcp_runtime *rt = NULL;
    pthread_mutex_lock(&test_pairs_mu);
    for (size_t i = 0; i < sizeof test_pairs / sizeof *test_pairs; i++)
        if (test_pairs[i].s == s) {
            rt = test_pairs[i].rt;
            test_pairs[i] = (test_pair){0};
        }
    pthread_mutex_unlock(&test_pairs_mu);
    mcp_session_free(s);
    mcp_runtime_free(rt);
}

/* mcp_runtime_serve_stdio on a runtime of its own. */
static inline int test_stdio_serve(const mcp_server *srv, const mcp_options *o, int in, int out)
{
    mcp_runtime *rt = test_runtime_new(srv, o);
    if (!rt)
        return 1;
    int rc = mcp_runtime_serve_stdio(rt, in, out);
    mcp_runtime_free(rt);
    return rc;
}

#endif
