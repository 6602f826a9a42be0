/* seal.c: HMAC-SHA256 tokens (seal.h), on nettle. */
#include "internal/seal.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/base64.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

bool mcp_seal_key_random(mcp_seal_key *key)
{
    size_t got = 0;
    key->len = 32;
    while (got < key->len) {
        ssize_t r = getrandom(key->k + got, key->len - got, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        got += (size_t)r;
    }
    return true;
}

bool mcp_seal_key_file(mcp_seal_key *key, const char *path, const char **why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *why = strerror(errno);
        return false;
    }
    size_t n = 0;
    unsigned char extra;
    bool ok = true;
    for (;;) {
        ssize_t r = n < sizeof key->k ? read(fd, key->k + n, sizeof key->k - n) : read(fd, &extra, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *why = strerror(errno);
            ok = false;
            break;
        }
        if (r == 0)
            break;
        if (n == sizeof key->k) {
            *why = "longer than 256 bytes";
            ok = false;
            break;
        }
        n += (size_t)r;
    }
    close(fd);
    if (ok && n < MCP_SEAL_KEY_MIN) {
        *why = "shorter than 32 bytes";
        ok = false;
    }
    key->len = ok ? n : 0;
    if (!ok)
        memset(key->k, 0, sizeof key->k);
    return ok;
}

void mcp_sha256(const void *p, size_t n, unsigned char out[32])
{
    struct sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, n, p);
    sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

static void mac(const mcp_seal_key *key, const char *p, size_t n, unsigned char out[32])
{
    struct hmac_sha256_ctx c;
    hmac_sha256_set_key(&c, key->len, key->k);
    hmac_sha256_update(&c, n, (const uint8_t *)p);
    hmac_sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

static void put_b64url(mcp_buf *out, const void *p, size_t n)
{
    size_t need = BASE64_ENCODE_LENGTH(n) + BASE64_ENCODE_FINAL_LENGTH;
    size_t at = out->len;
    /* room for the text: append placeholder bytes, then write over them */
    for (size_t i = 0; i < need; i++)
        mcp_buf_putc(out, 0);
    if (out->oom)
        return;
    struct base64_encode_ctx c;
    base64url_encode_init(&c);
    char *dst = out->data + at;
    size_t w = base64_encode_update(&c, dst, n, p);
    w += base64_encode_final(&c, dst + w);
    /* no padding: the token is one word */
    while (w > 0 && dst[w - 1] == '=')
        w--;
    out->len = at + w;
    out->data[out->len] = 0;
}

void mcp_seal(mcp_buf *out, const mcp_seal_key *key, const char *payload, size_t n)
{
    unsigned char m[SHA256_DIGEST_SIZE];
    mac(key, payload, n, m);
    put_b64url(out, payload, n);
    mcp_buf_putc(out, '.');
    put_b64url(out, m, sizeof m);
}

/* base64url text (no padding) into a (NUL-terminated); NULL when malformed. */
static unsigned char *b64url_decode(mcp_arena *a, const char *t, size_t n, size_t *len)
{
    for (size_t i = 0; i < n; i++) {
        char ch = t[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
              ch == '_'))
            return NULL;
    }
    if (n % 4 == 1)
        return NULL;
    unsigned char *out = mcp_arena_alloc(a, BASE64_DECODE_LENGTH(n) + 1);
    if (!out)
        return NULL;
    struct base64_decode_ctx c;
    base64url_decode_init(&c);
    size_t w = BASE64_DECODE_LENGTH(n);
    if (!base64_decode_update(&c, &w, out, n, t))
        return NULL;
    /* bits left over that a canonical encoder would not have written */
    if (c.bits > 0 && (c.word & ((1u << c.bits) - 1)) != 0)
        return NULL;
    out[w] = 0;
    *len = w;
    return out;
}

char *mcp_unseal(mcp_arena *a, const mcp_seal_key *key, const char *token, size_t n, size_t *len, const char **why)
{
    const char *dot = memchr(token, '.', n);
    if (!dot) {
        *why = "is malformed";
        return NULL;
    }
    size_t plen = 0, mlen = 0;
    unsigned char *payload = b64url_decode(a, token, (size_t)(dot - token), &plen);
    unsigned char *m = b64url_decode(a, dot + 1, n - (size_t)(dot + 1 - token), &mlen);
    if (!payload || !m || mlen != SHA256_DIGEST_SIZE) {
        *why = "is malformed";
        return NULL;
    }
    unsigned char want[SHA256_DIGEST_SIZE];
    mac(key, (const char *)payload, plen, want);
    if (!memeql_sec(want, m, sizeof want)) {
        *why = "failed its integrity check";
        return NULL;
    }
    *len = plen;
    return (char *)payload;
}
