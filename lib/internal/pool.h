/* pool.h (internal): worker threads shared fairly by many clients.
 *
 * Each client (a session) submits its jobs to a queue of its own; the
 * workers serve the queues that have work in turn, one job each (round
 * robin), so that a client with many jobs queued cannot make another wait
 * behind all of them. Tasks are intrusive (the caller's struct holds the
 * link): submitting never allocates and never fails while the pool runs.
 * How many jobs wait is bounded by the callers (a session admits at most
 * settings.max_concurrent requests at once).
 *
 * A job that waits for something outside the pool (a handler waiting for the
 * client's answer to sampling or elicitation) says so with
 * mcp_pool_block_begin/end: while it waits, the pool runs another thread in
 * its place, so that waiting handlers never hold the workers other clients
 * need. At most max_blocked jobs may wait at once.
 *
 * Workers take jobs without sleeping while there are some, so under load a
 * hand-off costs no wake-up. They are started as work needs them: one with
 * the pool, the others (up to nthreads) when a job is queued that no idle
 * worker will take.
 */
#ifndef MCPIDL_LIB_POOL_H
#define MCPIDL_LIB_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "mcpidl/api.h" /* MCP_NODISCARD */

typedef struct mcp_pool mcp_pool;
typedef struct mcp_pool_queue mcp_pool_queue;

/* One job: the caller embeds it in its own struct. */
typedef struct mcp_task {
    struct mcp_task *next;
    void (*run)(struct mcp_task *t);
} mcp_task;

/* At most nthreads >= 1 workers running jobs (one started now); at most
 * max_blocked >= 0 jobs waiting in mcp_pool_block_begin at once. NULL when
 * out of memory or when the first thread cannot be started. The workers
 * block SIGINT, SIGTERM and SIGPIPE, so those reach the thread that reads
 * input. */
mcp_pool *mcp_pool_new(int nthreads, int max_blocked);
/* A client's queue; NULL when out of memory. */
mcp_pool_queue *mcp_pool_queue_new(mcp_pool *p);
/* Release a queue none of whose jobs is queued or running (NULL: no-op). */
void mcp_pool_queue_free(mcp_pool_queue *q);
/* Queue t on q: t->run(t) runs on a worker, after the jobs q holds already.
 * False only when the pool is shutting down: the job is then not run. */
MCP_NODISCARD bool mcp_pool_submit(mcp_pool_queue *q, mcp_task *t);
/* From a job: it is about to wait outside the pool. False when max_blocked
 * jobs wait already (the job should not wait then); true, and a worker
 * stands in for this one until mcp_pool_block_end. */
MCP_NODISCARD bool mcp_pool_block_begin(mcp_pool *p);
void mcp_pool_block_end(mcp_pool *p);
/* The limit given to mcp_pool_new. */
int mcp_pool_max_blocked(const mcp_pool *p);
/* The worker threads started and not ended (the tests'). */
int mcp_pool_threads(mcp_pool *p);
/* Stop taking jobs, run every queued one, join the workers, release the pool.
 * NULL is a no-op. */
void mcp_pool_shutdown(mcp_pool *p);

#endif
