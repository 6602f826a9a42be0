/* pyrepr.c: Python's repr() of JSON values, as the MCP Python SDK's
 * validation reports show them (pydantic-core's ValidationError.__str__),
 * and the float repr.
 *
 * Two walks, neither recursive: forward (the whole repr, or only its first
 * bytes) and backward (only its last bytes), so that the short form of a huge
 * value costs the same as that of a small one. */
#include "internal/utf8.h"
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/pyrepr.h"
#include "mcpidl/json.h"
#include "mcpidl/jsonw.h"

/* ---- floats ------------------------------------------------------------- */

/* repr(float) into out (at most 32 bytes with the NUL); its length.
 * CPython's float_repr_style 'short': the shortest digits that read back,
 * exponent form when the decimal point position is <= -4 or > 16. */
static size_t py_float(double d, char out[40])
{
    if (isnan(d))
        return (size_t)snprintf(out, 40, "nan");
    if (isinf(d))
        return (size_t)snprintf(out, 40, d < 0 ? "-inf" : "inf");
    char dig[32];
    int e10 = 0;
    int nd = mcp_double_shortest(d, dig, &e10);
    size_t k = 0;
    if (signbit(d))
        out[k++] = '-';
    if (nd <= 0) {
        memcpy(out + k, "0.0", 4);
        return k + 3;
    }
    int decpt = e10; /* |d| = 0.DIG * 10^decpt */
    if (decpt <= -4 || decpt > 16) {
        out[k++] = dig[0];
        if (nd > 1) {
            out[k++] = '.';
            memcpy(out + k, dig + 1, (size_t)nd - 1);
            k += (size_t)nd - 1;
        }
        k += (size_t)snprintf(out + k, 40 - k, "e%+03d", decpt - 1);
        return k;
    }
    if (decpt <= 0) {
        out[k++] = '0';
        out[k++] = '.';
        for (int i = 0; i < -decpt; i++)
            out[k++] = '0';
        memcpy(out + k, dig, (size_t)nd);
        k += (size_t)nd;
    } else if (decpt < nd) {
        memcpy(out + k, dig, (size_t)decpt);
        k += (size_t)decpt;
        out[k++] = '.';
        memcpy(out + k, dig + decpt, (size_t)(nd - decpt));
        k += (size_t)(nd - decpt);
    } else {
        memcpy(out + k, dig, (size_t)nd);
        k += (size_t)nd;
        for (int i = nd; i < decpt; i++)
            out[k++] = '0';
        out[k++] = '.';
        out[k++] = '0';
    }
    out[k] = 0;
    return k;
}

void mcp_py_float_repr(mcp_buf *b, double d)
{
    char tmp[40];
    mcp_buf_put(b, tmp, py_float(d, tmp));
}

const char *mcp_json_py_type(const mcp_json *v)
{
    if (!v)
        return "NoneType";
    switch (v->kind) {
    case MCP_JNULL:
        return "NoneType";
    case MCP_JBOOL:
        return "bool";
    case MCP_JINT:
    case MCP_JBIGINT:
        return "int";
    case MCP_JFLOAT:
        return "float";
    case MCP_JSTRING:
        return "str";
    case MCP_JARRAY:
        return "list";
    case MCP_JOBJECT:
        return "dict";
    }
    return "NoneType";
}

/* ---- strings ------------------------------------------------------------ */

/* The code points Python's str.isprintable() rejects, beyond ASCII: Python
 * 3.11's (Unicode 14.0) categories Cc, Cf, Zs (but the space), Zl, Zp, Co,
 * and Cs, plus those unassigned code points that stay unassigned in every
 * Unicode version so far: the noncharacters, planes 4 to 13 and the gaps of
 * plane 14; and U+13439..U+1343F (unassigned in 14.0, format controls since
 * 15.0: non-printable either way). Other unassigned code points are
 * non-printable to Python too, but which ones depends on its Unicode version:
 * they stay raw here (the approximation: newer Pythons print many of them). */
static const uint32_t nonprintable[][2] = {
    {0x80, 0xa0},       {0xad, 0xad},       {0x600, 0x605},     {0x61c, 0x61c},      {0x6dd, 0x6dd},
    {0x70f, 0x70f},     {0x890, 0x891},     {0x8e2, 0x8e2},     {0x1680, 0x1680},    {0x180e, 0x180e},
    {0x2000, 0x200f},   {0x2028, 0x202f},   {0x205f, 0x2064},   {0x2066, 0x206f},    {0x3000, 0x3000},
    {0xd800, 0xf8ff},   {0xfdd0, 0xfdef},   {0xfeff, 0xfeff},   {0xfff9, 0xfffb},    {0xfffe, 0xffff},
    {0x110bd, 0x110bd}, {0x110cd, 0x110cd}, {0x13430, 0x1343f}, {0x1bca0, 0x1bca3},  {0x1d173, 0x1d17a},
    {0x1fffe, 0x1ffff}, {0x2fffe, 0x2ffff}, {0x3fffe, 0xe00ff}, {0xe01f0, 0x10ffff},
};

static bool printable(uint32_t cp)
{
    size_t lo = 0, hi = sizeof nonprintable / sizeof nonprintable[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < nonprintable[mid][0])
            hi = mid;
        else if (cp > nonprintable[mid][1])
            lo = mid + 1;
        else
            return false;
    }
    return true;
}


/* The character of s[0..n) that ends at e (0 < e <= n): its length. A valid
 * sequence is unique where it ends (a continuation byte never starts one), so
 * this cuts s exactly as the forward walk does: a byte of no valid sequence
 * is a character of its own. *bad set for such a byte. */
static size_t utf8_last(const unsigned char *s, size_t e, uint32_t *cp, bool *bad)
{
    for (size_t k = 1; k <= 4 && k <= e; k++) {
        if (mcp_utf8_seq(s + e - k, k, cp, NULL) == k) {
            *bad = false;
            return k;
        }
    }
    *bad = true;
    *cp = s[e - 1];
    return 1;
}

/* The quote Python's repr picks: ' unless s holds a ' and no ". */
static char pick_quote(const char *s, size_t n)
{
    if (n && memchr(s, '\'', n) && !memchr(s, '"', n))
        return '"';
    return '\'';
}

/* How the character cp (a byte of invalid UTF-8 when bad) appears in a repr
 * quoted with q: its escape into out, or 0 when it stays as it is. */
static size_t py_escape(uint32_t cp, bool bad, char q, char out[12])
{
    static const char hex[] = "0123456789abcdef";
    if (bad) /* surrogateescape: the byte as U+DC80..U+DCFF */
        cp = 0xdc00 + cp;
    if (cp == (uint32_t)q || cp == '\\') {
        out[0] = '\\';
        out[1] = (char)cp;
        return 2;
    }
    if (cp == '\t' || cp == '\n' || cp == '\r') {
        out[0] = '\\';
        out[1] = cp == '\t' ? 't' : cp == '\n' ? 'n' : 'r';
        return 2;
    }
    size_t digits;
    if (cp < 0x20 || cp == 0x7f) {
        out[1] = 'x';
        digits = 2;
    } else if (cp < 0x7f || printable(cp)) {
        return 0;
    } else if (cp <= 0xff) {
        out[1] = 'x';
        digits = 2;
    } else if (cp <= 0xffff) {
        out[1] = 'u';
        digits = 4;
    } else {
        out[1] = 'U';
        digits = 8;
    }
    out[0] = '\\';
    for (size_t i = 0; i < digits; i++)
        out[2 + i] = hex[(cp >> (4 * (digits - 1 - i))) & 15];
    return 2 + digits;
}

/* ---- the forward walk --------------------------------------------------- */

/* Output into b, of at most `limit` bytes from b->len at the start (SIZE_MAX:
 * no limit). `full` once the limit is reached: the walk stops. */
typedef struct {
    mcp_buf *b;
    size_t start, limit;
    bool full;
} fsink;

static size_t froom(const fsink *s) { return s->limit - (s->b->len - s->start); }

static void fput(fsink *s, const char *p, size_t n)
{
    if (s->full)
        return;
    size_t room = froom(s);
    if (n >= room) {
        n = room;
        s->full = true;
    }
    mcp_buf_put(s->b, p, n);
    if (s->b->oom)
        s->full = true;
}

static void fstr(fsink *s, const char *str, size_t n)
{
    const unsigned char *p = (const unsigned char *)str;
    char q = pick_quote(str, n);
    fput(s, &q, 1);
    size_t run = 0, i = 0; /* p[run..i) waits to be copied as it is */
    while (i < n && !s->full) {
        uint32_t cp;
        size_t k = mcp_utf8_seq(p + i, n - i, &cp, NULL);
        bool bad = k == 0;
        if (bad) {
            cp = p[i];
            k = 1;
        }
        char esc[12];
        size_t e = py_escape(cp, bad, q, esc);
        if (!e) {
            i += k;
            if (i - run >= froom(s)) { /* enough to fill the output */
                fput(s, str + run, i - run);
                run = i;
            }
            continue;
        }
        fput(s, str + run, i - run);
        fput(s, esc, e);
        i += k;
        run = i;
    }
    fput(s, str + run, i - run);
    fput(s, &q, 1);
}

/* A scalar's repr (not a string's, not a container's) into tmp, or a pointer
 * to its text: *len its length. */
static const char *scalar_repr(const mcp_json *v, char tmp[40], size_t *len)
{
    switch (v->kind) {
    case MCP_JBOOL:
        *len = v->b ? 4 : 5;
        return v->b ? "True" : "False";
    case MCP_JINT:
        *len = (size_t)snprintf(tmp, 40, "%" PRId64, v->i);
        return tmp;
    case MCP_JBIGINT:
        *len = v->s ? v->len : 0;
        return v->s ? v->s : "";
    case MCP_JFLOAT:
        *len = py_float(v->d, tmp);
        return tmp;
    default:
        *len = 4;
        return "None";
    }
}

typedef struct {
    const mcp_json *v;
    size_t i;
    int phase; /* backward walk, objects: 1 while a member's value is out */
} rframe;

/* A growable frame stack: rframe inl[] first, then the heap. */
typedef struct {
    rframe *p;
    size_t n, cap;
    rframe *inl;
} fstack;

static bool fs_push(fstack *st, rframe f)
{
    if (st->n == st->cap) {
        size_t c = st->cap * 2;
        if (c < st->cap || c > SIZE_MAX / sizeof *st->p)
            return false;
        rframe *q = st->p == st->inl ? malloc(c * sizeof *q) : realloc(st->p, c * sizeof *q);
        if (!q)
            return false;
        if (st->p == st->inl)
            memcpy(q, st->inl, st->n * sizeof *q);
        st->p = q;
        st->cap = c;
    }
    st->p[st->n++] = f;
    return true;
}

static void fs_free(fstack *st)
{
    if (st->p != st->inl)
        free(st->p);
}

/* The forward walk: the repr of v into s, until s is full. False when the
 * heap cannot hold the stack. */
static bool fwalk(fsink *s, const mcp_json *v)
{
    rframe inl[32];
    fstack st = {inl, 0, 32, inl};
    bool ok = true;
    for (;;) {
        if (!v) {
            fput(s, "None", 4);
        } else if (v->kind == MCP_JSTRING) {
            fstr(s, v->s ? v->s : "", v->s ? v->len : 0);
        } else if (v->kind == MCP_JARRAY || v->kind == MCP_JOBJECT) {
            bool arr = v->kind == MCP_JARRAY;
            if (!v->n) {
                fput(s, arr ? "[]" : "{}", 2);
            } else if (!fs_push(&st, (rframe){v, 0, 0})) {
                ok = false;
                break;
            } else {
                fput(s, arr ? "[" : "{", 1);
            }
        } else {
            char tmp[40];
            size_t n;
            const char *p = scalar_repr(v, tmp, &n);
            fput(s, p, n);
        }
        /* The next value. */
        bool next = false;
        while (st.n && !s->full) {
            rframe *f = &st.p[st.n - 1];
            if (f->i == f->v->n) {
                fput(s, f->v->kind == MCP_JARRAY ? "]" : "}", 1);
                st.n--;
                continue;
            }
            if (f->i)
                fput(s, ", ", 2);
            if (f->v->kind == MCP_JARRAY) {
                v = f->v->items[f->i++];
            } else {
                const mcp_json_member *m = &f->v->members[f->i++];
                fstr(s, m->key ? m->key : "", m->key ? m->key_len : 0);
                fput(s, ": ", 2);
                v = m->value;
            }
            next = true;
            break;
        }
        if (!next || s->full)
            break;
    }
    fs_free(&st);
    return ok;
}

void mcp_json_py_repr(mcp_buf *b, const mcp_json *v)
{
    fsink s = {b, b->len, SIZE_MAX, false};
    if (!fwalk(&s, v))
        b->oom = true;
}

/* ---- the backward walk -------------------------------------------------- */

/* The last bytes of a repr, gathered from its end: buf[pos..sizeof buf),
 * always starting on a character, at least `want` bytes once full. */
typedef struct {
    char buf[64];
    size_t pos, want;
    bool full;
} rsink;

/* Put p[0..n) (whole characters of UTF-8, or ASCII) before what is there,
 * as much of its end as is wanted. */
static void rput(rsink *s, const char *p, size_t n)
{
    if (s->full)
        return;
    size_t have = sizeof s->buf - s->pos;
    size_t take = n;
    if (take > s->want - have) {
        take = s->want - have;
        while (take > 0 && take < n && ((unsigned char)p[n - take] & 0xc0) == 0x80)
            take++; /* do not split a character */
    }
    s->pos -= take;
    memcpy(s->buf + s->pos, p + n - take, take);
    if (sizeof s->buf - s->pos >= s->want)
        s->full = true;
}

static void rstr(rsink *s, const char *str, size_t n)
{
    const unsigned char *p = (const unsigned char *)str;
    char q = pick_quote(str, n);
    rput(s, &q, 1);
    size_t e = n;
    while (e > 0 && !s->full) {
        uint32_t cp;
        bool bad;
        size_t k = utf8_last(p, e, &cp, &bad);
        char esc[12];
        size_t m = py_escape(cp, bad, q, esc);
        if (m)
            rput(s, esc, m);
        else
            rput(s, str + e - k, k);
        e -= k;
    }
    rput(s, &q, 1);
}

static bool rwalk(rsink *s, const mcp_json *v)
{
    rframe inl[32];
    fstack st = {inl, 0, 32, inl};
    bool ok = true;
    for (;;) {
        if (!v) {
            rput(s, "None", 4);
        } else if (v->kind == MCP_JSTRING) {
            rstr(s, v->s ? v->s : "", v->s ? v->len : 0);
        } else if (v->kind == MCP_JARRAY || v->kind == MCP_JOBJECT) {
            bool arr = v->kind == MCP_JARRAY;
            if (!v->n) {
                rput(s, arr ? "[]" : "{}", 2);
            } else if (!fs_push(&st, (rframe){v, v->n, 0})) {
                ok = false;
                break;
            } else {
                rput(s, arr ? "]" : "}", 1);
            }
        } else {
            char tmp[40];
            size_t n;
            const char *p = scalar_repr(v, tmp, &n);
            rput(s, p, n);
        }
        bool next = false;
        while (st.n && !s->full) {
            rframe *f = &st.p[st.n - 1];
            bool arr = f->v->kind == MCP_JARRAY;
            if (!arr && f->phase) { /* the value of member i is out: its key */
                const mcp_json_member *m = &f->v->members[f->i];
                rput(s, ": ", 2);
                rstr(s, m->key ? m->key : "", m->key ? m->key_len : 0);
                f->phase = 0;
                continue;
            }
            if (f->i == 0) {
                rput(s, arr ? "[" : "{", 1);
                st.n--;
                continue;
            }
            if (f->i < f->v->n)
                rput(s, ", ", 2);
            f->i--;
            if (arr) {
                v = f->v->items[f->i];
            } else {
                f->phase = 1;
                v = f->v->members[f->i].value;
            }
            next = true;
            break;
        }
        if (!next || s->full)
            break;
    }
    fs_free(&st);
    return ok;
}

/* ---- the short form ----------------------------------------------------- */

enum { REPR_MAX = 50, REPR_HEAD = 25, REPR_TAIL = 24 };

static bool utf8_boundary(unsigned char c) { return (c & 0xc0) != 0x80; }

void mcp_json_py_repr_short(mcp_buf *b, const mcp_json *v)
{
    /* The first REPR_MAX + 1 bytes say whether the repr is longer. */
    size_t start = b->len;
    fsink fs = {b, start, REPR_MAX + 1, false};
    if (!fwalk(&fs, v)) {
        b->oom = true;
        return;
    }
    if (b->oom || b->len - start <= REPR_MAX)
        return;
    /* pydantic-core: &val[0..floor_char_boundary(val, 25)] + "..." +
     * &val[ceil_char_boundary(val, len - 24)..]. */
    const unsigned char *h = (const unsigned char *)b->data + start;
    size_t head = REPR_HEAD;
    while (head > 0 && !utf8_boundary(h[head]))
        head--;
    b->len = start + head;
    b->data[b->len] = 0;
    mcp_buf_put(b, "...", 3);
    rsink rs = {.pos = sizeof rs.buf, .want = REPR_TAIL, .full = false};
    if (!rwalk(&rs, v)) {
        b->oom = true;
        return;
    }
    size_t have = sizeof rs.buf - rs.pos;
    size_t t = rs.pos + (have > REPR_TAIL ? have - REPR_TAIL : 0);
    while (t < sizeof rs.buf && !utf8_boundary((unsigned char)rs.buf[t]))
        t++;
    mcp_buf_put(b, rs.buf + t, sizeof rs.buf - t);
}
