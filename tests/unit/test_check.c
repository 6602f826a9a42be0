/* test_check.c: the checker (IDL -> IR) and the JSON Schema emitter. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "emit_schema.h"
#include "ir.h"
#include "check_run.h"

typedef struct result {
    mcp_arena arena;
    idl_diags diags;
    ir_server *srv;
    char *text; /* all diagnostics, "line:col: severity: message\n" each */
} result;

static result *compile_opts(const char *src, bool werror)
{
    result *r = calloc(1, sizeof *r);
    mcp_arena_init(&r->arena);
    idl_diags_init(&r->diags, &r->arena, "t.mcp.yaml", src, strlen(src));
    idl_options o = {.warnings_as_errors = werror};
    r->srv = idl_compile(&r->arena, &r->diags, src, strlen(src), &o);
    mcp_buf b;
    mcp_buf_init(&b);
    for (size_t i = 0; i < r->diags.len; i++) {
        const idl_diag *g = &r->diags.items[i];
        mcp_buf_printf(&b, "%u:%u: %s: %s\n", g->loc.line, g->loc.col,
                       g->severity == IDL_ERROR     ? "error"
                       : g->severity == IDL_WARNING ? "warning"
                                                    : "note",
                       g->message);
    }
    mcp_buf_putc(&b, 0);
    r->text = mcp_buf_take(&b, NULL);
    return r;
}

static result *compile(const char *src) { return compile_opts(src, false); }

static void done(result *r)
{
    free(r->text);
    mcp_arena_free(&r->arena);
    free(r);
}

/* The first tool's outputSchema (out) or inputSchema, compact. */
static char *schema(result *r, bool out, size_t tool)
{
    ck_assert_msg(r->srv != NULL, "compile failed:\n%s", r->text);
    schema_emitter *e = schema_emitter_new(&r->arena, r->srv);
    mcp_json *v = out ? schema_output(e, &r->srv->tools[tool]) : schema_input(e, &r->srv->tools[tool]);
    if (!v)
        return strdup("null");
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_json_write(&b, v, -1);
    return mcp_buf_take(&b, NULL);
}

#define HEAD "mcpidl: 1\nserver: {name: s, version: \"1\"}\n"

#define EXPECT_DIAG(src, needle) \
    do { \
        result *r_ = compile(src); \
        ck_assert_msg(strstr(r_->text, needle) != NULL, "expected %s in:\n%s", needle, r_->text); \
        done(r_); \
    } while (0)

#define EXPECT_OUT(src, want) \
    do { \
        result *r_ = compile(src); \
        char *s_ = schema(r_, true, 0); \
        ck_assert_msg(strcmp(s_, want) == 0, "schema\n  %s\nexpected\n  %s\n%s", s_, want, r_->text); \
        free(s_); \
        done(r_); \
    } while (0)

#define EXPECT_IN(src, want) \
    do { \
        result *r_ = compile(src); \
        char *s_ = schema(r_, false, 0); \
        ck_assert_msg(strcmp(s_, want) == 0, "schema\n  %s\nexpected\n  %s\n%s", s_, want, r_->text); \
        free(s_); \
        done(r_); \
    } while (0)

START_TEST(titles)
{
    mcp_arena a;
    mcp_arena_init(&a);
    ck_assert_str_eq(idl_title_case(&a, "snake_case_name"), "Snake Case Name");
    ck_assert_str_eq(idl_title_case(&a, "cityName"), "Cityname");
    ck_assert_str_eq(idl_title_case(&a, "HTTPServer"), "Httpserver");
    ck_assert_str_eq(idl_title_case(&a, "x1y2"), "X1Y2");
    ck_assert_str_eq(idl_title_case(&a, "a__b"), "A  B");
    ck_assert_str_eq(idl_title_case(&a, "class_"), "Class");
    ck_assert_str_eq(idl_title_case(&a, "_x"), "X");
    ck_assert_str_eq(idl_title_case(&a, "\xc3\xa9t\xc3\xa9_A"), "\xc3\xa9t\xc3\xa9 A");
    /* strip() takes what str.isspace() calls white space, ASCII separators included */
    ck_assert_str_eq(idl_title_case(&a, "\x1fx"), "X");
    ck_assert_str_eq(idl_title_case(&a, "x_\x1c\x1d\x1e\x0b"), "X");
    ck_assert_str_eq(idl_title_case(&a, "\xc2\xa0"
                                        "a\xc2\xa0"
                                        "b\xe3\x80\x80"),
                     "A\xc2\xa0"
                     "B");
    ck_assert_str_eq(idl_title_case(&a, "\xc2\x85x\xe2\x80\xa8"), "X");
    ck_assert_str_eq(idl_title_case(&a, "\xe2\x80\x8bx"), "\xe2\x80\x8bx"); /* U+200B: no space, cased (ASCII rules) */
    mcp_arena_free(&a);
}
END_TEST

START_TEST(c_idents)
{
    mcp_arena a;
    mcp_arena_init(&a);
    ck_assert_str_eq(idl_c_ident(&a, "city"), "city");
    ck_assert_str_eq(idl_c_ident(&a, "int"), "int_");
    ck_assert_str_eq(idl_c_ident(&a, "__x"), "f___x");
    ck_assert_str_eq(idl_c_ident(&a, "_X"), "f__X");
    ck_assert_str_eq(idl_c_ident(&a, "1st"), "f_1st");
    ck_assert_str_eq(idl_c_ident(&a, "a-b.c"), "a_b_c");
    ck_assert_str_eq(idl_c_ident(&a, "caf\xc3\xa9"), "caf_");
    ck_assert_str_eq(idl_c_ident(&a, ""), "f_");
    ck_assert(idl_is_c_keyword("while"));
    ck_assert(!idl_is_c_keyword("whale"));
    mcp_arena_free(&a);
}
END_TEST

START_TEST(did_you_mean)
{
    const char *c[] = {"description", "params", "returns"};
    ck_assert_str_eq(idl_did_you_mean("descripton", c, 3), "description");
    ck_assert_str_eq(idl_did_you_mean("return", c, 3), "returns");
    ck_assert_ptr_null(idl_did_you_mean("zzzzzz", c, 3));
}
END_TEST

START_TEST(trim)
{
    mcp_arena a;
    mcp_arena_init(&a);
    const char *s = "\n  \nfirst\n  second  \n\n";
    ck_assert_str_eq(idl_trim_description(&a, s, strlen(s)), "first\n  second");
    mcp_arena_free(&a);
}
END_TEST

START_TEST(wrapped_int)
{
    EXPECT_OUT(HEAD "tools:\n  t:\n    description: d\n    returns: int\n",
               "{\"properties\":{\"result\":{\"title\":\"Result\",\"type\":\"integer\"}},\"required\":[\"result\"],"
               "\"title\":\"tOutput\",\"type\":\"object\"}");
}
END_TEST

START_TEST(enum_return_is_wrapped)
{
    EXPECT_OUT(HEAD "types:\n  C: {kind: enum, values: [a]}\ntools:\n  t:\n    description: d\n    returns: C\n",
               "{\"$defs\":{\"C\":{\"enum\":[\"a\"],\"title\":\"C\",\"type\":\"string\"}},\"properties\":{\"result\":"
               "{\"$ref\":\"#/$defs/C\"}},\"required\":[\"result\"],\"title\":\"tOutput\",\"type\":\"object\"}");
}
END_TEST

START_TEST(any_schemas)
{
    EXPECT_OUT(HEAD "tools:\n  t:\n    description: d\n    returns: any\n",
               "{\"properties\":{\"result\":{\"title\":\"Result\"}},\"required\":[\"result\"],\"title\":\"tOutput\","
               "\"type\":\"object\"}");
    EXPECT_OUT(HEAD "tools:\n  t:\n    description: d\n    returns: dict[str, any]\n",
               "{\"additionalProperties\":true,\"title\":\"tDictOutput\",\"type\":\"object\"}");
}
END_TEST

START_TEST(dict_int_wrapped)
{
    EXPECT_OUT(HEAD "tools:\n  t:\n    description: d\n    returns: dict[int, str]\n",
               "{\"properties\":{\"result\":{\"additionalProperties\":{\"type\":\"string\"},\"title\":\"Result\","
               "\"type\":\"object\"}},\"required\":[\"result\"],\"title\":\"tOutput\",\"type\":\"object\"}");
}
END_TEST

START_TEST(union_normalised)
{
    /* flattened, duplicates removed, None last, identical schemas merged */
    EXPECT_OUT(
        HEAD "tools:\n  t:\n    description: d\n    returns: None | (int | str) | int | list[int] | tuple[int, ...]\n",
        "{\"properties\":{\"result\":{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"string\"},{\"items\":{\"type\":"
        "\"integer\"},\"type\":\"array\"},{\"type\":\"null\"}],\"title\":\"Result\"}},\"required\":[\"result\"],"
        "\"title\":\"tOutput\",\"type\":\"object\"}");
    EXPECT_OUT(HEAD "tools:\n  t:\n    description: d\n    returns: Optional[None]\n",
               "{\"properties\":{\"result\":{\"title\":\"Result\",\"type\":\"null\"}},\"required\":[\"result\"],"
               "\"title\":\"tOutput\",\"type\":\"object\"}");
}
END_TEST

START_TEST(literals)
{
    EXPECT_OUT(HEAD "tools:\n  t:\n    description: d\n    returns: Literal['a', 1, 'a']\n",
               "{\"properties\":{\"result\":{\"enum\":[\"a\",1],\"title\":\"Result\"}},\"required\":[\"result\"],"
               "\"title\":\"tOutput\",\"type\":\"object\"}");
    EXPECT_OUT(HEAD "tools:\n  t:\n    description: d\n    returns: Literal[True]\n",
               "{\"properties\":{\"result\":{\"const\":true,\"title\":\"Result\",\"type\":\"boolean\"}},\"required\":"
               "[\"result\"],\"title\":\"tOutput\",\"type\":\"object\"}");
}
END_TEST

START_TEST(ref_siblings)
{
    /* a description equal to the definition's is dropped; another one stays */
    EXPECT_IN(
        HEAD "types:\n  A:\n    description: An A.\n    fields: {x: int}\ntools:\n  t:\n    description: d\n"
             "    params:\n      a: {type: A, description: An A.}\n      b: {type: A, description: Other.}\n"
             "      c: {type: A, title: Cee}\n    returns: int\n",
        "{\"$defs\":{\"A\":{\"description\":\"An A.\",\"properties\":{\"x\":{\"title\":\"X\",\"type\":\"integer\"}},"
        "\"required\":[\"x\"],\"title\":\"A\",\"type\":\"object\"}},\"properties\":{\"a\":{\"$ref\":\"#/$defs/A\"},"
        "\"b\":{\"$ref\":\"#/$defs/A\",\"description\":\"Other.\"},\"c\":{\"$ref\":\"#/$defs/A\",\"title\":\"Cee\"}},"
        "\"required\":[\"a\",\"b\",\"c\"],\"title\":\"tArguments\",\"type\":\"object\"}");
}
END_TEST

/* The Color of tool i's input: whether its property c keeps the title "Top". */
static bool top_title_kept(result *r, size_t tool)
{
    char *s = schema(r, false, tool);
    bool kept = strstr(s, "\"Color\":{\"properties\":{\"c\":{\"$ref\":\"#/$defs/Top\",\"title\":\"Top\"}}") != NULL;
    ck_assert_msg(kept || strstr(s, "\"Color\":{\"properties\":{\"c\":{\"$ref\":\"#/$defs/Top\"}}"), "%s", s);
    free(s);
    return kept;
}

START_TEST(ref_siblings_follow_generation_order)
{
    /* An equal title stays beside a reference to a definition pydantic generates
     * later: Top is complete (defined last, it reaches nothing later) and shared;
     * Color and Top are generated first, Color before Top. Generating v's output
     * (Color built afresh, Top met once) inlines the shared reference to Top that
     * v's arguments hold, so there Top comes first; w builds its own again. */
    result *r = compile(HEAD "types:\n  Kind: {fields: {k: Color}}\n  Color: {fields: {c: {type: Top, title: Top}}}\n"
                             "  Result: {fields: {r: Top}}\n"
                             "  Top: {fields: {kind: \"Optional[Kind]\", colors: \"list[Color]\"}}\ntools:\n"
                             "  u: {description: d, params: {data: Kind | Result}, returns: int}\n"
                             "  v: {description: d, params: {data: Kind | Result}, returns: Color}\n"
                             "  w: {description: d, params: {data: Kind | Result}, returns: int}\n");
    ck_assert(top_title_kept(r, 0));
    ck_assert(!top_title_kept(r, 1));
    ck_assert(top_title_kept(r, 2));
    done(r);
}
END_TEST

START_TEST(property_named_properties_sorted)
{
    EXPECT_IN(HEAD "tools:\n  t:\n    description: d\n    params:\n      properties: {type: int, default: 0}\n"
                   "    returns: int\n",
              "{\"properties\":{\"properties\":{\"default\":0,\"title\":\"Properties\",\"type\":\"integer\"}},"
              "\"title\":\"tArguments\",\"type\":\"object\"}");
}
END_TEST

START_TEST(default_key_order)
{
    /* a default keeps its own key order; objects nested in it are sorted */
    EXPECT_IN(HEAD "tools:\n  t:\n    description: d\n    params:\n      m:\n        type: dict[str, any]\n"
                   "        default: {z: 1, a: {y: 1, b: 2}}\n    returns: int\n",
              "{\"properties\":{\"m\":{\"additionalProperties\":true,\"default\":{\"z\":1,\"a\":{\"b\":2,\"y\":1}},"
              "\"title\":\"M\",\"type\":\"object\"}},\"title\":\"tArguments\",\"type\":\"object\"}");
}
END_TEST

START_TEST(dialect_and_forbid)
{
    EXPECT_IN("mcpidl: 1\nserver: {name: s, version: \"1\", schema_dialect: "
              "\"https://json-schema.org/draft/2020-12/schema\"}\n"
              "tools:\n  t:\n    description: d\n    extra: forbid\n    params: {x: int}\n    returns: int\n",
              "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"additionalProperties\":false,"
              "\"properties\":{\"x\":{\"title\":\"X\",\"type\":\"integer\"}},\"required\":[\"x\"],\"title\":"
              "\"tArguments\",\"type\":\"object\"}");
}
END_TEST

START_TEST(optional_constraints_inside)
{
    EXPECT_IN(HEAD "tools:\n  t:\n    description: d\n    params:\n      n: {type: \"Optional[int]\", minimum: 0}\n"
                   "    returns: int\n",
              "{\"properties\":{\"n\":{\"anyOf\":[{\"minimum\":0,\"type\":\"integer\"},{\"type\":\"null\"}],\"title\":"
              "\"N\"}},\"required\":[\"n\"],\"title\":\"tArguments\",\"type\":\"object\"}");
}
END_TEST

START_TEST(cycle_through_other_type)
{
    /* A -> B -> A: the root is on a cycle, so it is a $ref with type object */
    EXPECT_OUT(
        HEAD "types:\n  A: {fields: {b: \"Optional[B]\"}}\n  B: {fields: {a: \"list[A]\"}}\ntools:\n  t:\n"
             "    description: d\n    returns: A\n",
        "{\"$defs\":{\"A\":{\"properties\":{\"b\":{\"anyOf\":[{\"$ref\":\"#/$defs/B\"},{\"type\":\"null\"}]}},"
        "\"required\":[\"b\"],\"title\":\"A\",\"type\":\"object\"},\"B\":{\"properties\":{\"a\":{\"items\":{\"$ref\":"
        "\"#/$defs/"
        "A\"},\"title\":\"A\",\"type\":\"array\"}},\"required\":[\"a\"],\"title\":\"B\",\"type\":\"object\"}},"
        "\"$ref\":\"#/$defs/A\",\"type\":\"object\"}");
}
END_TEST

/* ------------------------------------------------------------- diagnostics */

START_TEST(unknown_type_did_you_mean)
{
    EXPECT_DIAG(HEAD "types:\n  WeatherData: {fields: {t: float}}\ntools:\n  t:\n    description: d\n"
                     "    returns: list[WeatherDta]\n",
                "8:19: error: unknown type 'WeatherDta'; did you mean 'WeatherData'?");
}
END_TEST

START_TEST(unknown_key_did_you_mean)
{
    EXPECT_DIAG(HEAD "tools:\n  t:\n    descripton: d\n    returns: int\n",
                "5:5: error: unknown key 'descripton' in tool 't'; did you mean 'description'?");
}
END_TEST

START_TEST(missing_description_warns)
{
    result *r = compile(HEAD "tools:\n  t:\n    returns: int\n");
    ck_assert_ptr_nonnull(r->srv);
    ck_assert_msg(strstr(r->text, "4:3: warning: tool 't' has no description") != NULL, "%s", r->text);
    done(r);
    r = compile_opts(HEAD "tools:\n  t:\n    returns: int\n", true);
    ck_assert_ptr_null(r->srv);
    ck_assert_msg(strstr(r->text, "4:3: error: tool 't' has no description") != NULL, "%s", r->text);
    done(r);
}
END_TEST

START_TEST(bad_defaults)
{
    EXPECT_DIAG(HEAD
                "tools:\n  t:\n    description: d\n    params:\n      n: {type: int, default: x}\n    returns: int\n",
                "error: default 'x' of 'n' in tool 't' is not an integer");
    EXPECT_DIAG(HEAD "types:\n  P: {fields: {a: int}}\ntools:\n  t:\n    description: d\n    params:\n"
                     "      p: {type: P, default: {a: 'no'}}\n    returns: int\n",
                "error: default of 'p' in tool 't' does not fit its type: at p.a, 'no' is not an integer");
    EXPECT_DIAG(HEAD "tools:\n  t:\n    description: d\n    params:\n      n: {type: int, maximum: 5, default: 6}\n"
                     "    returns: int\n",
                "is greater than the maximum");
}
END_TEST

START_TEST(constraint_on_wrong_type)
{
    EXPECT_DIAG(HEAD
                "tools:\n  t:\n    description: d\n    params:\n      n: {type: int, minLength: 1}\n    returns: int\n",
                "error: 'minLength' does not apply to 'int'");
    EXPECT_DIAG(HEAD "tools:\n  t:\n    description: d\n    params:\n      n: {type: int | str, minimum: 1}\n"
                     "    returns: int\n",
                "error: 'minimum' cannot constrain a union");
}
END_TEST

START_TEST(contradictions)
{
    EXPECT_DIAG(HEAD "tools:\n  t:\n    description: d\n    params:\n      n: {type: int, minimum: 5, maximum: 1}\n"
                     "    returns: int\n",
                "minimum is greater than maximum");
    EXPECT_DIAG(HEAD "tools:\n  t:\n    description: d\n    params:\n      n: {type: str, minLength: 5, maxLength: 1}\n"
                     "    returns: int\n",
                "minLength is greater than maxLength");
}
END_TEST

START_TEST(pattern_subset)
{
    EXPECT_DIAG(
        HEAD "tools:\n  t:\n    description: d\n    params:\n      n: {type: str, pattern: 'a*+'}\n    returns: int\n",
        "possessive quantifiers");
    EXPECT_DIAG(
        HEAD
        "tools:\n  t:\n    description: d\n    params:\n      n: {type: str, pattern: '(?i)a'}\n    returns: int\n",
        "inline flags");
    EXPECT_DIAG(
        HEAD "tools:\n  t:\n    description: d\n    params:\n      n: {type: str, pattern: '(a'}\n    returns: int\n",
        "invalid pattern");
}
END_TEST

START_TEST(record_and_model_rules)
{
    EXPECT_DIAG(HEAD "types:\n  M: {fields: {a: {type: int, required: false}}}\n",
                "'required: false' is only allowed in records");
    EXPECT_DIAG(HEAD "types:\n  R: {kind: record, fields: {a: {type: int, default: 1}}}\n", "records take no defaults");
}
END_TEST

START_TEST(enum_rules)
{
    EXPECT_DIAG(HEAD "types:\n  E: {kind: enum, values: [a, 1]}\n", "mixes strings and integers");
    EXPECT_DIAG(HEAD "types:\n  E: {kind: enum, values: [a, a]}\n", "repeats the value 'a'");
}
END_TEST

START_TEST(never_finite)
{
    EXPECT_DIAG(HEAD "types:\n  N: {fields: {next: N}}\n", "type 'N' can never be finite");
    EXPECT_DIAG(HEAD "types:\n  A: {fields: {b: B}}\n  B: {fields: {a: A}}\n", "type 'A' can never be finite");
    result *r = compile(HEAD "types:\n  N: {fields: {next: \"Optional[N]\"}}\n");
    ck_assert_ptr_nonnull(r->srv);
    done(r);
}
END_TEST

START_TEST(by_value_self)
{
    EXPECT_DIAG(HEAD "types:\n  N:\n    fields:\n      v: int\n      next: {type: N, default: {v: 1}}\n",
                "7:7: error: 'next' holds a 'N' inside a 'N' by value");
    EXPECT_DIAG(HEAD "types:\n  A: {fields: {b: {type: B, default: {}}}}\n  B: {fields: {a: {type: A, default: {}}}}\n",
                "would hold another without end");
}
END_TEST

START_TEST(c_name_collision)
{
    EXPECT_DIAG(HEAD "types:\n  M: {fields: {a-b: int, a.b: int}}\n", "have the same C name 'a_b'");
    EXPECT_DIAG(HEAD "types:\n  R: {kind: record, fields: {x: {type: int, required: false}, has_x: int}}\n",
                "presence flag");
}
END_TEST

START_TEST(structured_true_content)
{
    EXPECT_DIAG(HEAD "tools:\n  t:\n    description: d\n    returns: content\n    structured_output: true\n",
                "structured_output: true");
}
END_TEST

START_TEST(underscore_param)
{
    EXPECT_DIAG(HEAD "tools:\n  t:\n    description: d\n    params: {_x: int}\n    returns: int\n",
                "parameter '_x' of tool 't' cannot start with '_'");
}
END_TEST

START_TEST(version_must_be_string)
{
    EXPECT_DIAG("mcpidl: 1\nserver: {name: s, version: 1.10}\n", "quote it: \"1.10\"");
}
END_TEST

START_TEST(returns_decoration_on_object)
{
    EXPECT_DIAG(HEAD "types:\n  M: {fields: {a: int}}\ntools:\n  t:\n    description: d\n"
                     "    returns: {type: M, description: x}\n",
                "'description' on returns applies to the wrapped 'result' property");
}
END_TEST

START_TEST(many_errors_reported)
{
    result *r = compile(HEAD "tools:\n  a:\n    description: d\n    returns: Nope1\n  b:\n    description: d\n"
                             "    returns: Nope2\n");
    ck_assert_ptr_null(r->srv);
    ck_assert_uint_eq(r->diags.errors, 2);
    done(r);
}
END_TEST

/* icons and _meta as the checker reads them: every member kept as written,
 * in order; `icons: []` is written, absent is not; the server's identity. */
START_TEST(display_ir)
{
    result *r = compile("mcpidl: 1\nserver:\n  name: s\n  version: \"1\"\n  description: |\n    What it does.\n\n"
                        "  websiteUrl: https://example.com/s\n  icons: [{src: \"https://example.com/s.png\"}]\n"
                        "tools:\n  t:\n    description: d\n    returns: str\n    icons:\n"
                        "      - {src: \"data:image/png;base64,AAAA\", mimeType: image/png, sizes: [16x16, any], "
                        "theme: light}\n"
                        "      - {src: \"https://example.com/t.svg\"}\n"
                        "    _meta: {b.example/z: [1, 2], a: {x: null}, com.example.api/: true}\n"
                        "  u:\n    description: d\n    returns: str\n    icons: []\n"
                        "  v:\n    description: d\n    returns: str\n");
    ck_assert_msg(r->srv != NULL, "%s", r->text);
    const ir_server *s = r->srv;
    ck_assert_str_eq(s->description, "What it does.");
    ck_assert_str_eq(s->website_url, "https://example.com/s");
    ck_assert(s->display.has_icons && s->display.nicons == 1 && !s->display.meta);
    const ir_display *d = &s->tools[0].display;
    ck_assert(d->has_icons);
    ck_assert_uint_eq(d->nicons, 2);
    ck_assert_str_eq(d->icons[0].src, "data:image/png;base64,AAAA");
    ck_assert_str_eq(d->icons[0].mime_type, "image/png");
    ck_assert_uint_eq(d->icons[0].nsizes, 2);
    ck_assert_str_eq(d->icons[0].sizes[1], "any");
    ck_assert_str_eq(d->icons[0].theme, "light");
    ck_assert(!d->icons[1].mime_type && !d->icons[1].sizes && !d->icons[1].theme);
    ck_assert_ptr_nonnull(d->meta);
    ck_assert_int_eq(d->meta->kind, MCP_JOBJECT);
    ck_assert_uint_eq(d->meta->n, 3);
    ck_assert_str_eq(d->meta->members[0].key, "b.example/z"); /* the order written */
    ck_assert_str_eq(d->meta->members[2].key, "com.example.api/");
    ck_assert(s->tools[1].display.has_icons && s->tools[1].display.nicons == 0);
    ck_assert(!s->tools[2].display.has_icons && !s->tools[2].display.meta);
    done(r);
}
END_TEST

START_TEST(meta_keys_ir)
{
    result *r = compile(
        "mcpidl: 1\nserver:\n  name: s\n  version: \"1\"\n  cache: {ttl_ms: 5}\n"
        "  list_changed: [tools, resources]\n  scopes: [a]\n"
        "tools:\n  t:\n    description: d\n    task: required\n    scopes: []\n"
        "    params:\n      s: {type: bytes, header: S}\n      i: {type: \"Literal[1, 2]\", header: I}\n"
        "      b: {type: \"Literal[True]\", header: B}\n      plain: str\n    returns: content\n"
        "  u:\n    description: d\n    returns: int\n    inline: true\n"
        "resources:\n  r: {uri: \"test://r\", text: x, cache: {ttl_ms: 0}, scopes: [x, y]}\n"
        "resource_templates:\n  rt: {uriTemplate: \"test://t/{id}\", cache: {ttl_ms: 7, scope: public}}\n"
        "prompts:\n  p: {description: d, scopes: [z]}\n");
    ck_assert_msg(r->srv != NULL, "%s", r->text);
    const ir_server *s = r->srv;
    ck_assert(s->cache.set && !s->cache.private_scope && s->cache.ttl_ms == 5);
    ck_assert(s->list_changed_tools && s->list_changed_resources && !s->list_changed_prompts);
    ck_assert(s->scopes.set && s->scopes.n == 1 && strcmp(s->scopes.items[0], "a") == 0);
    const ir_tool *t = &s->tools[0];
    ck_assert_int_eq(t->task, IR_TASK_REQUIRED);
    ck_assert(t->scopes.set && t->scopes.n == 0);
    ck_assert_str_eq(t->params[0].header, "S");
    ck_assert_int_eq(t->params[0].header_kind, IR_HEADER_STRING);
    ck_assert_int_eq(t->params[1].header_kind, IR_HEADER_INTEGER);
    ck_assert_int_eq(t->params[2].header_kind, IR_HEADER_BOOLEAN);
    ck_assert_ptr_null(t->params[3].header);
    ck_assert_int_eq(s->tools[1].task, IR_TASK_FORBIDDEN);
    ck_assert(!t->run_inline && s->tools[1].run_inline);
    ck_assert(!s->tools[1].scopes.set);
    /* A read's hints are private unless they say otherwise. */
    ck_assert(s->resources[0].cache.set && s->resources[0].cache.private_scope && s->resources[0].cache.ttl_ms == 0);
    ck_assert_uint_eq(s->resources[0].scopes.n, 2);
    ck_assert(s->templates[0].cache.set && !s->templates[0].cache.private_scope);
    ck_assert(!s->templates[0].scopes.set);
    ck_assert(s->prompts[0].scopes.set && s->prompts[0].scopes.n == 1);
    done(r);
}
END_TEST

START_TEST(header_published)
{
    EXPECT_IN(HEAD "tools:\n  t:\n    description: d\n    params:\n      region: {type: str, header: Region}\n"
                   "    returns: int\n",
              "{\"properties\":{\"region\":{\"title\":\"Region\",\"type\":\"string\",\"x-mcp-header\":\"Region\"}},"
              "\"required\":[\"region\"],\"title\":\"tArguments\",\"type\":\"object\"}");
}
END_TEST

/* As pydantic applies json_schema_extra: a field's beside its title (outside
 * the arms of an Optional, beside a $ref), a model's in its schema, a tool's
 * at the root; every key sorted in, its value sorted too, but for what lies
 * under 'properties'. */
START_TEST(schema_extra_merged)
{
    EXPECT_IN(
        HEAD "types:\n  A:\n    schema_extra: {$anchor: a, examples: [{z: 1, a: 2}]}\n    fields: {x: int}\n"
             "tools:\n  t:\n    description: d\n"
             "    schema_extra: {$schema: \"S\", if: {properties: {o: {const: 1}, b: {}}, required: [o]}}\n"
             "    params:\n      o: {type: \"Optional[int]\", default: null, schema_extra: {deprecated: true}}\n"
             "      b: {type: A, schema_extra: {examples: [1]}}\n    returns: int\n",
        "{\"$defs\":{\"A\":{\"$anchor\":\"a\",\"examples\":[{\"a\":2,\"z\":1}],\"properties\":{\"x\":{\"title\":\"X\","
        "\"type\":\"integer\"}},\"required\":[\"x\"],\"title\":\"A\",\"type\":\"object\"}},\"$schema\":\"S\","
        "\"if\":{\"properties\":{\"o\":{\"const\":1},\"b\":{}},\"required\":[\"o\"]},\"properties\":{\"o\":"
        "{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"null\"}],\"default\":null,\"deprecated\":true,\"title\":\"O\"},"
        "\"b\":{\"$ref\":\"#/$defs/A\",\"examples\":[1]}},\"required\":[\"b\"],\"title\":\"tArguments\","
        "\"type\":\"object\"}");
    /* Beside a $ref, a key equal to the definition's own is dropped, as pydantic
     * drops an equal title (its definition was generated first). */
    EXPECT_OUT(
        HEAD "types:\n  A:\n    schema_extra: {examples: [1], x-k: 2}\n    fields: {x: int}\n"
             "  M:\n    fields:\n      a: {type: A, schema_extra: {examples: [1], x-k: 3}}\n"
             "      b: {type: A, description: d, schema_extra: {x-k: 2}}\n"
             "tools:\n  t:\n    description: d\n    returns: M\n",
        "{\"$defs\":{\"A\":{\"examples\":[1],\"properties\":{\"x\":{\"title\":\"X\",\"type\":\"integer\"}},"
        "\"required\":[\"x\"],\"title\":\"A\",\"type\":\"object\",\"x-k\":2}},\"properties\":{\"a\":{\"$ref\":"
        "\"#/$defs/A\",\"x-k\":3},\"b\":{\"$ref\":\"#/$defs/A\",\"description\":\"d\"}},\"required\":[\"a\",\"b\"],"
        "\"title\":\"M\",\"type\":\"object\"}");
    /* A tool's $schema wins over the server's schema_dialect. */
    EXPECT_IN("mcpidl: 1\nserver: {name: s, version: \"1\", schema_dialect: D}\n"
              "tools:\n  t:\n    description: d\n    schema_extra: {$schema: E}\n    returns: int\n",
              "{\"$schema\":\"E\",\"properties\":{},\"title\":\"tArguments\",\"type\":\"object\"}");
    /* A type named 'properties' keeps pydantic's build order; the extra keys come last. */
    EXPECT_OUT(
        HEAD "types:\n  properties:\n    schema_extra: {zz: 1, aa: 2}\n    fields: {x: int}\n"
             "  W: {fields: {p: properties}}\n"
             "tools:\n  t:\n    description: d\n    returns: W\n",
        "{\"$defs\":{\"properties\":{\"type\":\"object\",\"properties\":{\"x\":{\"title\":\"X\",\"type\":\"integer\"}},"
        "\"required\":[\"x\"],\"title\":\"properties\",\"zz\":1,\"aa\":2}},\"properties\":{\"p\":{\"$ref\":"
        "\"#/$defs/properties\"}},\"required\":[\"p\"],\"title\":\"W\",\"type\":\"object\"}");
}
END_TEST

START_TEST(task_in_tool_entry)
{
    result *r = compile(HEAD "tools:\n  t:\n    description: d\n    task: optional\n    returns: content\n"
                             "    annotations: {readOnlyHint: true}\n");
    ck_assert_msg(r->srv != NULL, "%s", r->text);
    schema_emitter *e = schema_emitter_new(&r->arena, r->srv);
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_json_write(&b, schema_tool_entry(e, &r->srv->tools[0]), -1);
    mcp_buf_putc(&b, 0);
    ck_assert_str_eq(b.data, "{\"name\":\"t\",\"description\":\"d\",\"inputSchema\":{\"properties\":{},\"title\":"
                             "\"tArguments\",\"type\":\"object\"},\"annotations\":{\"readOnlyHint\":true},"
                             "\"execution\":{\"taskSupport\":\"optional\"}}");
    mcp_buf_free(&b);
    done(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("check");
    TCase *tc = tcase_create("check");
    tcase_add_test(tc, titles);
    tcase_add_test(tc, c_idents);
    tcase_add_test(tc, did_you_mean);
    tcase_add_test(tc, trim);
    tcase_add_test(tc, wrapped_int);
    tcase_add_test(tc, enum_return_is_wrapped);
    tcase_add_test(tc, any_schemas);
    tcase_add_test(tc, dict_int_wrapped);
    tcase_add_test(tc, union_normalised);
    tcase_add_test(tc, literals);
    tcase_add_test(tc, ref_siblings);
    tcase_add_test(tc, ref_siblings_follow_generation_order);
    tcase_add_test(tc, property_named_properties_sorted);
    tcase_add_test(tc, default_key_order);
    tcase_add_test(tc, dialect_and_forbid);
    tcase_add_test(tc, optional_constraints_inside);
    tcase_add_test(tc, cycle_through_other_type);
    tcase_add_test(tc, unknown_type_did_you_mean);
    tcase_add_test(tc, unknown_key_did_you_mean);
    tcase_add_test(tc, missing_description_warns);
    tcase_add_test(tc, bad_defaults);
    tcase_add_test(tc, constraint_on_wrong_type);
    tcase_add_test(tc, contradictions);
    tcase_add_test(tc, pattern_subset);
    tcase_add_test(tc, record_and_model_rules);
    tcase_add_test(tc, enum_rules);
    tcase_add_test(tc, never_finite);
    tcase_add_test(tc, by_value_self);
    tcase_add_test(tc, c_name_collision);
    tcase_add_test(tc, structured_true_content);
    tcase_add_test(tc, underscore_param);
    tcase_add_test(tc, version_must_be_string);
    tcase_add_test(tc, returns_decoration_on_object);
    tcase_add_test(tc, many_errors_reported);
    tcase_add_test(tc, meta_keys_ir);
    tcase_add_test(tc, display_ir);
    tcase_add_test(tc, header_published);
    tcase_add_test(tc, schema_extra_merged);
    tcase_add_test(tc, task_in_tool_entry);
    suite_add_tcase(s, tc);
    int failed = check_run(s, true);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
