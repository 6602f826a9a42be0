/* json_scan.h (internal): the strict JSON scanner every input byte passes.
 *
 * A pull tokenizer over a byte range (not NUL-terminated; it never reads
 * past len) that accepts exactly RFC 8259 JSON text: no leading zeros, no
 * '+' or bare '.', no NaN or Infinity, no comments, no trailing commas, no
 * single quotes, whitespace only space, tab, CR and LF, one value and nothing
 * after it, strings of valid UTF-8 (RFC 3629) with valid escapes and no lone
 * surrogate. Integers beyond int64 are kept as text (MCP_JSON_BIGINT); a
 * float literal too large for a double is an error. Nesting is limited, and
 * so may be the length of strings and arrays (mcp_json_limits).
 *
 * The tokenizer does not see duplicate keys (that needs memory);
 * mcp_json_validate() checks a whole text, duplicates included.
 *
 * Nothing here allocates but mcp_json_validate(), which returns
 * MCP_JSON_E_NOMEM when it cannot. Nothing aborts on any input.
 */
#ifndef MCPIDL_INTERNAL_JSON_SCAN_H
#define MCPIDL_INTERNAL_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcpidl/json.h" /* mcp_json_err, mcp_json_limits */

/* Token kinds. */
typedef enum mcp_json_tok {
    MCP_JSON_ERROR = 0, /* sc->err, sc->err_offset; every later call returns it again */
    MCP_JSON_END,       /* after the value and trailing whitespace; returned again after */
    MCP_JSON_OBJ_BEGIN,
    MCP_JSON_OBJ_END,
    MCP_JSON_ARR_BEGIN,
    MCP_JSON_ARR_END,
    MCP_JSON_KEY, /* an object key; its ':' is consumed with the next token */
    MCP_JSON_STRING,
    MCP_JSON_INT,    /* an integer literal that fits int64: tok.i */
    MCP_JSON_BIGINT, /* an integer literal beyond int64: tok.text only */
    MCP_JSON_FLOAT,  /* a literal with a fraction or an exponent: tok.d (finite) */
    MCP_JSON_TRUE,
    MCP_JSON_FALSE,
    MCP_JSON_NULL,
} mcp_json_tok;

/* The token just returned. */
typedef struct mcp_json_token {
    mcp_json_tok kind;
    size_t offset; /* of its first byte (a string's opening quote) */
    /* Strings and keys: the raw bytes between the quotes, escapes not
     * decoded. Numbers: the literal as written. Otherwise NULL, 0. */
    const char *text;
    size_t len;
    size_t unescaped_len; /* strings and keys: the length mcp_json_unescape gives */
    bool has_escapes;     /* strings and keys: text holds a '\\' */
    bool has_nul;         /* strings and keys: a \u0000 escape (valid JSON; callers
                         * that keep C strings reject it) */
    int64_t i;            /* MCP_JSON_INT */
    double d;             /* MCP_JSON_FLOAT */
} mcp_json_token;

typedef struct mcp_json_scanner {
    /* Read these. */
    mcp_json_token tok;
    mcp_json_err err;  /* MCP_JSON_OK until an error */
    size_t err_offset; /* where the error was found (len at end of input) */
    int depth;         /* containers open after the last token */
    /* Private. */
    const char *text;
    size_t len;
    size_t pos;
    int max_depth;
    size_t max_string; /* SIZE_MAX: no limit */
    size_t max_array;  /* SIZE_MAX: no limit */
    size_t max_values; /* SIZE_MAX: no limit */
    size_t nvalues;    /* values begun so far */
    int state;
    uint64_t is_array[MCP_JSON_DEPTH_CAP / 64]; /* per open container: array or object */
    /* Per open container: the elements of an array so far. Last, so that
     * mcp_json_scan_init need not clear it (an entry is set as it opens). */
    size_t items[MCP_JSON_DEPTH_CAP];
} mcp_json_scanner;

/* Scan text[0..len); lim may be NULL for the defaults. text may be NULL when
 * len is 0. The text must outlive the scanner: tokens point into it. */
void mcp_json_scan_init(mcp_json_scanner *sc, const char *text, size_t len, const mcp_json_limits *lim);
/* The next token; its data in sc->tok. */
mcp_json_tok mcp_json_next(mcp_json_scanner *sc);
/* After mcp_json_next returned t: when t opens a container, read up to and
 * including its end. Returns the last token read (t itself for a scalar), or
 * MCP_JSON_ERROR. For dropping a value the caller does not want. */
mcp_json_tok mcp_json_skip(mcp_json_scanner *sc, mcp_json_tok t);

/* Decode the escapes of a string token's raw text (tok.text, tok.len) into
 * out, which has room for n bytes: the result is never longer than the raw
 * text. Returns the decoded length (tok.unescaped_len). Not NUL-terminated.
 * Meant for text the scanner accepted; other input gives some bytes but
 * never reads or writes out of bounds. */
size_t mcp_json_unescape(const char *raw, size_t n, char *out);

#endif
