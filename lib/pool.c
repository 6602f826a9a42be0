/* pool.c: worker threads over a ring buffer, one mutex, one condition variable. */
#include "pool.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

typedef struct pool_job {
    mcp_pool_fn fn;
    void *arg;
} pool_job;

struct mcp_pool {
    pthread_mutex_t mu;
    pthread_cond_t work;      /* signalled when a job is queued or on shutdown */
    pool_job *ring;
    size_t cap, head, len;
    int nwaiting;             /* workers blocked on `work` */
    bool stopping;
    int nthreads;
    pthread_t *threads;
};

static void *worker(void *arg)
{
    mcp_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->len == 0 && !p->stopping) {
            p->nwaiting++;
            pthread_cond_wait(&p->work, &p->mu);
            p->nwaiting--;
        }
        if (p->len == 0)
            break; /* stopping and drained */
        pool_job j = p->ring[p->head];
        p->head = (p->head + 1) % p->cap;
        p->len--;
        pthread_mutex_unlock(&p->mu);
        j.fn(j.arg);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void stop_and_join(mcp_pool *p, int started)
{
    pthread_mutex_lock(&p->mu);
    p->stopping = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < started; i++)
        pthread_join(p->threads[i], NULL);
}

static void release(mcp_pool *p)
{
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
    free(p->threads);
    free(p->ring);
    free(p);
}

mcp_pool *mcp_pool_new(int nthreads, size_t capacity)
{
    if (nthreads < 1 || capacity < 1)
        return NULL;
    mcp_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ring = calloc(capacity, sizeof *p->ring);
    p->threads = calloc((size_t)nthreads, sizeof *p->threads);
    if (!p->ring || !p->threads) {
        free(p->ring);
        free(p->threads);
        free(p);
        return NULL;
    }
    p->cap = capacity;
    p->nthreads = nthreads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);

    /* Workers inherit this mask: signals meant to stop the server go to the
     * reading thread, whose blocking read they interrupt. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&p->threads[started], NULL, worker, p) != 0)
            break;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started < nthreads) {
        stop_and_join(p, started);
        release(p);
        return NULL;
    }
    return p;
}

bool mcp_pool_submit(mcp_pool *p, mcp_pool_fn fn, void *arg)
{
    pthread_mutex_lock(&p->mu);
    if (p->stopping || p->len == p->cap) {
        pthread_mutex_unlock(&p->mu);
        return false;
    }
    p->ring[(p->head + p->len) % p->cap] = (pool_job){fn, arg};
    p->len++;
    /* A busy worker finds the job when it comes back for the next one: wake
     * one only when some worker sleeps. */
    if (p->nwaiting > 0)
        pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
    return true;
}

void mcp_pool_shutdown(mcp_pool *p)
{
    if (!p)
        return;
    stop_and_join(p, p->nthreads);
    release(p);
}
