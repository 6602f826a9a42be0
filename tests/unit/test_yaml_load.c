/* test_yaml_load.c: the YAML loader, yaml_load.c. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpidl/arena.h"
#include "diag.h"
#include "node.h"
#include "check_run.h"

static mcp_arena arena;
static idl_diags diags;

static void setup(void) { mcp_arena_init(&arena); }

static void teardown(void) { mcp_arena_free(&arena); }

static void dump_diags(void)
{
    for (size_t i = 0; i < diags.len; i++)
        fprintf(stderr, "  %u:%u: %s: %s\n", (unsigned)diags.items[i].loc.line, (unsigned)diags.items[i].loc.col,
                diags.items[i].severity == IDL_ERROR  ? "error"
                : diags.items[i].severity == IDL_NOTE ? "note"
                                                      : "warning",
                diags.items[i].message);
}

/* Load and check the contract: a tree without errors, or NULL with errors. */
static idl_node *load_n(const char *src, size_t len, const idl_load_limits *limits)
{
    idl_diags_init(&diags, &arena, "t.mcp.yaml", src, len);
    idl_node *n = idl_load_yaml(&arena, &diags, src, len, limits);
    if (n)
        ck_assert_uint_eq(diags.errors, 0);
    else
        ck_assert_uint_gt(diags.errors, 0);
    return n;
}

static idl_node *load(const char *src) { return load_n(src, strlen(src), NULL); }

static idl_node *load_ok(const char *src)
{
    idl_node *n = load(src);
    if (!n)
        dump_diags();
    ck_assert_ptr_nonnull(n);
    return n;
}

static void load_fails(const char *src)
{
    idl_node *n = load(src);
    ck_assert_ptr_null(n);
}

/* A diagnostic of severity `sev` at line:col whose message contains `text`. */
static const idl_diag *find_diag(idl_severity sev, uint32_t line, uint32_t col, const char *text)
{
    for (size_t i = 0; i < diags.len; i++) {
        const idl_diag *g = &diags.items[i];
        if (g->severity == sev && g->loc.line == line && g->loc.col == col && strstr(g->message, text))
            return g;
    }
    fprintf(stderr, "missing %s at %u:%u containing \"%s\"; have:\n", sev == IDL_ERROR ? "error" : "note",
            (unsigned)line, (unsigned)col, text);
    dump_diags();
    return NULL;
}

#define expect_error(line, col, text) ck_assert_ptr_nonnull(find_diag(IDL_ERROR, (line), (col), (text)))
#define expect_note(line, col, text) ck_assert_ptr_nonnull(find_diag(IDL_NOTE, (line), (col), (text)))

/* The value of `key` in the root mapping. */
static idl_node *get(idl_node *map, const char *key)
{
    ck_assert_ptr_nonnull(map);
    ck_assert_int_eq(map->kind, IDL_NODE_MAP);
    idl_node *v = idl_map_get(map, key);
    if (!v)
        fprintf(stderr, "no key '%s'\n", key);
    ck_assert_ptr_nonnull(v);
    return v;
}

/* The value of "v: TEXT". */
static idl_node *value_of(const char *text)
{
    char buf[512];
    snprintf(buf, sizeof buf, "v: %s\n", text);
    return get(load_ok(buf), "v");
}

static void expect_kind(const char *text, idl_node_kind kind)
{
    idl_node *v = value_of(text);
    if (v->kind != kind)
        fprintf(stderr, "'%s': kind %d, want %d\n", text, (int)v->kind, (int)kind);
    ck_assert_int_eq(v->kind, kind);
}

static void expect_str(const char *text, const char *want)
{
    idl_node *v = value_of(text);
    if (v->kind != IDL_NODE_STR)
        fprintf(stderr, "'%s': kind %d, want a string\n", text, (int)v->kind);
    ck_assert_int_eq(v->kind, IDL_NODE_STR);
    ck_assert_str_eq(v->str, want);
}

static void expect_int(const char *text, int64_t want, bool overflow)
{
    idl_node *v = value_of(text);
    if (v->kind != IDL_NODE_INT)
        fprintf(stderr, "'%s': kind %d, want an integer\n", text, (int)v->kind);
    ck_assert_int_eq(v->kind, IDL_NODE_INT);
    ck_assert_int_eq(v->v.i, want);
    ck_assert_int_eq(v->overflow, overflow);
    ck_assert_str_eq(v->str, text); /* the source spelling */
}

static void expect_float(const char *text, double want)
{
    idl_node *v = value_of(text);
    if (v->kind != IDL_NODE_FLOAT)
        fprintf(stderr, "'%s': kind %d, want a float\n", text, (int)v->kind);
    ck_assert_int_eq(v->kind, IDL_NODE_FLOAT);
    ck_assert_double_eq(v->v.f, want);
    ck_assert(!v->overflow);
    ck_assert_str_eq(v->str, text);
}

static void expect_bool(const char *text, bool want)
{
    idl_node *v = value_of(text);
    ck_assert_int_eq(v->kind, IDL_NODE_BOOL);
    ck_assert_int_eq(v->v.b, want);
    ck_assert_str_eq(v->str, text);
}

/* Iterative walk of a tree: the number of nodes (with repetition through shared
 * nodes) and the greatest nesting of mappings and sequences. Checks that every key
 * is a string. */
typedef struct walk_item {
    const idl_node *n;
    size_t level;
} walk_item;

static size_t walk(const idl_node *root, size_t *max_level)
{
    size_t cap = 1024, len = 0, count = 0;
    walk_item *stack = malloc(cap * sizeof *stack);
    ck_assert_ptr_nonnull(stack);
    stack[len++] = (walk_item){root, 0};
    *max_level = 0;
    while (len) {
        walk_item it = stack[--len];
        count++;
        size_t level = it.level;
        if (it.n->kind == IDL_NODE_MAP || it.n->kind == IDL_NODE_SEQ) {
            level++;
            if (level > *max_level)
                *max_level = level;
        }
        size_t need = len + 2 * it.n->n;
        if (it.n->kind != IDL_NODE_MAP && it.n->kind != IDL_NODE_SEQ)
            need = len;
        if (need > cap) {
            while (cap < need)
                cap *= 2;
            stack = realloc(stack, cap * sizeof *stack);
            ck_assert_ptr_nonnull(stack);
        }
        if (it.n->kind == IDL_NODE_MAP) {
            for (size_t i = 0; i < it.n->n; i++) {
                ck_assert_int_eq(it.n->pairs[i].key->kind, IDL_NODE_STR);
                stack[len++] = (walk_item){it.n->pairs[i].key, level};
                stack[len++] = (walk_item){it.n->pairs[i].value, level};
            }
        } else if (it.n->kind == IDL_NODE_SEQ) {
            for (size_t i = 0; i < it.n->n; i++)
                stack[len++] = (walk_item){it.n->items[i], level};
        }
    }
    free(stack);
    return count;
}

/* A seeded generator, so failures reproduce. */
static uint64_t rng_state;

static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* ---- scalars -------------------------------------------------------------- */

START_TEST(scalar_null_forms)
{
    expect_kind("null", IDL_NODE_NULL);
    expect_kind("Null", IDL_NODE_NULL);
    expect_kind("NULL", IDL_NODE_NULL);
    expect_kind("~", IDL_NODE_NULL);
    expect_kind("", IDL_NODE_NULL);
    idl_node *v = get(load_ok("a:\nb: 1\n"), "a");
    ck_assert_int_eq(v->kind, IDL_NODE_NULL);
    ck_assert_str_eq(v->str, "");
    expect_str("nULL", "nULL");
    expect_str("nul", "nul");
    expect_str("None", "None");
}
END_TEST

START_TEST(scalar_bool_any_case)
{
    expect_bool("true", true);
    expect_bool("True", true);
    expect_bool("TRUE", true);
    expect_bool("tRuE", true);
    expect_bool("false", false);
    expect_bool("False", false);
    expect_bool("FALSE", false);
    expect_bool("fAlSe", false);
    /* YAML 1.1 booleans are strings in the core schema. */
    expect_str("yes", "yes");
    expect_str("no", "no");
    expect_str("on", "on");
    expect_str("off", "off");
    expect_str("y", "y");
    expect_str("n", "n");
    expect_str("truee", "truee");
}
END_TEST

START_TEST(scalar_int_decimal)
{
    expect_int("0", 0, false);
    expect_int("42", 42, false);
    expect_int("-17", -17, false);
    expect_int("+5", 5, false);
    expect_int("007", 7, false);
    expect_int("-0", 0, false);
    expect_str("1_000", "1_000");
    expect_str("1 000", "1 000");
    expect_str("12abc", "12abc");
}
END_TEST

START_TEST(scalar_int_octal_hex)
{
    expect_int("0o17", 15, false);
    expect_int("0o0", 0, false);
    expect_int("0x1F", 31, false);
    expect_int("0xff", 255, false);
    expect_int("0xFfFf", 65535, false);
    expect_str("0o8", "0o8");
    expect_str("0o", "0o");
    expect_str("0x", "0x");
    expect_str("0xg", "0xg");
    expect_str("0X1F", "0X1F");
    expect_str("0O17", "0O17");
    expect_str("-0x1", "-0x1");
    expect_str("+0o7", "+0o7");
    expect_str("0b101", "0b101");
}
END_TEST

START_TEST(scalar_int_limits)
{
    expect_int("9223372036854775807", INT64_MAX, false);
    expect_int("-9223372036854775808", INT64_MIN, false);
    expect_int("9223372036854775808", INT64_MAX, true);
    expect_int("-9223372036854775809", INT64_MIN, true);
    expect_int("0x7fffffffffffffff", INT64_MAX, false);
    expect_int("0x8000000000000000", INT64_MAX, true);
    expect_int("0o777777777777777777777", INT64_MAX, false);
    expect_int("0o1000000000000000000000", INT64_MAX, true);
    expect_int("123456789012345678901234567890123456789012345678901234567890", INT64_MAX, true);
    expect_int("-00000000000000000000000000000000000000000000000000000000000001", -1, false);
}
END_TEST

START_TEST(scalar_float_decimal)
{
    expect_float("1.5", 1.5);
    expect_float("-2.25", -2.25);
    expect_float(".5", 0.5);
    expect_float("-.5", -0.5);
    expect_float("5.", 5.0);
    expect_float("0.0", 0.0);
    expect_float("1e3", 1000.0); /* a float, not an integer */
    expect_float("1E-3", 0.001);
    expect_float("+1.5e+3", 1500.0);
    expect_float("-.5e2", -50.0);
    expect_float("1.10", 1.1); /* version: 1.10 is a float */
    expect_float("007.5", 7.5);
}
END_TEST

START_TEST(scalar_float_special)
{
    idl_node *v = value_of(".inf");
    ck_assert_int_eq(v->kind, IDL_NODE_FLOAT);
    ck_assert(isinf(v->v.f) && v->v.f > 0);
    const char *pos[] = {".Inf", ".INF", "+.inf", "+.INF"};
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
        v = value_of(pos[i]);
        ck_assert_int_eq(v->kind, IDL_NODE_FLOAT);
        ck_assert(isinf(v->v.f) && v->v.f > 0);
    }
    const char *neg[] = {"-.inf", "-.Inf", "-.INF"};
    for (size_t i = 0; i < sizeof neg / sizeof neg[0]; i++) {
        v = value_of(neg[i]);
        ck_assert_int_eq(v->kind, IDL_NODE_FLOAT);
        ck_assert(isinf(v->v.f) && v->v.f < 0);
    }
    const char *nans[] = {".nan", ".NaN", ".NAN"};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        v = value_of(nans[i]);
        ck_assert_int_eq(v->kind, IDL_NODE_FLOAT);
        ck_assert(isnan(v->v.f));
    }
    expect_str("-.nan", "-.nan");
    expect_str("+.NaN", "+.NaN");
    expect_str(".InF", ".InF");
    expect_str(".NAn", ".NAn");
    expect_str("inf", "inf");
    expect_str("nan", "nan");
    expect_str("Infinity", "Infinity");
}
END_TEST

START_TEST(scalar_not_numbers)
{
    expect_str("1.0.0", "1.0.0");
    expect_str("1e", "1e");
    expect_str("1e+", "1e+");
    expect_str("e3", "e3");
    expect_str(".", ".");
    expect_str("+", "+");
    expect_str("--1", "--1");
    expect_str("1.5e3.2", "1.5e3.2");
    expect_str("0x1.8p3", "0x1.8p3");
    expect_str(".e3", ".e3");
    expect_str("1,5", "1,5");
}
END_TEST

START_TEST(scalar_float_out_of_range)
{
    idl_node *v = value_of("1e999");
    ck_assert_int_eq(v->kind, IDL_NODE_FLOAT);
    ck_assert(isinf(v->v.f));
    ck_assert(v->overflow);
    v = value_of("-1e999");
    ck_assert(isinf(v->v.f) && v->v.f < 0);
    ck_assert(v->overflow);
    v = value_of("1e-999"); /* underflow is not overflow */
    ck_assert_int_eq(v->kind, IDL_NODE_FLOAT);
    ck_assert(!v->overflow);
    ck_assert(v->v.f == 0.0);
    /* A long mantissa. */
    char buf[400];
    memset(buf, '3', sizeof buf);
    buf[0] = '0';
    buf[1] = '.';
    buf[sizeof buf - 1] = 0;
    v = value_of(buf);
    ck_assert_int_eq(v->kind, IDL_NODE_FLOAT);
    ck_assert(fabs(v->v.f - 1.0 / 3.0) < 1e-15);
}
END_TEST

START_TEST(scalar_quoted_always_strings)
{
    idl_node *root = load_ok("a: '1'\nb: \"true\"\nc: 'null'\nd: \"~\"\ne: ''\nf: \"\"\ng: '1e3'\n");
    const char *keys[] = {"a", "b", "c", "d", "e", "f", "g"};
    const char *want[] = {"1", "true", "null", "~", "", "", "1e3"};
    for (size_t i = 0; i < 7; i++) {
        idl_node *v = get(root, keys[i]);
        ck_assert_int_eq(v->kind, IDL_NODE_STR);
        ck_assert_str_eq(v->str, want[i]);
        ck_assert_int_eq(v->style, i % 2 == 0 ? IDL_STYLE_SINGLE : IDL_STYLE_DOUBLE);
    }
    ck_assert_uint_eq(get(root, "e")->len, 0);
}
END_TEST

START_TEST(scalar_block_styles)
{
    idl_node *root = load_ok("lit: |\n  123\n  true\nfold: >\n  a\n  b\nkeep: |-\n  null\n");
    idl_node *v = get(root, "lit");
    ck_assert_int_eq(v->kind, IDL_NODE_STR);
    ck_assert_int_eq(v->style, IDL_STYLE_LITERAL);
    ck_assert_str_eq(v->str, "123\ntrue\n");
    v = get(root, "fold");
    ck_assert_int_eq(v->kind, IDL_NODE_STR);
    ck_assert_int_eq(v->style, IDL_STYLE_FOLDED);
    ck_assert_str_eq(v->str, "a b\n");
    v = get(root, "keep");
    ck_assert_int_eq(v->kind, IDL_NODE_STR);
    ck_assert_str_eq(v->str, "null");
}
END_TEST

START_TEST(scalar_escaped_nul_kept)
{
    idl_node *v = get(load_ok("s: \"a\\0b\\u00e9\"\n"), "s");
    ck_assert_int_eq(v->kind, IDL_NODE_STR);
    ck_assert_uint_eq(v->len, 5);
    ck_assert_int_eq(v->str[0], 'a');
    ck_assert_int_eq(v->str[1], 0);
    ck_assert_int_eq(v->str[2], 'b');
    ck_assert_mem_eq(v->str + 3, "\xC3\xA9", 2);
    ck_assert_int_eq(v->str[v->len], 0);
}
END_TEST

START_TEST(scalar_plain_multiline)
{
    idl_node *v = get(load_ok("d: one\n  two\n\n  three\n"), "d");
    ck_assert_int_eq(v->kind, IDL_NODE_STR);
    ck_assert_str_eq(v->str, "one two\nthree");
}
END_TEST

/* ---- keys ----------------------------------------------------------------- */

START_TEST(keys_verbatim)
{
    idl_node *root = load_ok("on: 1\ny: 2\nno: 3\n1: 4\nnull: 5\n~: 6\ntrue: 7\n0x10: 8\n1.5: 9\n'': 10\n"
                             ".inf: 11\n");
    const char *keys[] = {"on", "y", "no", "1", "null", "~", "true", "0x10", "1.5", "", ".inf"};
    ck_assert_uint_eq(root->n, 11);
    for (size_t i = 0; i < root->n; i++) {
        const idl_node *k = root->pairs[i].key;
        ck_assert_int_eq(k->kind, IDL_NODE_STR);
        ck_assert_str_eq(k->str, keys[i]);
        ck_assert_int_eq(root->pairs[i].value->kind, IDL_NODE_INT);
        ck_assert_int_eq(root->pairs[i].value->v.i, (int64_t)i + 1);
    }
    ck_assert_int_eq(root->pairs[0].key->style, IDL_STYLE_PLAIN);
    ck_assert_int_eq(root->pairs[9].key->style, IDL_STYLE_SINGLE);
}
END_TEST

START_TEST(keys_empty_and_styles)
{
    idl_node *root = load_ok("?\n: v\n\"q\": 1\n's': 2\n? |\n  lit\n: 3\n");
    ck_assert_uint_eq(root->n, 4);
    ck_assert_int_eq(root->pairs[0].key->kind, IDL_NODE_STR);
    ck_assert_str_eq(root->pairs[0].key->str, "");
    ck_assert_int_eq(root->pairs[0].key->style, IDL_STYLE_PLAIN);
    ck_assert_int_eq(root->pairs[1].key->style, IDL_STYLE_DOUBLE);
    ck_assert_int_eq(root->pairs[2].key->style, IDL_STYLE_SINGLE);
    ck_assert_int_eq(root->pairs[3].key->style, IDL_STYLE_LITERAL);
    ck_assert_str_eq(root->pairs[3].key->str, "lit\n");
    ck_assert_ptr_eq(idl_map_get(root, "q"), root->pairs[1].value);
}
END_TEST

START_TEST(keys_collection_rejected)
{
    load_fails("a: 1\n? [x, y]\n: 1\n");
    expect_error(2, 3, "a mapping key must be a string, not a sequence");
    load_fails("? {k: v}\n: 1\n");
    expect_error(1, 3, "a mapping key must be a string, not a mapping");
    load_fails("{[a]: 1, b: 2}\n");
    expect_error(1, 2, "a mapping key must be a string, not a sequence");
    ck_assert_uint_eq(diags.errors, 1);
}
END_TEST

START_TEST(keys_duplicate)
{
    load_fails("name: a\nother: b\nname: c\n");
    expect_error(3, 1, "duplicate key 'name'");
    expect_note(1, 1, "'name' first defined here");
    ck_assert_uint_eq(diags.errors, 1);
    const idl_diag *g = find_diag(IDL_ERROR, 3, 1, "duplicate");
    ck_assert_str_eq(g->message, "duplicate key 'name'");
}
END_TEST

START_TEST(keys_duplicate_same_bytes_any_style)
{
    /* 'a', "a" and a are the same key; 1 and '1' too. */
    load_fails("top:\n  a: 1\n  'b': 2\n  \"a\": 3\n  b: 4\n");
    expect_error(4, 3, "duplicate key 'a'");
    expect_note(2, 3, "'a' first defined here");
    expect_error(5, 3, "duplicate key 'b'");
    expect_note(3, 3, "'b' first defined here");
    ck_assert_uint_eq(diags.errors, 2);
    /* The same key in different mappings is fine. */
    load_ok("a: {x: 1}\nb: {x: 2}\nc: [{x: 1}, {x: 2}]\n");
}
END_TEST

START_TEST(keys_duplicate_many)
{
    load_fails("{x: 1, y: 2, x: 3, z: 4, x: 5}\n");
    expect_error(1, 14, "duplicate key 'x'");
    expect_error(1, 26, "duplicate key 'x'");
    expect_note(1, 2, "'x' first defined here");
    ck_assert_uint_eq(diags.errors, 2);
    ck_assert_uint_eq(diags.len, 4);
}
END_TEST

START_TEST(keys_duplicate_shown_safely)
{
    load_fails("\"a\\nb\": 1\n\"a\\nb\": 2\n");
    expect_error(2, 1, "duplicate key 'a\\nb'");
    /* A long key is cut in the message. */
    char src[700];
    char key[301];
    memset(key, 'k', 300);
    key[300] = 0;
    snprintf(src, sizeof src, "%s: 1\n%s: 2\n", key, key);
    load_fails(src);
    const idl_diag *g = find_diag(IDL_ERROR, 2, 1, "duplicate key 'kkkk");
    ck_assert_ptr_nonnull(g);
    ck_assert_uint_lt(strlen(g->message), 80);
    ck_assert_ptr_nonnull(strstr(g->message, "...'"));
}
END_TEST

START_TEST(keys_merge_rejected)
{
    load_fails("base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n");
    expect_error(3, 3, "merge keys ('<<') are not supported");
    ck_assert_uint_eq(diags.errors, 1);
    /* A quoted '<<' is an ordinary key. */
    idl_node *root = load_ok("'<<': 1\n");
    ck_assert_int_eq(get(root, "<<")->v.i, 1);
}
END_TEST

/* ---- locations ------------------------------------------------------------ */

START_TEST(locations_nested)
{
    idl_node *root = load_ok("server:\n"
                             "  name: demo\n"
                             "  tools:\n"
                             "    - name: t1\n"
                             "      params: {x: int, \"y z\": [1, 2]}\n");
    ck_assert_uint_eq(root->loc.line, 1);
    ck_assert_uint_eq(root->loc.col, 1);
    ck_assert_int_eq(root->style, IDL_STYLE_BLOCK);
    ck_assert_uint_eq(root->pairs[0].key->loc.line, 1);
    ck_assert_uint_eq(root->pairs[0].key->loc.col, 1);
    idl_node *server = get(root, "server");
    ck_assert_uint_eq(server->loc.line, 2);
    ck_assert_uint_eq(server->loc.col, 3);
    idl_node *name = get(server, "name");
    ck_assert_uint_eq(name->loc.line, 2);
    ck_assert_uint_eq(name->loc.col, 9);
    idl_node *tools = get(server, "tools");
    ck_assert_int_eq(tools->kind, IDL_NODE_SEQ);
    ck_assert_int_eq(tools->style, IDL_STYLE_BLOCK);
    ck_assert_uint_eq(tools->loc.line, 4);
    ck_assert_uint_eq(tools->loc.col, 5);
    idl_node *tool = tools->items[0];
    ck_assert_uint_eq(tool->loc.line, 4);
    ck_assert_uint_eq(tool->loc.col, 7);
    idl_node *params = get(tool, "params");
    ck_assert_int_eq(params->style, IDL_STYLE_FLOW);
    ck_assert_uint_eq(params->loc.line, 5);
    ck_assert_uint_eq(params->loc.col, 15);
    ck_assert_uint_eq(params->pairs[0].key->loc.col, 16);
    ck_assert_uint_eq(get(params, "x")->loc.col, 19);
    ck_assert_uint_eq(params->pairs[1].key->loc.col, 24); /* the quote */
    idl_node *yz = get(params, "y z");
    ck_assert_uint_eq(yz->loc.col, 31);
    ck_assert_uint_eq(yz->items[1]->loc.line, 5);
    ck_assert_uint_eq(yz->items[1]->loc.col, 35);
}
END_TEST

START_TEST(locations_multibyte)
{
    /* Columns count characters: é is 2 bytes, € 3, 😀 4. */
    idl_node *root = load_ok("\xC3\xA9: [\xE2\x82\xAC, \xF0\x9F\x98\x80, x]\n"
                             "\"\xC3\xBC\": {\xC3\xA4: \xC3\xB6}\n");
    idl_node *seq = root->pairs[0].value;
    ck_assert_uint_eq(seq->loc.col, 4);
    ck_assert_uint_eq(seq->items[0]->loc.col, 5);
    ck_assert_uint_eq(seq->items[1]->loc.col, 8);
    ck_assert_uint_eq(seq->items[2]->loc.col, 11);
    idl_node *map = root->pairs[1].value;
    ck_assert_uint_eq(root->pairs[1].key->loc.line, 2);
    ck_assert_uint_eq(root->pairs[1].key->loc.col, 1);
    ck_assert_uint_eq(map->loc.line, 2);
    ck_assert_uint_eq(map->loc.col, 6);
    ck_assert_uint_eq(map->pairs[0].key->loc.col, 7);
    ck_assert_uint_eq(map->pairs[0].value->loc.col, 10);
    ck_assert_str_eq(map->pairs[0].value->str, "\xC3\xB6");
}
END_TEST

START_TEST(locations_tab_crlf_bom)
{
    /* A tab is one column. */
    idl_node *seq = get(load_ok("a:\t[x,\ty]\n"), "a");
    ck_assert_uint_eq(seq->loc.col, 4);
    ck_assert_uint_eq(seq->items[1]->loc.col, 8);
    /* CRLF is one line break. */
    idl_node *root = load_ok("a: 1\r\nb:\r\n  c: 2\r\n");
    idl_node *c = get(get(root, "b"), "c");
    ck_assert_uint_eq(c->loc.line, 3);
    ck_assert_uint_eq(c->loc.col, 6);
    ck_assert_int_eq(c->v.i, 2);
    /* A UTF-8 BOM is not a character. */
    root = load_ok("\xEF\xBB\xBF"
                   "a: 1\nb: 2\n");
    ck_assert_uint_eq(root->pairs[0].key->loc.col, 1);
    ck_assert_uint_eq(get(root, "a")->loc.col, 4);
    ck_assert_uint_eq(get(root, "b")->loc.line, 2);
}
END_TEST

START_TEST(locations_unicode_line_breaks)
{
    /* libyaml also breaks lines at LS, PS and NEL; locations count lines as diag.c,
     * editors and compilers do: at "\n", "\r\n" and a lone "\r". */
    idl_node *root = load_ok("a: \"x\xE2\x80\xA8y\"\nb: 'c\xC2\x85"
                             "d\xE2\x80\xA9"
                             "e'\nc: [1, 2]\n");
    idl_node *c = get(root, "c");
    ck_assert_uint_eq(c->loc.line, 3);
    ck_assert_uint_eq(c->loc.col, 4);
    ck_assert_uint_eq(c->items[1]->loc.line, 3);
    ck_assert_uint_eq(c->items[1]->loc.col, 8);
    ck_assert_uint_eq(get(root, "b")->loc.line, 2);
    ck_assert_uint_eq(get(root, "b")->loc.col, 4);
    /* (A NEL, LS or PS ends a comment for libyaml: "# c<NEL> d" would give " d" a
     * line of its own.) Errors are placed the same way. */
    load_fails("a: \"x\xE2\x80\xA8y\"\nb: b: c\n");
    expect_error(2, 5, "mapping values are not allowed in this context");
    /* Old Mac line endings: libyaml and diag.c agree. */
    root = load_ok("a: 1\rb:\r  c: [x, y]\r");
    c = get(get(root, "b"), "c");
    ck_assert_uint_eq(c->loc.line, 3);
    ck_assert_uint_eq(c->items[1]->loc.col, 10);
    /* With both kinds of break, after a BOM. */
    root = load_ok("\xEF\xBB\xBF"
                   "a: 1\r\nb: \"\xE2\x80\xA8\"\rc: x\n");
    ck_assert_uint_eq(root->pairs[0].key->loc.col, 1);
    ck_assert_uint_eq(get(root, "c")->loc.line, 3);
    ck_assert_uint_eq(get(root, "c")->loc.col, 4);
}
END_TEST

/* ---- collections ---------------------------------------------------------- */

START_TEST(collections_flow_and_block)
{
    idl_node *root = load_ok("f: {a: 1, b: [x, y, {c: d}], e: []}\n"
                             "g:\n  - 1\n  - - 2\n    - 3\n"
                             "h: {}\n");
    idl_node *f = get(root, "f");
    ck_assert_int_eq(f->kind, IDL_NODE_MAP);
    ck_assert_int_eq(f->style, IDL_STYLE_FLOW);
    ck_assert_uint_eq(f->n, 3);
    idl_node *b = get(f, "b");
    ck_assert_int_eq(b->kind, IDL_NODE_SEQ);
    ck_assert_int_eq(b->style, IDL_STYLE_FLOW);
    ck_assert_uint_eq(b->n, 3);
    ck_assert_str_eq(b->items[1]->str, "y");
    ck_assert_str_eq(get(b->items[2], "c")->str, "d");
    idl_node *e = get(f, "e");
    ck_assert_uint_eq(e->n, 0);
    idl_node *g = get(root, "g");
    ck_assert_int_eq(g->style, IDL_STYLE_BLOCK);
    ck_assert_uint_eq(g->n, 2);
    ck_assert_int_eq(g->items[1]->kind, IDL_NODE_SEQ);
    ck_assert_int_eq(g->items[1]->items[1]->v.i, 3);
    idl_node *h = get(root, "h");
    ck_assert_int_eq(h->kind, IDL_NODE_MAP);
    ck_assert_uint_eq(h->n, 0);
    ck_assert_ptr_null(idl_map_get(h, "x"));
}
END_TEST

START_TEST(root_not_a_mapping_is_returned)
{
    idl_node *n = load_ok("- a\n- b\n");
    ck_assert_int_eq(n->kind, IDL_NODE_SEQ);
    ck_assert_uint_eq(n->n, 2);
    n = load_ok("hello\n");
    ck_assert_int_eq(n->kind, IDL_NODE_STR);
    n = load_ok("---\n");
    ck_assert_int_eq(n->kind, IDL_NODE_NULL);
    n = load_ok("--- 12\n...\n");
    ck_assert_int_eq(n->kind, IDL_NODE_INT);
}
END_TEST

START_TEST(map_get_and_kind_names)
{
    idl_node *root = load_ok("a: ~\nb: true\nc: 1\nd: 1.5\ne: s\nf: {}\ng: []\n");
    ck_assert_str_eq(idl_node_kind_name(get(root, "a")), "null");
    ck_assert_str_eq(idl_node_kind_name(get(root, "b")), "a boolean");
    ck_assert_str_eq(idl_node_kind_name(get(root, "c")), "an integer");
    ck_assert_str_eq(idl_node_kind_name(get(root, "d")), "a float");
    ck_assert_str_eq(idl_node_kind_name(get(root, "e")), "a string");
    ck_assert_str_eq(idl_node_kind_name(get(root, "f")), "a mapping");
    ck_assert_str_eq(idl_node_kind_name(get(root, "g")), "a sequence");
    ck_assert_ptr_null(idl_map_get(root, "zz"));
    ck_assert_ptr_null(idl_map_get(root, ""));
    ck_assert_ptr_null(idl_map_get(get(root, "g"), "a"));
    ck_assert_ptr_null(idl_map_get(NULL, "a"));
}
END_TEST

/* ---- anchors and aliases ------------------------------------------------------ */

START_TEST(alias_shares_node)
{
    idl_node *root = load_ok("a: &x {k: v}\nb: *x\nc: [*x, *x]\n");
    idl_node *a = get(root, "a");
    ck_assert_ptr_eq(get(root, "b"), a);
    ck_assert_ptr_eq(get(root, "c")->items[0], a);
    ck_assert_ptr_eq(get(root, "c")->items[1], a);
    ck_assert_uint_eq(a->loc.line, 1);
    ck_assert_uint_eq(a->loc.col, 4); /* the anchor starts the node */
    size_t level;
    ck_assert_uint_eq(walk(root, &level), 1 + 3 + 4 * 3 + 1); /* root, 3 keys, x (3 nodes) 4 times, [] */
    ck_assert_uint_eq(level, 3);
}
END_TEST

START_TEST(alias_scalars_and_keys)
{
    idl_node *root = load_ok("a: &n 12\nb: *n\n&k 7: seven\nc: *k\n*n : twelve\n");
    ck_assert_ptr_eq(get(root, "b"), get(root, "a"));
    ck_assert_int_eq(get(root, "b")->kind, IDL_NODE_INT);
    /* An anchored key used as a value resolves as a value. */
    ck_assert_int_eq(get(root, "c")->kind, IDL_NODE_INT);
    ck_assert_int_eq(get(root, "c")->v.i, 7);
    ck_assert_int_eq(get(root, "7")->kind, IDL_NODE_STR);
    /* An alias used as a key is the string, at the alias. */
    idl_node *k = root->pairs[4].key;
    ck_assert_int_eq(k->kind, IDL_NODE_STR);
    ck_assert_str_eq(k->str, "12");
    ck_assert_uint_eq(k->loc.line, 5);
    ck_assert_uint_eq(k->loc.col, 1);
    ck_assert_str_eq(get(root, "12")->str, "twelve");
    /* An alias to a collection cannot be a key. */
    load_fails("a: &m [1]\n? *m\n: x\n");
    expect_error(2, 3, "a mapping key must be a string, not a sequence");
    /* Duplicates through an alias key are found. */
    load_fails("a: &k b\nb: 1\n*k : 2\n");
    expect_error(3, 1, "duplicate key 'b'");
}
END_TEST

START_TEST(alias_redefined_anchor)
{
    idl_node *root = load_ok("a: &x 1\nb: &x 2\nc: *x\nd: &x [&x 3, *x]\ne: *x\n");
    ck_assert_int_eq(get(root, "c")->v.i, 2);
    idl_node *d = get(root, "d");
    ck_assert_int_eq(d->items[1]->v.i, 3);
    /* The inner &x is the more recent definition. */
    ck_assert_int_eq(get(root, "e")->kind, IDL_NODE_INT);
    ck_assert_int_eq(get(root, "e")->v.i, 3);
}
END_TEST

START_TEST(alias_undefined)
{
    load_fails("a: 1\nb: *nope\nc: [*also]\n");
    expect_error(2, 4, "undefined alias '*nope'");
    expect_error(3, 5, "undefined alias '*also'");
    ck_assert_uint_eq(diags.errors, 2);
    /* An alias before its anchor is undefined too. */
    load_fails("a: *x\nb: &x 1\n");
    expect_error(1, 4, "undefined alias '*x'");
}
END_TEST

START_TEST(alias_recursive)
{
    load_fails("a: &a [*a]\n");
    expect_error(1, 8, "recursive alias '*a'");
    load_fails("a: &m\n  b: [1, {c: *m}]\n");
    expect_error(2, 14, "recursive alias '*m'");
    load_fails("&r {k: *r}\n");
    expect_error(1, 8, "recursive alias '*r'");
}
END_TEST

static char *billion_laughs(int levels, int width)
{
    size_t cap = 4096 + (size_t)levels * (size_t)width * 16;
    char *s = malloc(cap);
    ck_assert_ptr_nonnull(s);
    size_t o = 0;
    o += (size_t)snprintf(s + o, cap - o, "l0: &l0 [");
    for (int i = 0; i < width; i++)
        o += (size_t)snprintf(s + o, cap - o, "%s\"lol\"", i ? ", " : "");
    o += (size_t)snprintf(s + o, cap - o, "]\n");
    for (int l = 1; l < levels; l++) {
        o += (size_t)snprintf(s + o, cap - o, "l%d: &l%d [", l, l);
        for (int i = 0; i < width; i++)
            o += (size_t)snprintf(s + o, cap - o, "%s*l%d", i ? ", " : "", l - 1);
        o += (size_t)snprintf(s + o, cap - o, "]\n");
    }
    return s;
}

START_TEST(alias_billion_laughs)
{
    char *src = billion_laughs(9, 10);
    load_fails(src);
    /* l4 adds 11111 nodes an alias: its 8th alias passes 100000. */
    expect_error(5, 45, "alias expansion exceeds 100000 nodes (an alias bomb?)");
    ck_assert_uint_eq(diags.errors, 1);
    free(src);
    /* Far more levels: still one error, at once. */
    src = billion_laughs(60, 60);
    load_fails(src);
    ck_assert_uint_eq(diags.errors, 1);
    free(src);
}
END_TEST

START_TEST(alias_expansion_limit)
{
    char *src = billion_laughs(4, 10); /* 10 + 10*11 + 10*111 + ... < 100000 */
    idl_node *root = load_ok(src);
    size_t level;
    ck_assert_uint_eq(walk(root, &level), 1 + 4 + 11 + 111 + 1111 + 11111);
    ck_assert_uint_eq(level, 5);
    /* The same document under a smaller limit. */
    idl_load_limits lim = {.max_alias_nodes = 1000};
    ck_assert_ptr_null(load_n(src, strlen(src), &lim));
    expect_error(3, 50, "alias expansion exceeds 1000 nodes (an alias bomb?)"); /* 110 + 9 * 111 */
    free(src);
}
END_TEST

START_TEST(alias_counts_toward_depth)
{
    idl_load_limits lim = {.max_depth = 4};
    const char *ok = "a: &a [[[1]]]\n";
    ck_assert_ptr_nonnull(load_n(ok, strlen(ok), &lim));
    const char *deep = "a: &a [[[1]]]\nb: [*a]\n";
    ck_assert_ptr_null(load_n(deep, strlen(deep), &lim));
    expect_error(2, 5, "alias '*a' makes the nesting deeper than 4 levels of mappings and sequences");
    /* Chained aliases cannot build a deep DAG under the default limit. */
    size_t cap = 100000, o = 0;
    char *src = malloc(cap);
    ck_assert_ptr_nonnull(src);
    o += (size_t)snprintf(src + o, cap - o, "a0: &a0 [[[[[[[[[[1]]]]]]]]]]\n");
    for (int i = 1; i < 20; i++)
        o += (size_t)snprintf(src + o, cap - o, "a%d: &a%d [[[[[[[[[[*a%d]]]]]]]]]]\n", i, i, i - 1);
    load_fails(src);
    expect_error(7, 19, "alias '*a5' makes the nesting deeper than 64 levels"); /* 1 + 10 + 60 */
    free(src);
}
END_TEST

/* ---- depth ---------------------------------------------------------------- */

START_TEST(depth_limit_exact)
{
    char src[300];
    memset(src, 0, sizeof src);
    for (int i = 0; i < 64; i++) {
        src[i] = '[';
        src[64 + i] = ']';
    }
    idl_node *root = load_ok(src);
    size_t level;
    walk(root, &level);
    ck_assert_uint_eq(level, 64);
    for (int i = 0; i < 65; i++) {
        src[i] = '[';
        src[65 + i] = ']';
    }
    src[130] = 0;
    load_fails(src);
    expect_error(1, 65, "nesting deeper than 64 levels of mappings and sequences");
    /* A smaller limit. */
    idl_load_limits lim = {.max_depth = 2};
    const char *two = "a: {b: 1}\n", *three = "a: {b: [1]}\n";
    ck_assert_ptr_nonnull(load_n(two, strlen(two), &lim));
    ck_assert_ptr_null(load_n(three, strlen(three), &lim));
    expect_error(1, 8, "nesting deeper than 2 levels");
}
END_TEST

START_TEST(depth_10000_flow_sequences)
{
    size_t n = 10000;
    char *src = malloc(2 * n + 2);
    ck_assert_ptr_nonnull(src);
    memset(src, '[', n);
    memset(src + n, ']', n);
    src[2 * n] = '\n';
    src[2 * n + 1] = 0;
    load_fails(src);
    ck_assert_uint_eq(diags.errors, 1);
    expect_error(1, 65, "nesting deeper than 64 levels");
    /* Unclosed, too. */
    src[n] = 0;
    load_fails(src);
    ck_assert_uint_eq(diags.errors, 1);
    expect_error(1, 65, "nesting deeper than 64 levels");
    free(src);
}
END_TEST

START_TEST(depth_10000_block_mappings)
{
    /* "a:\n a:\n  a:\n..." with one more space each level. */
    size_t n = 10000;
    size_t cap = n * (n + 1) / 2 + 4 * n + 16, o = 0;
    char *src = malloc(cap);
    ck_assert_ptr_nonnull(src);
    for (size_t i = 0; i < n; i++) {
        memset(src + o, ' ', i);
        o += i;
        memcpy(src + o, "a:\n", 3);
        o += 3;
    }
    memset(src + o, ' ', n);
    o += n;
    memcpy(src + o, "x\n", 3);
    load_n(src, o + 2, NULL);
    ck_assert_uint_eq(diags.errors, 1);
    expect_error(65, 65, "nesting deeper than 64 levels");
    free(src);
}
END_TEST

/* ---- size ----------------------------------------------------------------- */

START_TEST(big_mapping_100000_lines)
{
    size_t n = 100000, cap = n * 32, o = 0;
    char *src = malloc(cap);
    ck_assert_ptr_nonnull(src);
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(src + o, cap - o, "key%zu: %zu\n", i, i * 3);
    idl_node *root = load_n(src, o, NULL);
    ck_assert_ptr_nonnull(root);
    ck_assert_uint_eq(root->n, n);
    const idl_pair *last = &root->pairs[n - 1];
    ck_assert_str_eq(last->key->str, "key99999");
    ck_assert_uint_eq(last->key->loc.line, 100000);
    ck_assert_int_eq(last->value->v.i, 99999 * 3);
    ck_assert_int_eq(get(root, "key12345")->v.i, 12345 * 3);
    /* One duplicate among them is found. */
    o += (size_t)snprintf(src + o, cap - o, "key4242: dup\n");
    ck_assert_ptr_null(load_n(src, o, NULL));
    ck_assert_uint_eq(diags.errors, 1);
    expect_error(100001, 1, "duplicate key 'key4242'");
    expect_note(4243, 1, "'key4242' first defined here");
    free(src);
}
END_TEST

START_TEST(huge_single_lines)
{
    /* A 4 MB plain scalar, and a flow sequence of 200,000 items, each on one line. */
    size_t n = 4u << 20;
    char *src = malloc(n + 16);
    ck_assert_ptr_nonnull(src);
    memcpy(src, "k: ", 3);
    memset(src + 3, 'x', n);
    memcpy(src + 3 + n, "\n", 2);
    idl_node *root = load_ok(src);
    ck_assert_uint_eq(get(root, "k")->len, n);
    free(src);

    size_t items = 200000, cap = items * 3 + 16, o = 0;
    src = malloc(cap);
    ck_assert_ptr_nonnull(src);
    o += (size_t)snprintf(src, cap, "k: [");
    for (size_t i = 0; i < items; i++) {
        src[o++] = (char)('0' + i % 10);
        src[o++] = ',';
    }
    memcpy(src + o, "]\n", 3);
    root = load_ok(src);
    ck_assert_uint_eq(get(root, "k")->n, items);
    free(src);
}
END_TEST

/* ---- bytes ------------------------------------------------------------------ */

START_TEST(invalid_utf8_located)
{
    load_fails("a: 1\nb\xC3\xA9\xFF: 2\n");
    expect_error(2, 3, "invalid leading UTF-8 octet (byte 0xFF)");
    ck_assert_uint_eq(diags.errors, 1);
    load_fails("a: 1\nbb: \xC3\x28\n");
    expect_error(2, 6, "invalid trailing UTF-8 octet (byte 0x28)"); /* at the bad byte */
    load_fails("a: \xE2\x82");
    expect_error(1, 4, "incomplete UTF-8 octet sequence");
    load_fails("a: \xED\xA0\x80\n"); /* a surrogate */
    expect_error(1, 4, "invalid Unicode character (U+D800)");
    load_fails("\xEF\xBB\xBF"
               "a: \xFF\n"); /* a BOM is not a column */
    expect_error(1, 4, "invalid leading UTF-8 octet (byte 0xFF)");
}
END_TEST

START_TEST(control_characters)
{
    load_fails("a: b\x07\n");
    expect_error(1, 5, "control characters are not allowed (U+0007)");
    load_fails("a: 1\n\x1B[31m: 2\n");
    expect_error(2, 1, "control characters are not allowed (U+001B)");
}
END_TEST

START_TEST(nul_byte)
{
    const char src[] = "a: 1\nb\0: 2\n";
    ck_assert_ptr_null(load_n(src, sizeof src - 1, NULL));
    expect_error(2, 2, "NUL character in the file");
    ck_assert_uint_eq(diags.errors, 1);
    /* At the very end, after a complete document: not silently dropped. */
    const char end[] = "a: 1\n\0";
    ck_assert_ptr_null(load_n(end, sizeof end - 1, NULL));
    expect_error(2, 1, "NUL character in the file");
}
END_TEST

START_TEST(utf16_rejected)
{
    const char src[] = "\xFF\xFE"
                       "a\0:\0 \0"
                       "1\0";
    ck_assert_ptr_null(load_n(src, sizeof src - 1, NULL));
    expect_error(1, 1, "UTF-16");
}
END_TEST

START_TEST(binary_garbage)
{
    rng_state = 0x9E3779B97F4A7C15u;
    for (int round = 0; round < 200; round++) {
        size_t len = rng() % 4096;
        char *buf = malloc(len + 1);
        ck_assert_ptr_nonnull(buf);
        for (size_t i = 0; i < len; i++) {
            buf[i] = (char)rng();
            if (round % 2 && !buf[i])
                buf[i] = '\n'; /* half of them without NUL, to reach libyaml */
        }
        idl_node *root = load_n(buf, len, NULL);
        if (root) {
            size_t level;
            walk(root, &level);
            ck_assert_uint_le(level, 64);
        }
        free(buf);
        mcp_arena_reset(&arena);
    }
}
END_TEST

START_TEST(token_soup)
{
    static const char *const pieces[] = {
        "[",     "]",     "{",     "}",    ", ",     ",",        ": ",     ":",   "- ",          "? ",
        "&a ",   "&b ",   "*a",    "*b",   "!!str ", "!!int ",   "!!map ", "!x ", "'q'",         "\"d\\n\"",
        "|\n",   ">-\n",  "\n",    "  ",   "    ",   "key",      "1",      "1.5", "true",        "~",
        "# c\n", "---\n", "...\n", "<<: ", "\t",     "\xC3\xA9", "\"",     "'",   "%YAML 1.2\n", "%TAG ! tag:x,2000:\n",
        "\r\n",  "*nope",
    };
    size_t npieces = sizeof pieces / sizeof pieces[0];
    rng_state = 12345;
    char buf[8192];
    for (int round = 0; round < 1000; round++) {
        size_t o = 0, count = rng() % 300;
        for (size_t i = 0; i < count; i++) {
            const char *p = pieces[rng() % npieces];
            size_t l = strlen(p);
            if (o + l >= sizeof buf)
                break;
            memcpy(buf + o, p, l);
            o += l;
        }
        idl_node *root = load_n(buf, o, NULL);
        if (root) {
            size_t level;
            walk(root, &level);
            ck_assert_uint_le(level, 64);
        }
        mcp_arena_reset(&arena);
    }
}
END_TEST

/* ---- documents -------------------------------------------------------------- */

START_TEST(empty_file)
{
    ck_assert_ptr_null(load_n("", 0, NULL));
    expect_error(1, 1, "empty file: expected a mapping with 'mcpidl: 1' at the top");
    ck_assert_uint_eq(diags.errors, 1);
    ck_assert_ptr_null(load_n(NULL, 0, NULL));
    load_fails("\n\n   \n  \n");
    expect_error(1, 1, "empty file");
    load_fails("\xEF\xBB\xBF");
    expect_error(1, 1, "empty file");
}
END_TEST

START_TEST(comments_only)
{
    load_fails("# just a comment\n\n  # another\n");
    expect_error(1, 1, "empty file: expected a mapping with 'mcpidl: 1' at the top");
    ck_assert_uint_eq(diags.errors, 1);
}
END_TEST

START_TEST(two_documents)
{
    load_fails("a: 1\n---\nb: 2\n");
    expect_error(2, 1, "only one YAML document per file is allowed");
    ck_assert_uint_eq(diags.errors, 1);
    load_fails("--- a\n...\n--- b\n");
    expect_error(3, 1, "only one YAML document per file is allowed");
    /* One explicit document is fine, with a closing marker and comments after it. */
    idl_node *root = load_ok("%YAML 1.2\n---\na: 1\n...\n# end\n");
    ck_assert_int_eq(get(root, "a")->v.i, 1);
}
END_TEST

/* ---- libyaml's errors ------------------------------------------------------- */

static const char *const HINT = "; quote type expressions that contain '[', ']' or ',' inside {...} or [...], "
                                "e.g. {type: \"list[str]\"}";

START_TEST(flow_bracket_hint)
{
    load_fails("params: {x: {type: list[str]}}\n");
    const idl_diag *g = find_diag(IDL_ERROR, 1, 24, "did not find expected");
    ck_assert_ptr_nonnull(g);
    char want[400];
    snprintf(want, sizeof want, "while parsing a flow mapping: did not find expected ',' or '}'%s", HINT);
    ck_assert_str_eq(g->message, want);
    ck_assert_uint_eq(diags.errors, 1);
    /* In a flow sequence too. */
    load_fails("types: [int, dict[str, int]]\n");
    g = find_diag(IDL_ERROR, 1, 18, "while parsing a flow sequence");
    ck_assert_ptr_nonnull(g);
    ck_assert_ptr_nonnull(strstr(g->message, HINT));
}
END_TEST

START_TEST(flow_error_without_bracket_no_hint)
{
    load_fails("{a: 'x' y}\n");
    const idl_diag *g = find_diag(IDL_ERROR, 1, 9, "did not find expected ',' or '}'");
    ck_assert_ptr_nonnull(g);
    ck_assert_str_eq(g->message, "while parsing a flow mapping: did not find expected ',' or '}'");
    /* Block style: no hint either. */
    load_fails("a: b: c\n");
    g = find_diag(IDL_ERROR, 1, 5, "mapping values are not allowed in this context");
    ck_assert_ptr_nonnull(g);
    ck_assert_ptr_null(strstr(g->message, "quote type"));
}
END_TEST

START_TEST(syntax_error_context_note)
{
    load_fails("a: \"abc\n\nb: 1\n");
    expect_error(4, 1, "while scanning a quoted scalar: found unexpected end of stream");
    expect_note(1, 4, "the quoted scalar starts here");
    load_fails("a: [1, 2\nb: 3\n");
    expect_note(1, 4, "the flow sequence starts here");
    load_fails("a:\n\tb: 1\n");
    expect_error(2, 1, "found character that cannot start any token; indent with spaces, not tabs");
    load_fails("a: 1\n\t\nb: 2\n"); /* libyaml rejects even a blank line that starts with a tab */
    expect_error(2, 1, "found a tab character that violates indentation");
}
END_TEST

/* ---- tags ------------------------------------------------------------------- */

START_TEST(tags_core)
{
    idl_node *root = load_ok(
        "s: !!str 12\ni: !!int \"0x10\"\nf: !!float 1\ng: !!float '.inf'\nb: !!bool 'TRUE'\n"
        "n: !!null ''\nm: !!map {a: 1}\nq: !!seq [1]\n!!str k: v\nv: !<tag:yaml.org,2002:int> '5'\n");
    ck_assert_int_eq(get(root, "s")->kind, IDL_NODE_STR);
    ck_assert_int_eq(get(root, "i")->kind, IDL_NODE_INT);
    ck_assert_int_eq(get(root, "i")->v.i, 16);
    ck_assert_int_eq(get(root, "f")->kind, IDL_NODE_FLOAT);
    ck_assert_double_eq(get(root, "f")->v.f, 1.0);
    ck_assert(isinf(get(root, "g")->v.f));
    ck_assert_int_eq(get(root, "b")->kind, IDL_NODE_BOOL);
    ck_assert(get(root, "b")->v.b);
    ck_assert_int_eq(get(root, "n")->kind, IDL_NODE_NULL);
    ck_assert_int_eq(get(root, "m")->kind, IDL_NODE_MAP);
    ck_assert_int_eq(get(root, "q")->kind, IDL_NODE_SEQ);
    ck_assert_str_eq(get(root, "k")->str, "v");
    ck_assert_int_eq(get(root, "v")->v.i, 5);
}
END_TEST

START_TEST(tags_rejected)
{
    load_fails("a: !foo x\n");
    expect_error(1, 4, "tag '!foo' is not supported");
    load_fails("a: ! x\n");
    expect_error(1, 4, "tag '!' is not supported");
    load_fails("a: !!binary aGk=\n");
    expect_error(1, 4, "tag '!!binary' is not supported");
    load_fails("a: !!int abc\n");
    expect_error(1, 4, "'abc' is not a valid !!int value");
    load_fails("a: !!float 0x10\n");
    expect_error(1, 4, "'0x10' is not a valid !!float value");
    load_fails("a: !!bool yes\n");
    expect_error(1, 4, "'yes' is not a valid !!bool value");
    load_fails("a: !!map x\n");
    expect_error(1, 4, "tag '!!map' cannot be used on a scalar");
    load_fails("a: !!str {b: 1}\n");
    expect_error(1, 4, "tag '!!str' cannot be used on a mapping");
    load_fails("a: !!map [1]\n");
    expect_error(1, 4, "tag '!!map' cannot be used on a sequence");
    load_fails("!!int 1: x\n");
    expect_error(1, 1, "tag '!!int' cannot be used on a mapping key: keys are always strings");
    load_fails("%TAG !e! tag:example.com,2000:\n---\na: !e!thing x\n");
    expect_error(3, 4, "tag 'tag:example.com,2000:thing' is not supported");
}
END_TEST

START_TEST(errors_keep_going)
{
    /* Errors that do not stop the loader are all reported. */
    load_fails("a: 1\na: 2\nb: *nope\nc:\n  <<: {x: 1}\n  d: !foo 1\n  d: 3\n");
    ck_assert_uint_eq(diags.errors, 5);
    expect_error(2, 1, "duplicate key 'a'");
    expect_error(3, 4, "undefined alias '*nope'");
    expect_error(5, 3, "merge keys");
    expect_error(6, 6, "tag '!foo' is not supported");
    expect_error(7, 3, "duplicate key 'd'");
}
END_TEST

static Suite *yaml_load_suite(void)
{
    Suite *s = suite_create("yaml_load");
    TCase *t = tcase_create("scalars");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, scalar_null_forms);
    tcase_add_test(t, scalar_bool_any_case);
    tcase_add_test(t, scalar_int_decimal);
    tcase_add_test(t, scalar_int_octal_hex);
    tcase_add_test(t, scalar_int_limits);
    tcase_add_test(t, scalar_float_decimal);
    tcase_add_test(t, scalar_float_special);
    tcase_add_test(t, scalar_not_numbers);
    tcase_add_test(t, scalar_float_out_of_range);
    tcase_add_test(t, scalar_quoted_always_strings);
    tcase_add_test(t, scalar_block_styles);
    tcase_add_test(t, scalar_escaped_nul_kept);
    tcase_add_test(t, scalar_plain_multiline);
    suite_add_tcase(s, t);

    t = tcase_create("keys");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, keys_verbatim);
    tcase_add_test(t, keys_empty_and_styles);
    tcase_add_test(t, keys_collection_rejected);
    tcase_add_test(t, keys_duplicate);
    tcase_add_test(t, keys_duplicate_same_bytes_any_style);
    tcase_add_test(t, keys_duplicate_many);
    tcase_add_test(t, keys_duplicate_shown_safely);
    tcase_add_test(t, keys_merge_rejected);
    suite_add_tcase(s, t);

    t = tcase_create("structure");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, locations_nested);
    tcase_add_test(t, locations_multibyte);
    tcase_add_test(t, locations_tab_crlf_bom);
    tcase_add_test(t, locations_unicode_line_breaks);
    tcase_add_test(t, collections_flow_and_block);
    tcase_add_test(t, root_not_a_mapping_is_returned);
    tcase_add_test(t, map_get_and_kind_names);
    suite_add_tcase(s, t);

    t = tcase_create("aliases");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, alias_shares_node);
    tcase_add_test(t, alias_scalars_and_keys);
    tcase_add_test(t, alias_redefined_anchor);
    tcase_add_test(t, alias_undefined);
    tcase_add_test(t, alias_recursive);
    tcase_add_test(t, alias_billion_laughs);
    tcase_add_test(t, alias_expansion_limit);
    tcase_add_test(t, alias_counts_toward_depth);
    suite_add_tcase(s, t);

    t = tcase_create("limits");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, depth_limit_exact);
    tcase_add_test(t, depth_10000_flow_sequences);
    tcase_add_test(t, depth_10000_block_mappings);
    tcase_add_test(t, big_mapping_100000_lines);
    tcase_add_test(t, huge_single_lines);
    suite_add_tcase(s, t);

    t = tcase_create("bytes");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, invalid_utf8_located);
    tcase_add_test(t, control_characters);
    tcase_add_test(t, nul_byte);
    tcase_add_test(t, utf16_rejected);
    tcase_add_test(t, binary_garbage);
    tcase_add_test(t, token_soup);
    suite_add_tcase(s, t);

    t = tcase_create("documents");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, empty_file);
    tcase_add_test(t, comments_only);
    tcase_add_test(t, two_documents);
    tcase_add_test(t, flow_bracket_hint);
    tcase_add_test(t, flow_error_without_bracket_no_hint);
    tcase_add_test(t, syntax_error_context_note);
    tcase_add_test(t, tags_core);
    tcase_add_test(t, tags_rejected);
    tcase_add_test(t, errors_keep_going);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    int failed = check_run(yaml_load_suite(), true);
    return failed != 0;
}
