/* jsonw.c: JSON text writing: strings, integers and doubles as pydantic-core
 * writes them. */
#include "mcpidl/jsonw.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- strings ------------------------------------------------------------ */

/* What each byte becomes: 0 = itself, 'u' = \u00XX, else the letter after '\'. */
static const char esc_table[256] = {
    ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r',
    [0x00] = 'u', [0x01] = 'u', [0x02] = 'u', [0x03] = 'u', [0x04] = 'u',
    [0x05] = 'u', [0x06] = 'u', [0x07] = 'u', [0x0b] = 'u', [0x0e] = 'u',
    [0x0f] = 'u', [0x10] = 'u', [0x11] = 'u', [0x12] = 'u', [0x13] = 'u',
    [0x14] = 'u', [0x15] = 'u', [0x16] = 'u', [0x17] = 'u', [0x18] = 'u',
    [0x19] = 'u', [0x1a] = 'u', [0x1b] = 'u', [0x1c] = 'u', [0x1d] = 'u',
    [0x1e] = 'u', [0x1f] = 'u',
    ['"'] = '"', ['\\'] = '\\',
};

void mcp_json_string(mcp_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    mcp_buf_putc(b, '"');
    size_t run = 0; /* start of the bytes not yet copied */
    for (size_t i = 0; i < n; i++) {
        char e = esc_table[p[i]];
        if (!e)
            continue;
        mcp_buf_put(b, p + run, i - run);
        run = i + 1;
        if (e == 'u') {
            char u[6] = {'\\', 'u', '0', '0', hex[p[i] >> 4], hex[p[i] & 15]};
            mcp_buf_put(b, u, sizeof u);
        } else {
            char two[2] = {'\\', e};
            mcp_buf_put(b, two, sizeof two);
        }
    }
    mcp_buf_put(b, p + run, n - run);
    mcp_buf_putc(b, '"');
}

/* ---- integers ----------------------------------------------------------- */

void mcp_json_int(mcp_buf *b, int64_t v)
{
    char tmp[24];
    char *end = tmp + sizeof tmp, *q = end;
    /* Work on the magnitude as unsigned, so INT64_MIN needs no special case. */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--q = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--q = '-';
    mcp_buf_put(b, q, (size_t)(end - q));
}

/* ---- doubles: shortest round-trip digits -------------------------------- */

/* pydantic-core writes floats as Rust's ryu does (shortest digits, the closest
 * of them; plain for decimal exponents -5..15), except that a positive
 * exponent gets a '+': 1e+16, 1.5e+300, but 1e-7. Checked against
 * pydantic_core.to_json over several million doubles (random bit patterns,
 * every power of two, powers of ten and their neighbours). */

/* A decimal candidate: n significant digits d[0..n) (d[0] != '0') and the
 * exponent e of the first digit: value = d[0].d[1..n) * 10^e. */
typedef struct {
    char d[24];
    int n;
    int e;
} dec;

/* The correctly rounded n-digit decimal of v > 0 (printf is exact on glibc,
 * musl and every C library that conforms to IEEE 754 annex F). Only the
 * digits and the exponent are read from printf, and strtod is given no
 * decimal point, so the locale's decimal point does not matter. */
static bool dec_round(double v, int n, dec *out)
{
    char s[40];
    int len = snprintf(s, sizeof s, "%.*e", n - 1, v);
    if (len <= 0 || (size_t)len >= sizeof s)
        return false;
    /* s is "d.ddde±X" or "de±X" when n == 1. */
    int k = 0;
    const char *p = s;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && k < (int)sizeof out->d)
            out->d[k++] = *p;
    if (*p != 'e' || k != n)
        return false;
    out->n = k;
    out->e = (int)strtol(p + 1, NULL, 10);
    return true;
}

/* The value a decimal reads back as. */
static double dec_read(const dec *x)
{
    char s[48];
    memcpy(s, x->d, (size_t)x->n);
    snprintf(s + x->n, sizeof s - (size_t)x->n, "e%d", x->e - (x->n - 1));
    return strtod(s, NULL);
}

/* x one unit in its last digit up (up) or down, keeping n digits. */
static void dec_step(dec *x, bool up)
{
    int i = x->n - 1;
    if (up) {
        while (i >= 0 && x->d[i] == '9')
            x->d[i--] = '0';
        if (i >= 0) {
            x->d[i]++;
        } else { /* 99..9 -> 100..0 */
            x->d[0] = '1';
            x->e++;
        }
    } else {
        while (i >= 0 && x->d[i] == '0')
            x->d[i--] = '9';
        x->d[i]--; /* i >= 0: d[0] != '0' */
        if (x->d[0] == '0') { /* 10..0 -> 09..9 -> 99..9, one decade down */
            memmove(x->d, x->d + 1, (size_t)x->n - 1);
            x->d[x->n - 1] = '9';
            x->e--;
        }
    }
}

/* An n-digit decimal that reads back as v, the closest to v when several do;
 * false when there is none. The n-digit decimals that read back form an
 * interval around v; the rounded one is the closest of all, so if any reads
 * back, either it does or (only when v's rounding interval is lopsided: a
 * power of two above the smallest normal) its neighbour on the other side of
 * v does. */
static bool dec_find(double v, int n, bool lopsided, dec *out)
{
    if (!dec_round(v, n, out))
        return false;
    double r = dec_read(out);
    if (r == v)
        return true;
    if (!lopsided)
        return false;
    dec other = *out;
    dec_step(&other, r < v);
    if (dec_read(&other) == v) {
        *out = other;
        return true;
    }
    return false;
}

int mcp_double_shortest(double v, char out[32], int *exp10)
{
    if (!isfinite(v) || v == 0)
        return 0;
    v = fabs(v);
    int e2;
    bool lopsided = frexp(v, &e2) == 0.5 && e2 > DBL_MIN_EXP;
    /* Whether some n-digit decimal reads back as v is monotone in n (append a
     * zero), and 17 digits always suffice: binary search for the least n. */
    dec best = {.n = 0};
    int lo = 1, hi = DBL_DECIMAL_DIG;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        dec cand;
        if (dec_find(v, mid, lopsided, &cand)) {
            best = cand;
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    if (best.n != lo && !dec_find(v, lo, lopsided, &best))
        return 0; /* a broken printf/strtod */
    int n = best.n;
    while (n > 1 && best.d[n - 1] == '0')
        n--;
    memcpy(out, best.d, (size_t)n);
    out[n] = 0;
    *exp10 = best.e + 1;
    return n;
}

bool mcp_json_double(mcp_buf *b, double v)
{
    if (!isfinite(v))
        return false;
    char s[48];
    size_t k = 0;
    if (signbit(v))
        s[k++] = '-';
    if (v == 0) {
        memcpy(s + k, "0.0", 3);
        mcp_buf_put(b, s, k + 3);
        return true;
    }
    char d[32];
    int e; /* v == 0.d * 10^e */
    int n = mcp_double_shortest(v, d, &e);
    if (n <= 0) {
        /* Unreachable with a conforming C library; still write a number. */
        int len = snprintf(s + k, sizeof s - k, "%.17g", fabs(v));
        mcp_buf_put(b, s, k + (size_t)(len > 0 ? len : 0));
        return true;
    }
    if (e > 0 && e <= 16) {
        /* 1 <= |v| < 1e16: ddd.ddd, or ddd000.0 */
        if (n <= e) {
            memcpy(s + k, d, (size_t)n);
            k += (size_t)n;
            memset(s + k, '0', (size_t)(e - n));
            k += (size_t)(e - n);
            memcpy(s + k, ".0", 2);
            k += 2;
        } else {
            memcpy(s + k, d, (size_t)e);
            k += (size_t)e;
            s[k++] = '.';
            memcpy(s + k, d + e, (size_t)(n - e));
            k += (size_t)(n - e);
        }
    } else if (e <= 0 && e > -5) {
        /* 1e-5 <= |v| < 1: 0.000ddd */
        memcpy(s + k, "0.", 2);
        k += 2;
        memset(s + k, '0', (size_t)-e);
        k += (size_t)-e;
        memcpy(s + k, d, (size_t)n);
        k += (size_t)n;
    } else {
        /* d[.ddd]e±X */
        s[k++] = d[0];
        if (n > 1) {
            s[k++] = '.';
            memcpy(s + k, d + 1, (size_t)(n - 1));
            k += (size_t)(n - 1);
        }
        int x = e - 1;
        int len = snprintf(s + k, sizeof s - k, "e%c%d", x < 0 ? '-' : '+', x < 0 ? -x : x);
        k += (size_t)len;
    }
    mcp_buf_put(b, s, k);
    return true;
}
