/* jsonw.c: JSON text writing: strings, integers and doubles as pydantic-core
 * writes them. */
#include "mcpidl/jsonw.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- strings ------------------------------------------------------------ */

/* What each byte becomes: 0 = itself, 'u' = \u00XX, else the letter after '\'. */
static const char esc_table[256] = {
    ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r', [0x00] = 'u',  [0x01] = 'u',
    [0x02] = 'u', [0x03] = 'u', [0x04] = 'u', [0x05] = 'u', [0x06] = 'u', [0x07] = 'u',  [0x0b] = 'u',
    [0x0e] = 'u', [0x0f] = 'u', [0x10] = 'u', [0x11] = 'u', [0x12] = 'u', [0x13] = 'u',  [0x14] = 'u',
    [0x15] = 'u', [0x16] = 'u', [0x17] = 'u', [0x18] = 'u', [0x19] = 'u', [0x1a] = 'u',  [0x1b] = 'u',
    [0x1c] = 'u', [0x1d] = 'u', [0x1e] = 'u', [0x1f] = 'u', ['"'] = '"',  ['\\'] = '\\',
};

/* Whether one of the eight bytes of x needs an escape (esc_table): one
 * below 0x20, a quote or a backslash. Each test is exact about whether some
 * byte matches (the borrows it may spread reach only bytes above one that
 * does). */
static inline bool needs_escape8(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    uint64_t q = x ^ 0x2222222222222222u, bs = x ^ 0x5c5c5c5c5c5c5c5cu;
    return (((x - 0x20 * ones) & ~x) | ((q - ones) & ~q) | ((bs - ones) & ~bs)) & highs;
}

void mcp_json_string(mcp_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    /* The common case, nothing to escape: one reservation, the bytes copied
     * as they are checked (eight at a time while none needs an escape), and
     * written over by the general case below when one does. */
    if (n < SIZE_MAX - 2 && mcp_buf_reserve(b, n + 2)) {
        char *o = b->data + b->len + 1;
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t x;
            memcpy(&x, p + i, sizeof x);
            if (needs_escape8(x))
                break;
            memcpy(o + i, &x, sizeof x);
        }
        for (; i < n && !esc_table[p[i]]; i++)
            o[i] = (char)p[i];
        if (i == n) {
            o[-1] = '"';
            o[n] = '"';
            b->len += n + 2;
            b->data[b->len] = 0;
            return;
        }
    }
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

/* b->data[start..len) made the literal mcp_json_string writes for it, where
 * it stands: the text grows from the end backwards, so nothing is copied
 * twice and nothing else is allocated. For text the library just wrote into
 * an answer (a content block of indented JSON). */
void mcp_json_string_in_place(mcp_buf *b, size_t start)
{
    static const char hex[] = "0123456789abcdef";
    if (b->oom || start > b->len)
        return;
    size_t n = b->len - start, extra = 2;
    for (size_t i = 0; i < n; i++) {
        char e = esc_table[(unsigned char)b->data[start + i]];
        extra += !e ? 0 : e == 'u' ? 5 : 1;
    }
    if (!mcp_buf_reserve(b, extra))
        return;
    unsigned char *p = (unsigned char *)b->data + start;
    size_t o = n + extra; /* one past the last byte of the literal */
    p[--o] = '"';
    for (size_t i = n; i-- > 0;) {
        unsigned char c = p[i];
        char e = esc_table[c];
        if (!e) {
            p[--o] = c;
        } else if (e == 'u') {
            p[--o] = (unsigned char)hex[c & 15];
            p[--o] = (unsigned char)hex[c >> 4];
            p[--o] = '0';
            p[--o] = '0';
            p[--o] = 'u';
            p[--o] = '\\';
        } else {
            p[--o] = (unsigned char)e;
            p[--o] = '\\';
        }
    }
    p[--o] = '"'; /* o == 0 */
    b->len += extra;
    b->data[b->len] = 0;
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
        x->d[i]--;            /* i >= 0: d[0] != '0' */
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

/* The powers of ten that are exact doubles. */
static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The fast path of mcp_double_shortest, for v > 0 whose rounding interval is
 * symmetric (not a power of two) and whose shortest digits are at most 15
 * with a decimal exponent the table above covers: the common case (16.2,
 * 0.83, 1013.25). Returns 0 when it cannot decide; the exact search then
 * does.
 *
 * For a decimal exponent q, an integer c < 2^53 read back as c * 10^q is
 * one correctly rounded operation on exact operands (Clinger's fast path),
 * so `back == v` is exact. The integer N nearest to v / 10^q is the only
 * candidate at q that needs a look: when any c * 10^q reads back as v (lies
 * in v's symmetric rounding interval), so does N. The estimate D of N is one
 * correctly rounded multiplication or division off the exact quotient, less
 * than 1 away while it is below 2^53, so N is D - 1, D or D + 1; when two of
 * those read back (a tie, or an interval wider than 10^q), the exact search
 * picks the closest. Going from the largest q down, the first q with a hit
 * has the fewest digits, as the existing search defines it (monotone: c at
 * q + 1 is 10c at q). */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
/* One level q: 1 with *found the one c that reads back, 0 when none does,
 * -1 when the level cannot decide (beyond the table, 2^53, or two hits). */
static int level_hit(double v, int q, double *found)
{
    if (q < -22 || q > 22)
        return -1;
    double scaled = q < 0 ? v * POW10[-q] : v / POW10[q];
    if (!(scaled < 9007199254740992.0)) /* 2^53 */
        return -1;
    /* floor(scaled + 0.5), by truncation: 0 <= scaled + 0.5 < 2^53 + 1 */
    double d = (double)(uint64_t)(scaled + 0.5);
    /* No candidate at q when the quotient is farther from an integer than
     * v's half-interval and the quotient's error (each below scaled *
     * 2^-52) together, with room to spare: the common case of the levels
     * above the answer, decided without a division. */
    if (fabs(scaled - d) > scaled * 0x1p-50)
        return 0;
    int hits = 0;
    for (int i = -1; i <= 1; i++) {
        double c = d + i;
        if (c <= 0)
            continue;
        double back = q < 0 ? c / POW10[-q] : c * POW10[q];
        if (back == v) {
            hits++;
            *found = c;
        }
    }
    return hits > 1 ? -1 : hits;
}

/* The digits of c * 10^q, c an integer that reads back: its trailing zeros
 * dropped; 0 when more than 17. */
static int level_digits(double c, int q, char out[32], int *exp10)
{
    uint64_t u = (uint64_t)c;
    int zeros = 0;
    if (u % 100000000 == 0) { /* many at once: the 15-digit level has plenty */
        u /= 100000000;
        zeros += 8;
    }
    if (u % 10000 == 0) {
        u /= 10000;
        zeros += 4;
    }
    while (u % 10 == 0) {
        u /= 10;
        zeros++;
    }
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (n > 17)
        return 0;
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = 0;
    *exp10 = n + zeros + q; /* |v| == 0.DIGITS * 10^exp10 */
    return n;
}

static int shortest_fast(double v, int e2, char out[32], int *exp10)
{
    /* floor(log10(v)) is within one of this; start a step above it. (A
     * floor without a call to libm: x is small, its truncation exact.) */
    double x = (double)(e2 - 1) * 0.30102999566398114;
    int k = (int)x;
    k -= (double)k > x;
    k += 1;
    double found = 0;
    /* The level of 15 significant digits first (v / 10^q below 10^15): its
     * grid is more than four times coarser than v's rounding interval, so at
     * most one c there reads back, and when some shorter decimal reads back,
     * that c is it with zeros appended. A hit there is the answer of the
     * search below, trailing zeros dropped; most values have one. */
    int q15 = k - 15;
    if (q15 >= -22 && q15 <= 21) {
        double scaled = q15 < 0 ? v * POW10[-q15] : v / POW10[q15];
        if (scaled >= 1e15)
            q15++;
        if (level_hit(v, q15, &found) == 1)
            return level_digits(found, q15, out, exp10);
    }
    for (int q = k; q >= k - 16; q--) {
        int hit = level_hit(v, q, &found);
        if (hit < 0)
            return 0;
        if (hit > 0)
            return level_digits(found, q, out, exp10);
    }
    return 0;
}

#endif

int mcp_double_shortest(double v, char out[32], int *exp10)
{
    if (!isfinite(v) || v == 0)
        return 0;
    v = fabs(v);
    /* frexp's exponent (v == m * 2^e2, 0.5 <= m < 1) from the bits, for a
     * normal v; whether v is a power of two above the smallest normal. */
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int biased = (int)(bits >> 52);
    int e2;
    bool lopsided;
    if (biased > 0) {
        e2 = biased - 1022;
        lopsided = (bits & (((uint64_t)1 << 52) - 1)) == 0 && e2 > DBL_MIN_EXP;
    } else {
        lopsided = frexp(v, &e2) == 0.5 && e2 > DBL_MIN_EXP;
    }
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0 /* double arithmetic in double precision (not x87) */
    if (!lopsided) {
        int n = shortest_fast(v, e2, out, exp10);
        if (n > 0)
            return n;
    }
#endif
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
