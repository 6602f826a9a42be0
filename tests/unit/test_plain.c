/* test_plain.c: mcp_write_plain, the tools/call shortcut for a C value,
 * against the general path. Random C values of the golden cases' return types
 * and a few more kinds (unit/plain/plain.mcp.yaml), from a seeded generator
 * that also plants the faults the encoder and the validation report (NULL
 * strings and items, enums and unions out of range, non-finite floats,
 * repeated dict keys, invalid UTF-8, values out of their constraints):
 *   - whatever the writer writes is, byte for byte, the compact text the
 *     general path writes (to_json, validation, to_json again, the same text
 *     twice), and the writer writes nothing where that path fails;
 *   - every answer of mcp_tool_invoke is byte for byte that of
 *     mcp_tool_invoke_general, error reports included. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "internal/codec.h"
#include "internal/methods.h"
#include "plain.mcp.h"

/* What every handler returns: a copy of the value the test made. */
static const void *the_value;
static size_t the_size;

static mcp_status give(void *out)
{
    memcpy(out, the_value, the_size);
    return MCP_OK;
}

#define HANDLER(NAME, T) \
    mcp_status plain_##NAME(mcp_call *call, const plain_##NAME##_args *in, T *out) \
    { \
        (void)call, (void)in; \
        return give(out); \
    }
HANDLER(get_weather, plain_WeatherData)
HANDLER(get_person, plain_PersonModel)
HANDLER(get_dc, plain_PersonDC)
HANDLER(temps, plain_float_dict)
HANDLER(addrs, plain_Address_dict)
HANDLER(lits, plain_WithLiteral)
HANDLER(event, plain_Event)
HANDLER(f_float, double)
HANDLER(f_int, int64_t)
HANDLER(f_bounded_int, int64_t)
HANDLER(primes, plain_int_list)
HANDLER(forecast, plain_WeatherData_list)
HANDLER(lit, plain_lit_result)
HANDLER(nested, plain_Person)
HANDLER(maybe, plain_str_opt)
HANDLER(tree, plain_Node)
HANDLER(f_str, const char *)
HANDLER(f_str_unstructured, const char *)
HANDLER(tup, plain_tuple_int_str)
HANDLER(td, plain_WeatherTD)
HANDLER(td_partial, plain_PersonTD)
HANDLER(u, plain_str_or_int)
HANDLER(dict_union, plain_int_intdict_or_int_dict)
HANDLER(bounded, plain_Bounded)
HANDLER(bounds, plain_Bounds)
HANDLER(mixed, plain_Mixed)
HANDLER(f_set, plain_str_set)
HANDLER(f_any, const mcp_json *)
HANDLER(f_bool, bool)
HANDLER(f_model_unstructured, plain_WeatherData)

/* ------------------------------------------------------------------ values */

static uint64_t rng_state;
static size_t checked_blocks; /* answers whose text block check_text_block compared */

static uint64_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static unsigned pick(unsigned n) { return (unsigned)(rnd() % n); }

/* One in n. */
static bool rare(unsigned n) { return pick(n) == 0; }

static const char *const STRINGS[] = {"",
                                      "a",
                                      "b",
                                      "k",
                                      "Overcast",
                                      "quote \" and \\ backslash",
                                      "line\nbreak\ttab",
                                      "\x01\x1f control",
                                      "caf\xc3\xa9",
                                      "\xe2\x82\xac 5",
                                      "\xf0\x9f\x98\x80",
                                      "{\"looks\": [\"like\", \"json\"]}",
                                      "\x7f del",
                                      "2024-01-02",
                                      "2024-01-02T03:04:05Z",
                                      "03:04:05",
                                      "P1D",
                                      "12345678-1234-5678-1234-567812345678",
                                      "https://example.com/",
                                      "1.50",
                                      "0"};
static const char *const KEYS[] = {"a", "b", "k", "caf\xc3\xa9", "with \"quote\""};
static const char *const ANYS[] = {"1",      "-0.0", "[1,2.5,\"x\",null]",   "{\"a\":{\"b\":[]},\"c\":true}",
                                   "\"s\"",  "null", "12345678901234567890", "{}",
                                   "[[[]]]", "1e300"};

static const char *gen_string(mcp_arena *a)
{
    if (rare(40))
        return NULL;
    if (rare(40))
        return "bad \xff byte";
    if (rare(60))
        return "\xed\xa0\x80 surrogate";
    (void)a;
    return STRINGS[pick(sizeof STRINGS / sizeof *STRINGS)];
}

static double gen_double(void)
{
    static const double D[] = {0.0, -0.0, 16.2, 0.83, 1e-7, 1e16, 0.1, 1.0, -1.5, 17.0, 1e300, 5e-324, 0.5, 2.0};
    if (rare(30))
        return rare(2) ? NAN : (rare(2) ? INFINITY : -INFINITY);
    if (rare(4)) {
        double d;
        uint64_t bits = rnd();
        memcpy(&d, &bits, sizeof d);
        return isfinite(d) ? d : 3.25;
    }
    return D[pick(sizeof D / sizeof *D)];
}

static int64_t gen_int(void)
{
    static const int64_t I[] = {0, 1, -1, 2, 5, 10, 42, -5, INT64_MAX, INT64_MIN, 1000000007};
    return rare(5) ? (int64_t)rnd() : I[pick(sizeof I / sizeof *I)];
}

static void gen(const mcp_type *t, char *p, int depth, mcp_arena *a);

typedef struct {
    size_t len;
    void *items;
} seq;

static void gen_seq(const mcp_type *t, char *p, int depth, mcp_arena *a)
{
    seq *s = (seq *)p;
    size_t n = depth > 4 ? 0 : pick(4);
    if (rare(50)) {
        s->len = 2;
        s->items = NULL;
        return;
    }
    bool dict = t->kind == MCP_T_DICT;
    size_t esz = dict ? t->item_size : t->elem->size;
    char *items = n ? mcp_arena_alloc(a, n * esz) : NULL;
    ck_assert(!n || items);
    if (n)
        memset(items, 0, n * esz);
    for (size_t i = 0; i < n; i++) {
        char *item = items + i * esz;
        if (dict) {
            if (t->int_keys) {
                int64_t k = rare(3) ? gen_int() : (int64_t)pick(4) - 1;
                memcpy(item, &k, sizeof k);
            } else {
                const char *k = rare(50) ? NULL : rare(50) ? "\xff" : KEYS[pick(sizeof KEYS / sizeof *KEYS)];
                memcpy(item, &k, sizeof k);
            }
            gen(t->elem, item + t->elem_offset, depth + 1, a);
        } else {
            gen(t->elem, item, depth + 1, a);
        }
    }
    s->len = n;
    s->items = items;
}

static void gen(const mcp_type *t, char *p, int depth, mcp_arena *a)
{
    switch (t->kind) {
    case MCP_T_INT: {
        int64_t x = gen_int();
        memcpy(p, &x, sizeof x);
        break;
    }
    case MCP_T_FLOAT: {
        double d = gen_double();
        memcpy(p, &d, sizeof d);
        break;
    }
    case MCP_T_STR:
    case MCP_T_FORMAT: {
        const char *s = gen_string(a);
        memcpy(p, &s, sizeof s);
        break;
    }
    case MCP_T_BYTES: {
        mcp_bytes *b = (mcp_bytes *)p;
        if (rare(40)) {
            *b = (mcp_bytes){3, NULL};
        } else if (rare(10)) {
            *b = (mcp_bytes){3, "a\0b"};
        } else {
            const char *s = gen_string(a);
            *b = (mcp_bytes){s ? strlen(s) : 0, s};
        }
        break;
    }
    case MCP_T_BOOL:
        *(bool *)p = rare(2);
        break;
    case MCP_T_NONE:
        break;
    case MCP_T_ANY: {
        const mcp_json *v = NULL;
        if (rare(20)) {
            mcp_json *arr = mcp_json_new_array(a);
            ck_assert(arr && mcp_json_append(a, arr, mcp_json_new_float(a, NAN)));
            v = arr;
        } else if (!rare(5)) {
            const char *text = ANYS[pick(sizeof ANYS / sizeof *ANYS)];
            v = mcp_json_parse(a, text, strlen(text), NULL, NULL, NULL);
            ck_assert_ptr_nonnull(v);
        }
        memcpy(p, &v, sizeof v);
        break;
    }
    case MCP_T_LIST:
    case MCP_T_SET:
    case MCP_T_DICT:
        gen_seq(t, p, depth, a);
        break;
    case MCP_T_TUPLE:
        for (uint32_t i = 0; i < t->nitems; i++)
            gen(t->items[i], p + t->offsets[i], depth + 1, a);
        break;
    case MCP_T_OPTIONAL:
        *(bool *)p = depth < 4 && rare(2);
        if (*(bool *)p)
            gen(t->elem, p + t->elem_offset, depth, a);
        break;
    case MCP_T_PTR: {
        char *target = NULL;
        if (depth < 4 && (t->nullable ? !rare(3) : !rare(50))) {
            target = mcp_arena_alloc(a, t->elem->size);
            ck_assert_ptr_nonnull(target);
            memset(target, 0, t->elem->size);
            gen(t->elem, target, depth + 1, a);
        }
        memcpy(p, &target, sizeof target);
        break;
    }
    case MCP_T_UNION: {
        uint32_t which = rare(40) ? (rare(2) ? 0 : t->nitems + 1) : 1 + pick(t->nitems);
        memcpy(p, &which, sizeof which);
        if (which >= 1 && which <= t->nitems)
            gen(t->items[which - 1], p + t->offsets[0], depth, a);
        break;
    }
    case MCP_T_LITERAL:
    case MCP_T_ENUM:
        *(int *)p = rare(40) ? (rare(2) ? -1 : (int)t->nvalues) : (int)pick(t->nvalues);
        break;
    case MCP_T_OBJECT:
        for (uint32_t i = 0; i < t->nfields; i++) {
            const mcp_field *f = &t->fields[i];
            if (f->has_offset >= 0)
                p[f->has_offset] = !rare(3);
            gen(f->type, p + f->offset, depth + 1, a);
        }
        break;
    }
}

/* ------------------------------------------------------------------ the two paths */

/* The general path's structuredContent text of v (structured_once's
 * checks): false where it would not write one. */
static bool general_text(const mcp_type *t, const void *v, mcp_arena *a, mcp_buf *text)
{
    mcp_report rep;
    mcp_report_init(&rep, a);
    const mcp_json *raw = mcp_to_json_report(t, v, a, &rep);
    if (!raw)
        return false;
    void *valid = mcp_arena_alloc(a, t->size ? t->size : 1);
    ck_assert_ptr_nonnull(valid);
    memset(valid, 0, t->size ? t->size : 1);
    mcp_report_init(&rep, a);
    if (!mcp_decode(t, raw, valid, a, &rep))
        return false;
    const mcp_json *sv = mcp_to_json(t, valid, a, NULL);
    if (!sv)
        return false;
    mcp_buf r;
    mcp_buf_init(&r);
    bool ok = mcp_json_write(&r, raw, -1) && mcp_json_write(text, sv, -1) && r.len == text->len &&
              memcmp(r.data, text->data, r.len) == 0;
    mcp_buf_free(&r);
    return ok;
}

static char *answer(const mcp_tool *tool, bool shortcut)
{
    mcp_arena a;
    mcp_arena_init(&a);
    mcp_call call;
    mcp_call_init(&call, &a, tool, NULL, NULL);
    mcp_buf out;
    mcp_buf_init(&out);
    ck_assert(shortcut ? mcp_tool_invoke(&call, NULL, &out) : mcp_tool_invoke_general(&call, NULL, &out));
    char *s = strdup(out.data);
    ck_assert_ptr_nonnull(s);
    mcp_buf_free(&out);
    mcp_arena_free(&a);
    return s;
}

/* The text block of an answer with structuredContent that is one block of
 * JSON (an object or a scalar) is that value written indented (as
 * mcp_json_write(v, 2) writes it): checked on the answer itself, so that
 * the text derived from the compact one is checked against the writer of
 * indented JSON, not against itself. */
static void check_text_block(const mcp_tool *tool, const char *answer, int round)
{
    mcp_arena a;
    mcp_arena_init(&a);
    const mcp_json *v = mcp_json_parse(&a, answer, strlen(answer), NULL, NULL, NULL);
    ck_assert_msg(v != NULL, "%s round %d: the answer is not JSON: %s", tool->name, round, answer);
    const mcp_json *sc = mcp_json_get(v, "structuredContent");
    if (sc && tool->output == MCP_OUTPUT_WRAPPED)
        sc = mcp_json_get(sc, "result");
    const mcp_json *content = mcp_json_get(v, "content");
    if (sc && sc->kind != MCP_JNULL && sc->kind != MCP_JSTRING && sc->kind != MCP_JARRAY) {
        ck_assert(content && content->kind == MCP_JARRAY && content->n == 1);
        const mcp_json *text = mcp_json_get(content->items[0], "text");
        ck_assert(text && text->kind == MCP_JSTRING);
        mcp_buf want;
        mcp_buf_init(&want);
        ck_assert(mcp_json_write(&want, sc, 2));
        ck_assert_msg(text->len == want.len && memcmp(text->s, want.data, want.len) == 0,
                      "%s round %d:\n  text  %.*s\n  want  %s", tool->name, round, (int)text->len, text->s, want.data);
        mcp_buf_free(&want);
        checked_blocks++;
    }
    mcp_arena_free(&a);
}

static const mcp_tool *tool_named(const char *name)
{
    for (size_t i = 0; i < plain_server.ntools; i++)
        if (strcmp(plain_server.tools[i].name, name) == 0)
            return &plain_server.tools[i];
    ck_abort_msg("no tool %s", name);
    return NULL;
}

enum { ROUNDS = 400 };

START_TEST(writer_matches_the_general_path)
{
    size_t written_total = 0, general_total = 0, faults_total = 0;
    for (size_t ti = 0; ti < plain_server.ntools; ti++) {
        const mcp_tool *tool = &plain_server.tools[ti];
        const mcp_type *t = tool->result;
        size_t written = 0;
        rng_state = 0x9E3779B97F4A7C15ULL ^ (ti + 1);
        for (int round = 0; round < ROUNDS; round++) {
            mcp_arena a;
            mcp_arena_init(&a);
            char *v = mcp_arena_alloc(&a, t->size ? t->size : 1);
            ck_assert_ptr_nonnull(v);
            memset(v, 0, t->size ? t->size : 1);
            gen(t, v, 0, &a);

            mcp_buf mine, theirs;
            mcp_buf_init(&mine);
            mcp_buf_init(&theirs);
            mcp_buf_puts(&mine, "<");
            bool wrote = mcp_write_plain(t, v, &mine);
            bool general = general_text(t, v, &a, &theirs);
            if (wrote) {
                ck_assert_msg(general, "%s round %d: the writer wrote %s where the general path writes nothing",
                              tool->name, round, mine.data);
                ck_assert_msg(mine.len == theirs.len + 1 && memcmp(mine.data + 1, theirs.data, theirs.len) == 0,
                              "%s round %d:\n  writer  %s\n  general %s", tool->name, round, mine.data + 1,
                              theirs.data);
                written++;
            } else {
                ck_assert_msg(mine.len == 1 && strcmp(mine.data, "<") == 0, "%s round %d: left %s", tool->name, round,
                              mine.data);
            }
            general_total += general;
            faults_total += !general;
            mcp_buf_free(&mine);
            mcp_buf_free(&theirs);

            /* The answers, each path with its own copy of the value. */
            the_value = v;
            the_size = t->size;
            char *fast = answer(tool, true);
            char *slow = answer(tool, false);
            ck_assert_msg(strcmp(fast, slow) == 0, "%s round %d:\n  shortcut %s\n  general  %s", tool->name, round,
                          fast, slow);
            check_text_block(tool, fast, round);
            free(fast);
            free(slow);
            mcp_arena_free(&a);
        }
        written_total += written;
    }
    /* The test sees both sides: values written, values refused. */
    ck_assert_uint_gt(written_total, general_total / 4);
    ck_assert_uint_gt(faults_total, plain_server.ntools * ROUNDS / 20);
    ck_assert_uint_gt(checked_blocks, written_total / 4);
}
END_TEST

/* The kinds the writer takes are written: a count per tool of a value
 * without faults (fixed, not random). */
START_TEST(plain_kinds_are_written)
{
    static const char *const PLAIN[] = {"get_weather", "temps",    "addrs",  "f_float", "f_int", "f_bounded_int",
                                        "primes",      "forecast", "nested", "tree",    "td",    "td_partial",
                                        "bounds",      "lits",     "tup",    "f_bool",  "f_any", "get_person"};
    for (size_t k = 0; k < sizeof PLAIN / sizeof *PLAIN; k++) {
        const mcp_tool *tool = tool_named(PLAIN[k]);
        size_t written = 0;
        rng_state = 12345 + k;
        for (int round = 0; round < ROUNDS; round++) {
            mcp_arena a;
            mcp_arena_init(&a);
            char *v = mcp_arena_alloc(&a, tool->result->size);
            memset(v, 0, tool->result->size);
            gen(tool->result, v, 0, &a);
            mcp_buf b;
            mcp_buf_init(&b);
            written += mcp_write_plain(tool->result, v, &b);
            mcp_buf_free(&b);
            mcp_arena_free(&a);
        }
        ck_assert_msg(written > 0, "%s: no value written", PLAIN[k]);
    }
}
END_TEST

/* What the writer refuses, where validation would change or refuse it. */
START_TEST(refused_kinds)
{
    mcp_arena a;
    mcp_arena_init(&a);
    mcp_buf b;
    mcp_buf_init(&b);

    plain_str_or_int u = {.which = plain_str_or_int_int_, .as.int_ = 3};
    ck_assert(!mcp_write_plain(tool_named("u")->result, &u, &b));
    const char *items[] = {"a", "a"};
    plain_str_set s = {2, items};
    ck_assert(!mcp_write_plain(tool_named("f_set")->result, &s, &b));
    plain_float_dict_item twice[] = {{"k", 1.0}, {"k", 2.0}};
    plain_float_dict d = {2, twice};
    ck_assert(!mcp_write_plain(tool_named("temps")->result, &d, &b));
    int64_t one = 1;
    ck_assert(!mcp_write_plain(tool_named("f_bounded_int")->result, &one, &b));
    int64_t two = 2;
    ck_assert(mcp_write_plain(tool_named("f_bounded_int")->result, &two, &b));
    ck_assert_str_eq(b.data, "2");
    ck_assert_uint_eq(b.len, 1);
    mcp_buf_free(&b);
    mcp_arena_free(&a);
}
END_TEST

/* A tree deeper than the indentation's short cut (eight levels), and one
 * deeper than the writer goes (64 levels): the same answers both ways, the
 * text block the value indented. */
START_TEST(deep_trees)
{
    const mcp_tool *tool = tool_named("tree");
    static plain_Node nodes[40];
    for (size_t levels = 1; levels <= 40; levels += 13) {
        memset(nodes, 0, sizeof nodes);
        for (size_t i = 0; i < levels; i++) {
            nodes[i].value = (int64_t)i;
            if (i + 1 < levels)
                nodes[i].children = (plain_Node_list){1, &nodes[i + 1]};
        }
        mcp_buf b;
        mcp_buf_init(&b);
        /* two JSON levels a node (the object, its children): more than 64 from 33 nodes */
        ck_assert(mcp_write_plain(tool->result, &nodes[0], &b) == (levels <= 32));
        mcp_buf_free(&b);
        the_value = &nodes[0];
        the_size = sizeof nodes[0];
        char *fast = answer(tool, true);
        char *slow = answer(tool, false);
        ck_assert_str_eq(fast, slow);
        check_text_block(tool, fast, (int)levels);
        free(fast);
        free(slow);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plain");
    TCase *t = tcase_create("plain");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, writer_matches_the_general_path);
    tcase_add_test(t, plain_kinds_are_written);
    tcase_add_test(t, refused_kinds);
    tcase_add_test(t, deep_trees);
    suite_add_tcase(s, t);
    return check_run(s, true) ? EXIT_FAILURE : EXIT_SUCCESS;
}
