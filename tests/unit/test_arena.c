/* test_arena.c: the memory modules, arena.c and buf.c. */
#include <check.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcpidl/arena.h"
#include "mcpidl/buf.h"
#include "check_run.h"

/* Let huge allocations fail with NULL under AddressSanitizer too, as they do
 * under the C library, so the out-of-memory paths can be tested. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

static bool all_zero(const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i])
            return false;
    return true;
}

/* ---- arena -------------------------------------------------------------- */

START_TEST(arena_init_empty)
{
    mcp_arena a;
    mcp_arena_init(&a);
    ck_assert_ptr_null(a.head);
    ck_assert_uint_eq(a.used, 0);
    mcp_arena_free(&a);  /* freeing an empty arena is fine */
    mcp_arena_reset(&a); /* so is resetting one */
    ck_assert_ptr_null(a.head);
}
END_TEST

START_TEST(arena_alloc_aligned_zeroed)
{
    mcp_arena a;
    mcp_arena_init(&a);
    /* Odd sizes, so that a bump without rounding would misalign. */
    static const size_t sizes[] = {1, 3, 7, 8, 13, 16, 17, 31, 100, 1000, 4095, 4096, 5000};
    char *prev = NULL;
    size_t prev_n = 0;
    for (int round = 0; round < 20; round++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            size_t n = sizes[i];
            char *p = mcp_arena_alloc(&a, n);
            ck_assert_ptr_nonnull(p);
            ck_assert_uint_eq((uintptr_t)p % alignof(max_align_t), 0);
            ck_assert(all_zero(p, n));
            memset(p, 0xab, n); /* ASan catches writes past the block */
            /* The previous allocation is untouched by this one. */
            if (prev) {
                ck_assert_uint_eq((unsigned char)prev[0], 0xab);
                ck_assert_uint_eq((unsigned char)prev[prev_n - 1], 0xab);
            }
            prev = p;
            prev_n = n;
        }
    }
    ck_assert_uint_ge(a.used, 20 * (1 + 3 + 7 + 8 + 13 + 16 + 17 + 31 + 100 + 1000 + 4095 + 4096 + 5000));
    mcp_arena_free(&a);
    ck_assert_ptr_null(a.head);
    ck_assert_uint_eq(a.used, 0);
}
END_TEST

START_TEST(arena_alloc_zero_bytes)
{
    mcp_arena a;
    mcp_arena_init(&a);
    void *p = mcp_arena_alloc(&a, 0);
    void *q = mcp_arena_alloc(&a, 0);
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_nonnull(q);
    ck_assert_ptr_ne(p, q);
    mcp_arena_free(&a);
}
END_TEST

START_TEST(arena_strdup_printf)
{
    mcp_arena a;
    mcp_arena_init(&a);
    char *s = mcp_arena_strdup(&a, "hello");
    ck_assert_str_eq(s, "hello");
    char *e = mcp_arena_strdup(&a, "");
    ck_assert_str_eq(e, "");
    char *t = mcp_arena_strndup(&a, "hello world", 5);
    ck_assert_str_eq(t, "hello");
    /* strndup copies n bytes even past an embedded NUL. */
    char *z = mcp_arena_strndup(&a, "a\0b", 3);
    ck_assert_int_eq(memcmp(z, "a\0b\0", 4), 0);
    char *f = mcp_arena_printf(&a, "%s-%d-%.1f", "x", 42, 2.5);
    ck_assert_str_eq(f, "x-42-2.5");
    /* Longer than the first block. */
    char big[10000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = 0;
    char *g = mcp_arena_printf(&a, "<%s>", big);
    ck_assert_uint_eq(strlen(g), sizeof big + 1);
    ck_assert_int_eq(g[0], '<');
    ck_assert_int_eq(g[sizeof big], '>');
    ck_assert_str_eq(s, "hello"); /* earlier strings survive */
    mcp_arena_free(&a);
}
END_TEST

START_TEST(arena_realloc_grows_and_copies)
{
    mcp_arena a;
    mcp_arena_init(&a);
    char *p = mcp_arena_alloc(&a, 10);
    memcpy(p, "0123456789", 10);
    char *q = mcp_arena_realloc(&a, p, 10, 20000);
    ck_assert_ptr_nonnull(q);
    ck_assert_int_eq(memcmp(q, "0123456789", 10), 0);
    ck_assert(all_zero(q + 10, 20000 - 10));
    /* Shrinking keeps the same memory. */
    ck_assert_ptr_eq(mcp_arena_realloc(&a, q, 20000, 5), q);
    ck_assert_ptr_eq(mcp_arena_realloc(&a, q, 20000, 20000), q);
    /* From nothing it is an allocation. */
    char *r = mcp_arena_realloc(&a, NULL, 0, 16);
    ck_assert_ptr_nonnull(r);
    ck_assert(all_zero(r, 16));
    /* The old allocation stays valid. */
    ck_assert_int_eq(memcmp(p, "0123456789", 10), 0);
    mcp_arena_free(&a);
}
END_TEST

START_TEST(arena_reset_reuses_block)
{
    mcp_arena a;
    mcp_arena_init(&a);
    char *first = mcp_arena_alloc(&a, 100);
    mcp_arena_block *head = a.head;
    ck_assert_ptr_nonnull(head);
    for (int req = 0; req < 1000; req++) {
        mcp_arena_reset(&a);
        ck_assert_uint_eq(a.used, 0);
        ck_assert_ptr_eq(a.head, head);
        /* A request's worth of small allocations stays in the kept block. */
        char *p = mcp_arena_alloc(&a, 100);
        ck_assert_ptr_eq(p, first);  /* from the start of the block */
        ck_assert(all_zero(p, 100)); /* zeroed again */
        memset(p, 1, 100);
        ck_assert_ptr_nonnull(mcp_arena_strdup(&a, "abc"));
        ck_assert_ptr_nonnull(mcp_arena_printf(&a, "%d", req));
        ck_assert_ptr_eq(a.head, head);
    }
    mcp_arena_free(&a);
}
END_TEST

START_TEST(arena_reset_keeps_largest)
{
    mcp_arena a;
    mcp_arena_init(&a);
    ck_assert_ptr_nonnull(mcp_arena_alloc(&a, 100));
    /* Many ordinary blocks, and one big allocation among them. */
    for (int i = 0; i < 50; i++)
        ck_assert_ptr_nonnull(mcp_arena_alloc(&a, 3000));
    char *big = mcp_arena_alloc(&a, 4u << 20);
    ck_assert_ptr_nonnull(big);
    for (int i = 0; i < 50; i++)
        ck_assert_ptr_nonnull(mcp_arena_alloc(&a, 3000));
    mcp_arena_reset(&a);
    /* The big allocation's block, and only it, is kept: the same request
     * again fits in it without a new block. */
    mcp_arena_block *head = a.head;
    char *again = mcp_arena_alloc(&a, 4u << 20);
    ck_assert_ptr_eq(again, big);
    ck_assert_ptr_eq(a.head, head);
    ck_assert(all_zero(again, 4u << 20));
    mcp_arena_free(&a);
}
END_TEST

START_TEST(arena_large_allocations)
{
    mcp_arena a;
    mcp_arena_init(&a);
    char *small = mcp_arena_alloc(&a, 16);
    mcp_arena_block *head = a.head;
    /* A large allocation goes behind the current block, which stays in use. */
    char *p = mcp_arena_alloc(&a, 64u << 20);
    ck_assert_ptr_nonnull(p);
    ck_assert(all_zero(p, 64u << 20));
    p[(64u << 20) - 1] = 1;
    ck_assert_ptr_eq(a.head, head);
    char *next = mcp_arena_alloc(&a, 16);
    ck_assert_ptr_nonnull(next);
    ck_assert(next > small && next < small + 256); /* right after it */
    ck_assert_ptr_eq(a.head, head);
    /* Impossible sizes fail with NULL, and the arena stays usable. */
    ck_assert_ptr_null(mcp_arena_alloc(&a, SIZE_MAX));
    ck_assert_ptr_null(mcp_arena_alloc(&a, SIZE_MAX - 8));
    ck_assert_ptr_null(mcp_arena_alloc(&a, SIZE_MAX / 2));
    ck_assert_ptr_nonnull(mcp_arena_alloc(&a, 16));
    mcp_arena_free(&a);
    /* Usable again after free. */
    ck_assert_ptr_nonnull(mcp_arena_strdup(&a, "again"));
    mcp_arena_free(&a);
}
END_TEST

/* ---- buf ---------------------------------------------------------------- */

START_TEST(buf_growth)
{
    mcp_buf b;
    mcp_buf_init(&b);
    ck_assert_ptr_null(b.data);
    ck_assert_uint_eq(b.len, 0);
    size_t total = 0;
    /* Writes of every size from 0 to 700, through many reallocations. */
    for (size_t n = 0; n <= 700; n++) {
        char chunk[700];
        for (size_t i = 0; i < n; i++)
            chunk[i] = (char)(unsigned char)(total + i);
        mcp_buf_put(&b, chunk, n);
        total += n;
        ck_assert_uint_eq(b.len, total);
        ck_assert_uint_gt(b.cap, b.len);
        ck_assert_int_eq(b.data[b.len], 0);
    }
    for (size_t i = 0; i < total; i++)
        ck_assert_uint_eq((unsigned char)b.data[i], (unsigned char)i);
    ck_assert(!b.oom);
    mcp_buf_free(&b);
    ck_assert_ptr_null(b.data);
}
END_TEST

START_TEST(buf_putc_puts_printf)
{
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_putc(&b, '[');
    mcp_buf_puts(&b, "abc");
    mcp_buf_printf(&b, "%d,%s", -12, "z");
    mcp_buf_putc(&b, ']');
    ck_assert_str_eq(b.data, "[abc-12,z]");
    ck_assert_uint_eq(b.len, 10);
    /* A printf longer than the current capacity. */
    char big[1000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    mcp_buf_printf(&b, "%s|%s", big, big);
    ck_assert_uint_eq(b.len, 10 + 2 * 999 + 1);
    ck_assert_int_eq(b.data[10 + 999], '|');
    ck_assert_int_eq(b.data[b.len], 0);
    /* Many single characters. */
    mcp_buf_clear(&b);
    for (int i = 0; i < 5000; i++)
        mcp_buf_putc(&b, (char)('a' + i % 26));
    ck_assert_uint_eq(b.len, 5000);
    ck_assert_int_eq(b.data[4999], 'a' + 4999 % 26);
    ck_assert_int_eq(b.data[5000], 0);
    mcp_buf_free(&b);
}
END_TEST

START_TEST(buf_reserve_overflow)
{
    /* len + n + 1 wraps around SIZE_MAX: a failure, not a tiny reserve. */
    for (size_t k = 0; k < 3; k++) {
        mcp_buf b;
        mcp_buf_init(&b);
        mcp_buf_puts(&b, "before");
        ck_assert(!mcp_buf_reserve(&b, SIZE_MAX - k));
        ck_assert(b.oom);
        mcp_buf_puts(&b, "after");
        ck_assert_uint_eq(b.len, 6);
        mcp_buf_free(&b);
    }
}
END_TEST

START_TEST(buf_clear_keeps_memory)
{
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_puts(&b, "some text");
    char *data = b.data;
    size_t cap = b.cap;
    mcp_buf_clear(&b);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_str_eq(b.data, "");
    ck_assert_ptr_eq(b.data, data);
    ck_assert_uint_eq(b.cap, cap);
    mcp_buf_puts(&b, "new");
    ck_assert_str_eq(b.data, "new");
    ck_assert_ptr_eq(b.data, data);
    mcp_buf_free(&b);
    mcp_buf_clear(&b); /* clearing an empty buffer touches no memory */
    ck_assert_uint_eq(b.len, 0);
}
END_TEST

START_TEST(buf_take)
{
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_puts(&b, "payload");
    size_t len = 0;
    char *p = mcp_buf_take(&b, &len);
    ck_assert_str_eq(p, "payload");
    ck_assert_uint_eq(len, 7);
    ck_assert_ptr_null(b.data);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_uint_eq(b.cap, 0);
    free(p);
    /* len may be NULL. */
    mcp_buf_putc(&b, 'x');
    p = mcp_buf_take(&b, NULL);
    ck_assert_str_eq(p, "x");
    free(p);
}
END_TEST

START_TEST(buf_take_empty)
{
    /* An empty buffer gives an empty string, not NULL; also after a clear. */
    mcp_buf b;
    mcp_buf_init(&b);
    size_t len = 99;
    char *p = mcp_buf_take(&b, &len);
    ck_assert_ptr_nonnull(p);
    ck_assert_str_eq(p, "");
    ck_assert_uint_eq(len, 0);
    free(p);
    /* A reserve alone leaves the buffer NUL-terminated (buf.h: "always
     * NUL-terminated when cap > 0"). */
    ck_assert(mcp_buf_reserve(&b, 10));
    ck_assert_uint_gt(b.cap, 0);
    ck_assert_str_eq(b.data, "");
    mcp_buf_free(&b);
}
END_TEST

START_TEST(buf_oom_sticky)
{
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_puts(&b, "before");
    /* A realloc that fails. */
    ck_assert(!mcp_buf_reserve(&b, SIZE_MAX / 2));
    ck_assert(b.oom);
    mcp_buf_puts(&b, "after");
    mcp_buf_putc(&b, 'c');
    mcp_buf_printf(&b, "%d", 5);
    ck_assert(!mcp_buf_reserve(&b, 1));
    ck_assert_uint_eq(b.len, 6);
    ck_assert_str_eq(b.data, "before"); /* the memory is still valid */
    size_t len = 99;
    ck_assert_ptr_null(mcp_buf_take(&b, &len));
    ck_assert_uint_eq(len, 0);
    ck_assert_ptr_null(b.data);
    ck_assert(!b.oom); /* take leaves the buffer empty and usable */

    /* Again, on a buffer that has memory. */
    mcp_buf_puts(&b, "x");
    ck_assert(!mcp_buf_reserve(&b, SIZE_MAX / 2));
    ck_assert(b.oom);
    mcp_buf_put(&b, "yz", 2);
    ck_assert_uint_eq(b.len, 1);
    /* clear forgets the failure. */
    mcp_buf_clear(&b);
    ck_assert(!b.oom);
    mcp_buf_puts(&b, "ok");
    ck_assert_str_eq(b.data, "ok");
    mcp_buf_free(&b);
}
END_TEST

static Suite *memory_suite(void)
{
    Suite *s = suite_create("memory");
    TCase *a = tcase_create("arena");
    tcase_add_test(a, arena_init_empty);
    tcase_add_test(a, arena_alloc_aligned_zeroed);
    tcase_add_test(a, arena_alloc_zero_bytes);
    tcase_add_test(a, arena_strdup_printf);
    tcase_add_test(a, arena_realloc_grows_and_copies);
    tcase_add_test(a, arena_reset_reuses_block);
    tcase_add_test(a, arena_reset_keeps_largest);
    tcase_add_test(a, arena_large_allocations);
    suite_add_tcase(s, a);
    TCase *b = tcase_create("buf");
    tcase_add_test(b, buf_growth);
    tcase_add_test(b, buf_putc_puts_printf);
    tcase_add_test(b, buf_clear_keeps_memory);
    tcase_add_test(b, buf_take);
    tcase_add_test(b, buf_take_empty);
    tcase_add_test(b, buf_reserve_overflow);
    tcase_add_test(b, buf_oom_sticky);
    suite_add_tcase(s, b);
    return s;
}

int main(void)
{
    int failed = check_run(memory_suite(), true);
    return failed != 0;
}
