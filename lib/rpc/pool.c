/* pool.c: worker threads over per-client queues served in turn, one mutex.
 *
 * The ready list holds the queues that have jobs, in the order they are
 * served: a worker takes the first job of the first queue and moves that
 * queue to the end of the list (when it has more), so queues take turns.
 *
 * Threads. At most `target` workers run jobs. The pool starts with one and
 * starts another when a job is queued that no idle worker will take (more
 * jobs queued than workers waiting) while fewer than `target` can run: a
 * server that serves one call at a time keeps one worker, and a start pays
 * for one thread, not one per CPU (a thread's creation is some 70 us on a
 * virtual machine). Workers stay once started. A job that waits outside the
 * pool (mcp_pool_block_begin) leaves the count of runnable threads (`nrun`);
 * a thread stands in for it when work is waiting (now or when the next job
 * comes). When the job's wait ends and there is a thread too many, the first
 * worker to notice retires. Threads live in a fixed array of target +
 * max_blocked slots: a retired thread's slot is joined before it is used
 * again, and shutdown joins them all.
 */
#include "internal/pool.h"

#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

struct mcp_pool_queue {
    mcp_pool *pool;
    mcp_task *head, *tail;
    struct mcp_pool_queue *rnext; /* the ready list */
    bool ready;                   /* on the ready list */
};

typedef enum { SLOT_FREE, SLOT_RUNNING, SLOT_DONE } slot_state;

typedef struct thread_slot {
    mcp_pool *pool;
    pthread_t tid;
    slot_state state;
} thread_slot;

struct mcp_pool {
    pthread_mutex_t mu;
    pthread_cond_t work;   /* a job was queued, a thread should retire, or shutdown */
    pthread_cond_t exited; /* a thread ended (shutdown waits for all) */
    mcp_pool_queue *rhead, *rtail;
    size_t queued; /* jobs on all queues */
    int nwaiting;  /* workers blocked on `work` */
    bool stopping;
    int target; /* workers that should be runnable */
    int max_blocked, nblocked;
    int nrun;  /* threads not inside block_begin/end */
    int total; /* threads started and not ended */
    thread_slot *slots;
    int nslots;
};

static bool spawn(mcp_pool *p);

/* Under mu: start a worker when a queued job would otherwise wait for a busy
 * one and another may run. When none can be started, the job waits for a
 * worker to come back: slower, never stuck, since one always runs or comes
 * back (the first is started with the pool, and a blocked job's wait is
 * bounded by the client timeout). */
static void grow(mcp_pool *p)
{
    if (p->queued > (size_t)p->nwaiting && p->nrun < p->target)
        spawn(p);
}

/* Under mu: the next job, taken off its queue, which goes to the end of the
 * ready list when it has more. */
static mcp_task *take(mcp_pool *p)
{
    mcp_pool_queue *q = p->rhead;
    assert(q && q->head);
    mcp_task *t = q->head;
    q->head = t->next;
    if (!q->head)
        q->tail = NULL;
    p->queued--;
    p->rhead = q->rnext;
    if (!p->rhead)
        p->rtail = NULL;
    q->rnext = NULL;
    if (q->head) {
        if (p->rtail)
            p->rtail->rnext = q;
        else
            p->rhead = q;
        p->rtail = q;
    } else {
        q->ready = false;
    }
    return t;
}

static void *worker(void *arg)
{
    thread_slot *me = arg;
    mcp_pool *p = me->pool;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->nrun > p->target)
            break; /* a waiting job came back: one thread too many */
        if (p->queued == 0) {
            if (p->stopping)
                break;
            p->nwaiting++;
            pthread_cond_wait(&p->work, &p->mu);
            p->nwaiting--;
            continue;
        }
        mcp_task *t = take(p);
        pthread_mutex_unlock(&p->mu);
        t->run(t);
        pthread_mutex_lock(&p->mu);
    }
    p->nrun--;
    p->total--;
    me->state = SLOT_DONE;
    pthread_cond_broadcast(&p->exited);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Under mu (or before the pool is shared): start a worker in a free slot.
 * Workers inherit a mask that blocks the signals meant to stop the server,
 * so those go to the thread that reads input, whose blocking read they
 * interrupt. */
static bool spawn(mcp_pool *p)
{
    thread_slot *slot = NULL;
    for (int i = 0; i < p->nslots && !slot; i++)
        if (p->slots[i].state != SLOT_RUNNING)
            slot = &p->slots[i];
    if (!slot)
        return false;
    if (slot->state == SLOT_DONE) /* it has let go of mu: joining is quick */
        pthread_join(slot->tid, NULL);
    slot->state = SLOT_FREE;
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    bool ok = pthread_create(&slot->tid, NULL, worker, slot) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!ok)
        return false;
    slot->state = SLOT_RUNNING;
    p->total++;
    p->nrun++;
    return true;
}

/* Wait for every thread to end, join them, release the pool. */
static void stop_and_release(mcp_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->stopping = true;
    pthread_cond_broadcast(&p->work);
    while (p->total > 0)
        pthread_cond_wait(&p->exited, &p->mu);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nslots; i++)
        if (p->slots[i].state != SLOT_FREE)
            pthread_join(p->slots[i].tid, NULL);
    pthread_cond_destroy(&p->exited);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
    free(p->slots);
    free(p);
}

mcp_pool *mcp_pool_new(int nthreads, int max_blocked)
{
    if (nthreads < 1 || max_blocked < 0 || max_blocked > (1 << 20))
        return NULL;
    mcp_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->nslots = nthreads + max_blocked;
    p->slots = calloc((size_t)p->nslots, sizeof *p->slots);
    if (!p->slots) {
        free(p);
        return NULL;
    }
    for (int i = 0; i < p->nslots; i++)
        p->slots[i].pool = p;
    p->target = nthreads;
    p->max_blocked = max_blocked;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->exited, NULL);
    pthread_mutex_lock(&p->mu);
    bool ok = spawn(p); /* the others when work needs them */
    pthread_mutex_unlock(&p->mu);
    if (!ok) {
        stop_and_release(p);
        return NULL;
    }
    return p;
}

mcp_pool_queue *mcp_pool_queue_new(mcp_pool *p)
{
    mcp_pool_queue *q = calloc(1, sizeof *q);
    if (q)
        q->pool = p;
    return q;
}

void mcp_pool_queue_free(mcp_pool_queue *q)
{
    if (!q)
        return;
    assert(!q->head && !q->ready);
    free(q);
}

bool mcp_pool_submit(mcp_pool_queue *q, mcp_task *t)
{
    mcp_pool *p = q->pool;
    pthread_mutex_lock(&p->mu);
    if (p->stopping) {
        pthread_mutex_unlock(&p->mu);
        return false;
    }
    t->next = NULL;
    if (q->tail)
        q->tail->next = t;
    else
        q->head = t;
    q->tail = t;
    p->queued++;
    if (!q->ready) {
        q->ready = true;
        q->rnext = NULL;
        if (p->rtail)
            p->rtail->rnext = q;
        else
            p->rhead = q;
        p->rtail = q;
    }
    /* A busy worker finds the job when it comes back for the next one: wake
     * one only when some worker sleeps. */
    if (p->nwaiting > 0)
        pthread_cond_signal(&p->work);
    grow(p);
    pthread_mutex_unlock(&p->mu);
    return true;
}

bool mcp_pool_block_begin(mcp_pool *p)
{
    pthread_mutex_lock(&p->mu);
    if (p->nblocked >= p->max_blocked) {
        pthread_mutex_unlock(&p->mu);
        return false;
    }
    p->nblocked++;
    p->nrun--;
    grow(p);
    pthread_mutex_unlock(&p->mu);
    return true;
}

void mcp_pool_block_end(mcp_pool *p)
{
    pthread_mutex_lock(&p->mu);
    assert(p->nblocked > 0);
    p->nblocked--;
    p->nrun++;
    if (p->nrun > p->target && p->nwaiting > 0)
        pthread_cond_signal(&p->work); /* an idle worker retires */
    pthread_mutex_unlock(&p->mu);
}

int mcp_pool_max_blocked(const mcp_pool *p) { return p->max_blocked; }

int mcp_pool_threads(mcp_pool *p)
{
    pthread_mutex_lock(&p->mu);
    int n = p->total;
    pthread_mutex_unlock(&p->mu);
    return n;
}

void mcp_pool_shutdown(mcp_pool *p)
{
    if (p)
        stop_and_release(p);
}
