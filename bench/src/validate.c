/* validate.c: text to a validated C value, with the generated decoder.
 *
 * For each case of bench/validate/cases (one JSON text and the type it must
 * have, from bench/validate/bench.mcp.yaml), the time per text of
 *
 *   mcpidl   mcp_json_parse into an arena, then mcp_decode into the C struct
 *            the generated header declares (every rule of the schema checked,
 *            errors collected as pydantic reports them); the arena is reset
 *            before each text, as the server does per request
 *   json-c   json_tokener_parse_ex (one tokener, reset before each text) and
 *            json_object_put: parsing alone, no validation
 *
 * Each figure is the median of ROUNDS timed rounds of at least MIN_NS each,
 * with the fastest and slowest round. Output: one line of JSON per case and
 * parser.
 *
 * usage: bench-validate [--no-jsonc] [--cpu] CASES_DIR [CASE...]
 *        bench-validate --profile N CASES_DIR CASE
 *
 * Naming cases runs only those; --no-jsonc times mcpidl alone (two builds
 * compared side by side); --cpu times by the thread's CPU time instead of the
 * clock (on a busy machine the clock counts other programs' turns). --profile runs the mcpidl path N times on one case
 * and nothing else, for a profiler (valgrind --tool=callgrind).
 */
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.mcp.h"
#include "internal/methods.h"

#define ROUNDS 7
#define MIN_NS 2.5e8

typedef struct vcase {
    const char *name; /* also the file name, NAME.json */
    const char *tool;
    bool args;  /* the tool's arguments type, else its result type */
    bool valid; /* what the decoder must say */
} vcase;

static const vcase CASES[] = {
    {"weather", "get_weather", false, true},  {"list100", "get_forecast", false, true},
    {"invalid", "get_weather", false, false}, {"search_books", "search_books", true, true},
    {"order", "get_order", false, true},
};

static clockid_t timer = CLOCK_MONOTONIC;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(timer, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static char *load(const char *dir, const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bench-validate: cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    if (!p || fread(p, 1, (size_t)n, f) != (size_t)n)
        exit(1);
    fclose(f);
    while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r'))
        n--;
    p[n] = 0;
    *len = (size_t)n;
    return p;
}

static const mcp_type *type_of(const vcase *c)
{
    for (size_t i = 0; i < bench_server.ntools; i++)
        if (strcmp(bench_server.tools[i].name, c->tool) == 0)
            return c->args ? bench_server.tools[i].args : bench_server.tools[i].result;
    fprintf(stderr, "bench-validate: no tool %s\n", c->tool);
    exit(1);
}

/* One text through the mcpidl path; the decoder's verdict. */
static bool mcpidl_once(mcp_arena *a, const mcp_type *t, const char *text, size_t len, void **out, size_t *nerrors)
{
    mcp_arena_reset(a);
    mcp_json *v = mcp_json_parse(a, text, len, NULL, NULL, NULL);
    if (!v) {
        fprintf(stderr, "bench-validate: the text does not parse\n");
        exit(1);
    }
    mcp_report rep;
    mcp_report_init(&rep, a);
    void *value = mcp_arena_alloc(a, t->size ? t->size : 1);
    bool ok = mcp_decode(t, v, value, a, &rep);
    *out = value;
    *nerrors = rep.len;
    return ok;
}

static void report(const char *name, const char *who, double *r, size_t bytes)
{
    qsort(r, ROUNDS, sizeof *r, cmp_d);
    printf("{\"case\":\"%s\",\"impl\":\"%s\",\"bytes\":%zu,\"ns\":%.1f,\"min_ns\":%.1f,\"max_ns\":%.1f}\n", name, who,
           bytes, r[ROUNDS / 2], r[0], r[ROUNDS - 1]);
    fflush(stdout);
}

static bool wanted(const char *name, char **names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return n == 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench-validate [--no-jsonc] [--cpu] CASES_DIR [CASE...]\n"
                    "       bench-validate --profile N CASES_DIR CASE\n");
    return 2;
}

int main(int argc, char **argv)
{
    long profile = 0;
    bool jsonc = true;
    if (argc > 1 && strcmp(argv[1], "--profile") == 0) {
        if (argc != 5 || (profile = atol(argv[2])) <= 0)
            return usage();
        argv += 2, argc -= 2;
    } else {
        for (; argc > 1 && strncmp(argv[1], "--", 2) == 0; argv++, argc--) {
            if (strcmp(argv[1], "--no-jsonc") == 0)
                jsonc = false;
            else if (strcmp(argv[1], "--cpu") == 0)
                timer = CLOCK_THREAD_CPUTIME_ID;
            else
                return usage();
        }
    }
    if (argc < 2)
        return usage();
    const char *dir = argv[1];
    char **names = argv + 2;
    int nnames = argc - 2;
    mcp_arena a;
    mcp_arena_init(&a);
    json_tokener *tok = json_tokener_new();
    for (size_t k = 0; k < sizeof CASES / sizeof *CASES; k++) {
        const vcase *c = &CASES[k];
        if (!wanted(c->name, names, nnames))
            continue;
        size_t len;
        char *text = load(dir, c->name, &len);
        const mcp_type *t = type_of(c);

        /* The verdict first, and the C value it gives. */
        void *value;
        size_t nerr;
        bool ok = mcpidl_once(&a, t, text, len, &value, &nerr);
        if (ok != c->valid) {
            fprintf(stderr, "bench-validate: %s: the decoder says %s (%zu errors)\n", c->name, ok ? "valid" : "invalid",
                    nerr);
            return 1;
        }
        if (strcmp(c->name, "weather") == 0) {
            const bench_WeatherData *w = value;
            if (w->temperature != 16.2 || w->humidity != 0.83 || strcmp(w->conditions, "Overcast") != 0)
                return 1;
        } else if (strcmp(c->name, "list100") == 0) {
            const bench_WeatherData_list *l = value;
            if (l->len != 100)
                return 1;
        } else if (strcmp(c->name, "order") == 0) {
            const bench_Order *o = value;
            if (o->id != 100234 || o->items.len != 5 || o->items.items[4].quantity != 1)
                return 1;
        }

        if (profile) {
            for (long i = 0; i < profile; i++)
                mcpidl_once(&a, t, text, len, &value, &nerr);
            free(text);
            continue;
        }

        /* Calibrate: iterations for MIN_NS. */
        long iters = 1;
        for (;;) {
            double t0 = now_ns();
            for (long i = 0; i < iters; i++)
                mcpidl_once(&a, t, text, len, &value, &nerr);
            if (now_ns() - t0 > MIN_NS / 10)
                break;
            iters *= 2;
        }
        iters *= 10;
        /* Rounds alternate between the two, so that a busy machine slows both alike. */
        double r[ROUNDS], rj[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            double t0 = now_ns();
            for (long i = 0; i < iters; i++)
                mcpidl_once(&a, t, text, len, &value, &nerr);
            r[round] = (now_ns() - t0) / (double)iters;
            t0 = now_ns();
            for (long i = 0; jsonc && i < iters; i++) {
                json_tokener_reset(tok);
                json_object *o = json_tokener_parse_ex(tok, text, (int)len);
                if (!o)
                    return 1;
                json_object_put(o);
            }
            rj[round] = (now_ns() - t0) / (double)iters;
        }
        report(c->name, "mcpidl", r, len);
        memcpy(r, rj, sizeof r);
        if (jsonc)
            report(c->name, "json-c", r, len);
        free(text);
    }
    json_tokener_free(tok);
    mcp_arena_free(&a);
    return 0;
}
