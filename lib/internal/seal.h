/* seal.h (internal): tokens that pass through a client and must come back
 * unchanged (MRTR's requestState): the payload in base64url, a '.', and
 * its HMAC-SHA256 under the runtime's key, in base64url. The cryptography is
 * nettle's; nothing here is hand-written but the framing.
 */
#ifndef MCPIDL_INTERNAL_SEAL_H
#define MCPIDL_INTERNAL_SEAL_H

#include <stdbool.h>
#include <stddef.h>

#include "mcpidl/arena.h"
#include "mcpidl/buf.h"

/* The shortest key accepted from a file (--state-key-file), and the most
 * bytes of it used. */
#define MCP_SEAL_KEY_MIN 32
#define MCP_SEAL_KEY_MAX 256

typedef struct mcp_seal_key {
    unsigned char k[MCP_SEAL_KEY_MAX];
    size_t len;
} mcp_seal_key;

/* 32 random bytes (getrandom). False when the system has none to give. */
bool mcp_seal_key_random(mcp_seal_key *key);
/* The key from a file: its bytes (at least MCP_SEAL_KEY_MIN; beyond
 * MCP_SEAL_KEY_MAX, a longer file is refused). False with why (a static
 * message, or errno's) otherwise. */
bool mcp_seal_key_file(mcp_seal_key *key, const char *path, const char **why);

/* SHA-256 of p[0..n). */
void mcp_sha256(const void *p, size_t n, unsigned char out[32]);

/* Append the token of payload[0..n) to out. */
void mcp_seal(mcp_buf *out, const mcp_seal_key *key, const char *payload, size_t n);
/* The payload of token[0..n) (NUL-terminated, in a), or NULL when the token
 * is malformed or its MAC does not verify (*why says which). */
char *mcp_unseal(mcp_arena *a, const mcp_seal_key *key, const char *token, size_t n, size_t *len, const char **why);

#endif
