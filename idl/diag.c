/* diag.c: collecting and printing diagnostics. */
#include "diag.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "internal/utf8.h"
#include "mcpidl/buf.h"

void idl_diags_init(idl_diags *d, mcp_arena *arena, const char *path, const char *src, size_t src_len)
{
    memset(d, 0, sizeof *d);
    d->arena = arena;
    d->path = path;
    d->src = src;
    d->src_len = src_len;
    d->max_items = 1000;
}

uint32_t idl_diags_add_file(idl_diags *d, const char *path, const char *src, size_t src_len)
{
    if (d->nfiles == d->cap_files) {
        size_t cap = d->cap_files ? d->cap_files * 2 : 4;
        idl_file *files = mcp_arena_realloc(d->arena, d->files, d->cap_files * sizeof *files, cap * sizeof *files);
        if (!files)
            return 0;
        d->files = files;
        d->cap_files = cap;
    }
    d->files[d->nfiles++] = (idl_file){path, src, src_len};
    return (uint32_t)d->nfiles;
}

const char *idl_diags_file(const idl_diags *d, uint32_t file, const char **src, size_t *src_len)
{
    if (file == 0 || file > d->nfiles) {
        if (src)
            *src = d->src;
        if (src_len)
            *src_len = d->src_len;
        return d->path;
    }
    const idl_file *f = &d->files[file - 1];
    if (src)
        *src = f->src;
    if (src_len)
        *src_len = f->src_len;
    return f->path;
}

void idl_diag_vadd(idl_diags *d, idl_severity sev, idl_loc loc, const char *fmt, va_list ap)
{
    if (sev == IDL_ERROR)
        d->errors++;
    else if (sev == IDL_WARNING)
        d->warnings++;
    if (d->len >= d->max_items) {
        d->truncated = true;
        return;
    }
    if (d->len == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        idl_diag *items = mcp_arena_realloc(d->arena, d->items, d->cap * sizeof *items, cap * sizeof *items);
        if (!items) {
            d->truncated = true;
            return;
        }
        d->items = items;
        d->cap = cap;
    }
    va_list aq;
    va_copy(aq, ap);
    int n = idl_vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *msg = n < 0 ? NULL : mcp_arena_alloc(d->arena, (size_t)n + 1);
    if (!msg) {
        d->truncated = true;
        return;
    }
    idl_vsnprintf(msg, (size_t)n + 1, fmt, ap);
    d->items[d->len++] = (idl_diag){sev, loc, msg};
}

void idl_diag_add(idl_diags *d, idl_severity sev, idl_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    idl_diag_vadd(d, sev, loc, fmt, ap);
    va_end(ap);
}

uint32_t idl_char_col(const char *src, size_t line_start, size_t off)
{
    return off > line_start ? (uint32_t)(1 + mcp_utf8_chars(src + line_start, off - line_start)) : 1;
}

/* A line ends at "\n", "\r\n" or a lone "\r" (as libyaml reads them). */
static bool is_line_end(const char *src, size_t len, size_t i)
{
    return src[i] == '\n' || (src[i] == '\r' && (i + 1 >= len || src[i + 1] != '\n'));
}

idl_loc idl_loc_of_offset(const char *src, size_t len, size_t off)
{
    if (off > len)
        off = len;
    uint32_t line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < off; i++)
        if (is_line_end(src, len, i)) {
            line++;
            line_start = i + 1;
        }
    return (idl_loc){line, idl_char_col(src, line_start, off), 0};
}

static int loc_cmp(idl_loc a, idl_loc b)
{
    /* By file (the compiled one first, then the imported ones as they were
     * met); in each, diagnostics without a place (whole-file ones) come first. */
    if (a.file != b.file)
        return a.file < b.file ? -1 : 1;
    if (a.line != b.line)
        return a.line < b.line ? -1 : 1;
    if (a.col != b.col)
        return a.col < b.col ? -1 : 1;
    return 0;
}

/* Sort by place, keeping each note right after the error or warning it belongs
 * to (the one added just before it), wherever the note points: "duplicate key"
 * at the second key is followed by its note at the first, which lies above.
 * A note is sorted by the place of its error; insertion sort is stable, so equal
 * places keep the order they were added in (a note stays after its error), and
 * it is fast on the nearly sorted lists the passes produce. */
static void sort_stable(idl_diag *v, size_t n)
{
    if (n < 2)
        return;
    idl_loc *key = malloc(n * sizeof *key);
    if (!key)
        return; /* printed in the order they were added */
    idl_loc head = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        if (v[i].severity != IDL_NOTE || i == 0)
            head = v[i].loc;
        key[i] = head;
    }
    for (size_t i = 1; i < n; i++) {
        idl_diag x = v[i];
        idl_loc kx = key[i];
        size_t j = i;
        while (j > 0 && loc_cmp(key[j - 1], kx) > 0) {
            v[j] = v[j - 1];
            key[j] = key[j - 1];
            j--;
        }
        v[j] = x;
        key[j] = kx;
    }
    free(key);
}

static const char *severity_name(idl_severity s)
{
    return s == IDL_ERROR ? "error" : s == IDL_WARNING ? "warning" : "note";
}

/* Source line `line`, which starts at byte `start`, and a caret under column
 * `col`. Tabs are kept so the caret lines up; control characters and bytes
 * that are not UTF-8 are shown as '?'. */
static void put_source_line(const char *src, size_t src_len, mcp_buf *out, uint32_t line, size_t start, uint32_t col)
{
    if (start == 0 && src_len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0)
        start = 3; /* a byte-order mark is not a column */
    size_t end = start;
    while (end < src_len && src[end] != '\n' && src[end] != '\r')
        end++;
    if (end - start > 240)
        return; /* a very long line would drown the message */
    mcp_buf_printf(out, "%5u | ", (unsigned)line);
    const unsigned char *s = (const unsigned char *)src;
    for (size_t k = start; k < end;) {
        size_t w = mcp_utf8_seq(s + k, end - k, NULL, NULL);          /* 0: not a valid character */
        bool control = (w == 2 && s[k] == 0xC2 && s[k + 1] < 0xA0) || /* C1 controls, U+2028, U+2029 */
                       (w == 3 && s[k] == 0xE2 && s[k + 1] == 0x80 && (s[k + 2] == 0xA8 || s[k + 2] == 0xA9));
        if (w > 1 && !control)
            mcp_buf_put(out, (const char *)s + k, w);
        else
            mcp_buf_putc(out, s[k] == '\t' || (s[k] >= 0x20 && s[k] < 0x7F) ? (char)s[k] : '?');
        k += w ? w : 1;
    }
    mcp_buf_puts(out, "\n      | ");
    uint32_t c = 1;
    for (size_t k = start; k < end && c < col; k++) {
        if ((s[k] & 0xC0) == 0x80)
            continue;
        mcp_buf_putc(out, s[k] == '\t' ? '\t' : ' ');
        c++;
    }
    mcp_buf_puts(out, "^\n");
}

/* The start of each line that a diagnostic points at, found in one pass over the
 * source: lines[i] (sorted, unique) starts at starts[i], or SIZE_MAX past the end. */
static void find_lines(const char *src, size_t src_len, const uint32_t *lines, size_t n, size_t *starts)
{
    size_t i = 0, k = 0;
    uint32_t line = 1;
    while (k < n) {
        while (k < n && lines[k] == line)
            starts[k++] = i;
        if (k == n || i >= src_len)
            break;
        while (i < src_len && !is_line_end(src, src_len, i))
            i++;
        if (i < src_len) {
            i++;
            line++;
        } else {
            break;
        }
    }
    for (; k < n; k++)
        starts[k] = SIZE_MAX;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A message on one line: names quoted in it come from the input and may hold
 * line breaks or other control characters, which are escaped. */
static void put_message(mcp_buf *out, const char *m)
{
    for (; *m; m++) {
        unsigned char c = (unsigned char)*m;
        if (c == '\n')
            mcp_buf_puts(out, "\\n");
        else if (c == '\t')
            mcp_buf_puts(out, "\\t");
        else if (c == '\r')
            mcp_buf_puts(out, "\\r");
        else if (c < 0x20 || c == 0x7F)
            mcp_buf_printf(out, "\\x%02X", c);
        else
            mcp_buf_putc(out, (char)c);
    }
    mcp_buf_putc(out, '\n');
}

/* The head line of a diagnostic: "path:line:col: severity: message". */
static void put_head(const idl_diags *d, mcp_buf *out, const idl_diag *g)
{
    const char *path = idl_diags_file(d, g->loc.file, NULL, NULL);
    if (g->loc.line)
        mcp_buf_printf(out, "%s:%u:%u: %s: ", path, (unsigned)g->loc.line, (unsigned)g->loc.col,
                       severity_name(g->severity));
    else
        mcp_buf_printf(out, "%s: %s: ", path, severity_name(g->severity));
    put_message(out, g->message);
}

bool idl_diags_render(idl_diags *d, bool show_source, idl_diag_fn fn, void *ctx)
{
    assert(d->len <= d->cap && (d->len == 0 || d->items));
    sort_stable(d->items, d->len);
    /* The lines pointed at, as (file << 32 | line), sorted and unique; each file's
     * run found in one pass over its text. */
    uint64_t *lines = NULL;
    size_t *starts = NULL, nlines = 0;
    if (show_source && d->len) {
        lines = malloc(d->len * sizeof *lines);
        starts = malloc(d->len * sizeof *starts);
        uint32_t *run = malloc(d->len * sizeof *run);
        if (lines && starts && run) {
            for (size_t i = 0; i < d->len; i++)
                if (d->items[i].loc.line)
                    lines[nlines++] = (uint64_t)d->items[i].loc.file << 32 | d->items[i].loc.line;
            qsort(lines, nlines, sizeof *lines, u64_cmp);
            size_t u = 0;
            for (size_t i = 0; i < nlines; i++)
                if (u == 0 || lines[u - 1] != lines[i])
                    lines[u++] = lines[i];
            nlines = u;
            for (size_t i = 0, e; i < nlines; i = e) {
                uint32_t file = (uint32_t)(lines[i] >> 32);
                for (e = i; e < nlines && (uint32_t)(lines[e] >> 32) == file; e++)
                    run[e - i] = (uint32_t)lines[e];
                const char *src;
                size_t src_len;
                idl_diags_file(d, file, &src, &src_len);
                if (src)
                    find_lines(src, src_len, run, e - i, starts + i);
                else
                    for (size_t k = i; k < e; k++)
                        starts[k] = SIZE_MAX;
            }
        } else {
            show_source = false;
        }
        free(run);
    }
    mcp_buf text;
    mcp_buf_init(&text);
    for (size_t i = 0; i < d->len; i++) {
        const idl_diag *g = &d->items[i];
        mcp_buf_clear(&text);
        put_head(d, &text, g);
        if (show_source && g->loc.line) {
            uint64_t want = (uint64_t)g->loc.file << 32 | g->loc.line;
            size_t lo = 0, hi = nlines;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (lines[mid] < want)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            const char *src;
            size_t src_len;
            idl_diags_file(d, g->loc.file, &src, &src_len);
            if (lo < nlines && lines[lo] == want && starts[lo] != SIZE_MAX)
                put_source_line(src, src_len, &text, g->loc.line, starts[lo], g->loc.col);
        }
        if (text.oom)
            break;
        fn(ctx, g, text.data, text.len);
    }
    free(lines);
    free(starts);
    bool ok = !text.oom;
    if (ok && d->truncated) {
        char message[80];
        snprintf(message, sizeof message, "too many diagnostics; the first %zu are shown", d->len);
        idl_diag note = {IDL_NOTE, {0, 0, 0}, message};
        mcp_buf_clear(&text);
        put_head(d, &text, &note);
        ok = !text.oom;
        if (ok)
            fn(ctx, &note, text.data, text.len);
    }
    mcp_buf_free(&text);
    return ok;
}

static void print_one(void *ctx, const idl_diag *g, const char *text, size_t len)
{
    (void)g;
    fwrite(text, 1, len, ctx);
}

bool idl_diags_print(idl_diags *d, FILE *out, bool show_source)
{
    return idl_diags_render(d, show_source, print_one, out);
}
