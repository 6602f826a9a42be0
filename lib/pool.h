/* pool.h (internal): a fixed set of worker threads over a bounded queue.
 *
 * The protocol layer hands each tools/call to the pool. Workers take jobs in
 * submission order; a worker blocks on a condition variable only when the
 * queue is empty, so under load a hand-off costs no wake-up. The queue is a
 * ring of a fixed capacity allocated once: submitting never allocates.
 */
#ifndef MCPIDL_LIB_POOL_H
#define MCPIDL_LIB_POOL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct mcp_pool mcp_pool;
typedef void (*mcp_pool_fn)(void *arg);

/* nthreads >= 1 workers, a queue of `capacity` >= 1 jobs. NULL when out of
 * memory or when a thread cannot be started (nothing is left running). The
 * workers block SIGINT, SIGTERM and SIGPIPE, so those reach the thread that
 * reads input. */
mcp_pool *mcp_pool_new(int nthreads, size_t capacity);
/* Queue fn(arg). False when the queue is full or the pool is shutting down;
 * the job is then not run. */
bool mcp_pool_submit(mcp_pool *p, mcp_pool_fn fn, void *arg);
/* Stop taking jobs, run every queued one, join the workers, release the pool.
 * NULL is a no-op. */
void mcp_pool_shutdown(mcp_pool *p);

#endif
