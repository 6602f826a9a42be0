/* fuzz_decode: the table-driven codec (lib/codec/codec.c) on the types of every
 * golden case (tests/golden/NAME/NAME.mcp.yaml, compiled by this build's
 * mcpidlc).
 *
 * The first two bytes choose a tool and whether its arguments or its
 * declared return type is decoded; the rest is parsed as JSON and decoded.
 *
 * Properties: mcp_decode succeeds exactly when it reports no error; a
 * decoded value encodes (mcp_to_json) to JSON that is written, parsed and
 * decoded again without error, and encodes to an equal value (a round trip).
 */
#include <string.h>

#include "internal/methods.h"
#include "fuzz_util.h"

extern const mcp_server *const fuzz_servers[];
extern const size_t fuzz_nservers;

enum { MAX_TYPES = 1024 };

static const mcp_type *types[MAX_TYPES];
static const char *names[MAX_TYPES];
static size_t ntypes;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    for (size_t i = 0; i < fuzz_nservers; i++) {
        for (size_t k = 0; k < fuzz_servers[i]->ntools; k++) {
            const mcp_tool *t = &fuzz_servers[i]->tools[k];
            FUZZ_CHECK(ntypes + 2 <= MAX_TYPES);
            types[ntypes] = t->args;
            names[ntypes++] = t->name;
            if (t->result) {
                types[ntypes] = t->result;
                names[ntypes++] = t->output_title;
            }
        }
    }
    FUZZ_CHECK(ntypes > 0);
    return 0;
}

/* Decode v as t; NULL when it is not valid. The report is formatted either way. */
static void *decode(mcp_arena *a, const mcp_type *t, const char *title, const mcp_json *v)
{
    void *out = mcp_arena_alloc(a, t->size ? t->size : 1);
    FUZZ_CHECK(out != NULL);
    mcp_report rep;
    mcp_report_init(&rep, a);
    bool ok = mcp_decode(t, v, out, a, &rep);
    FUZZ_CHECK(ok == (rep.len == 0) || rep.oom);
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_report_format(&b, &rep, title);
    FUZZ_CHECK(ok || b.len > 0 || b.oom);
    mcp_buf_free(&b);
    return ok ? out : NULL;
}

static mcp_json *encode(mcp_arena *a, const mcp_type *t, const void *value)
{
    const char *why = NULL;
    mcp_json *j = mcp_to_json(t, value, a, &why);
    if (!j)
        fprintf(stderr, "a decoded value does not encode: %s\n", why ? why : "(no reason)");
    FUZZ_CHECK(j != NULL);
    return j;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t pick = ((size_t)data[0] | (size_t)data[1] << 8) % ntypes;
    const mcp_type *t = types[pick];
    const char *text = (const char *)data + 2;
    size_t len = size - 2;

    mcp_arena a;
    mcp_arena_init(&a);
    mcp_json_limits lim = {.max_depth = 64};
    mcp_json *v = mcp_json_parse(&a, text, len, &lim, NULL, NULL);
    void *x = v ? decode(&a, t, names[pick], v) : NULL;
    if (x) {
        mcp_json *j = encode(&a, t, x);
        mcp_buf b;
        mcp_buf_init(&b);
        FUZZ_CHECK(mcp_json_write(&b, j, -1)); /* false: a float that is not finite */
        FUZZ_CHECK(!b.oom);
        mcp_json *j2 = mcp_json_parse(&a, b.data ? b.data : "", b.len, &lim, NULL, NULL);
        if (!j2)
            fprintf(stderr, "the encoded value is not JSON: %.*s\n", (int)(b.len < 2000 ? b.len : 2000), b.data);
        FUZZ_CHECK(j2 != NULL);
        void *y = decode(&a, t, names[pick], j2);
        if (!y)
            fprintf(stderr, "the encoded value does not decode again: %.*s\n", (int)(b.len < 2000 ? b.len : 2000),
                    b.data);
        FUZZ_CHECK(y != NULL);
        mcp_json *j3 = encode(&a, t, y);
        if (!mcp_json_equal(j, j3)) {
            mcp_buf b3;
            mcp_buf_init(&b3);
            mcp_json_write(&b3, j3, -1);
            fprintf(stderr, "round trip differs:\n  %.*s\n  %.*s\n", (int)b.len, b.data, (int)b3.len, b3.data);
            mcp_buf_free(&b3);
        }
        FUZZ_CHECK(mcp_json_equal(j, j3));
        mcp_buf_free(&b);
    }
    mcp_arena_free(&a);
    return 0;
}
