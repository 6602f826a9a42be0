/* diag.c: collecting and printing diagnostics. */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

void idl_diags_init(idl_diags *d, mcp_arena *arena, const char *path, const char *src, size_t src_len)
{
    memset(d, 0, sizeof *d);
    d->arena = arena;
    d->path = path;
    d->src = src;
    d->src_len = src_len;
    d->max_items = 1000;
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
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *msg = n < 0 ? NULL : mcp_arena_alloc(d->arena, (size_t)n + 1);
    if (!msg) {
        d->truncated = true;
        return;
    }
    vsnprintf(msg, (size_t)n + 1, fmt, ap);
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
    uint32_t col = 1;
    for (size_t i = line_start; i < off; i++)
        if (((unsigned char)src[i] & 0xC0) != 0x80)
            col++;
    return col;
}

idl_loc idl_loc_of_offset(const char *src, size_t len, size_t off)
{
    if (off > len)
        off = len;
    uint32_t line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < off; i++)
        if (src[i] == '\n') {
            line++;
            line_start = i + 1;
        }
    return (idl_loc){line, idl_char_col(src, line_start, off)};
}

static int loc_cmp(const idl_diag *a, const idl_diag *b)
{
    /* Diagnostics without a place (whole-file ones) come first. */
    if (a->loc.line != b->loc.line)
        return a->loc.line < b->loc.line ? -1 : 1;
    if (a->loc.col != b->loc.col)
        return a->loc.col < b->loc.col ? -1 : 1;
    return 0;
}

/* Insertion sort keeps equal locations in the order they were added (a note stays
 * after its error) and is fast on the nearly sorted lists the passes produce. */
static void sort_stable(idl_diag *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        idl_diag x = v[i];
        size_t j = i;
        while (j > 0 && loc_cmp(&v[j - 1], &x) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static const char *severity_name(idl_severity s)
{
    return s == IDL_ERROR ? "error" : s == IDL_WARNING ? "warning" : "note";
}

/* Print the source line of `loc` and a caret under its column. Tabs are kept so
 * the caret lines up; bytes that are not printable are shown as '?'. */
static void print_source_line(const idl_diags *d, FILE *out, idl_loc loc)
{
    if (!d->src || loc.line == 0)
        return;
    size_t i = 0;
    uint32_t line = 1;
    while (i < d->src_len && line < loc.line) {
        if (d->src[i] == '\n')
            line++;
        i++;
    }
    if (line != loc.line)
        return;
    size_t start = i, end = i;
    while (end < d->src_len && d->src[end] != '\n' && d->src[end] != '\r')
        end++;
    if (end - start > 240)
        return; /* a very long line would drown the message */
    fprintf(out, "%5u | ", (unsigned)loc.line);
    for (size_t k = start; k < end; k++) {
        unsigned char c = (unsigned char)d->src[k];
        fputc(c == '\t' || c >= 0x20 ? c : '?', out);
    }
    fputs("\n      | ", out);
    uint32_t col = 1;
    for (size_t k = start; k < end && col < loc.col; k++) {
        unsigned char c = (unsigned char)d->src[k];
        if ((c & 0xC0) == 0x80)
            continue;
        fputc(c == '\t' ? '\t' : ' ', out);
        col++;
    }
    fputs("^\n", out);
}

void idl_diags_print(idl_diags *d, FILE *out, bool show_source)
{
    sort_stable(d->items, d->len);
    for (size_t i = 0; i < d->len; i++) {
        const idl_diag *g = &d->items[i];
        if (g->loc.line)
            fprintf(out, "%s:%u:%u: %s: %s\n", d->path, (unsigned)g->loc.line, (unsigned)g->loc.col,
                    severity_name(g->severity), g->message);
        else
            fprintf(out, "%s: %s: %s\n", d->path, severity_name(g->severity), g->message);
        if (show_source)
            print_source_line(d, out, g->loc);
    }
    if (d->truncated)
        fprintf(out, "%s: note: too many diagnostics; the first %zu are shown\n", d->path, d->len);
}
