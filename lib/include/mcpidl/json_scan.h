/* json_scan.h: the strict JSON scanner every input byte passes.
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
#ifndef MCPIDL_JSON_SCAN_H
#define MCPIDL_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Token kinds. */
typedef enum mcp_json_tok {
    MCP_JSON_ERROR = 0,  /* sc->err, sc->err_offset; every later call returns it again */
    MCP_JSON_END,        /* after the value and trailing whitespace; returned again after */
    MCP_JSON_OBJ_BEGIN,
    MCP_JSON_OBJ_END,
    MCP_JSON_ARR_BEGIN,
    MCP_JSON_ARR_END,
    MCP_JSON_KEY,        /* an object key; its ':' is consumed with the next token */
    MCP_JSON_STRING,
    MCP_JSON_INT,        /* an integer literal that fits int64: tok.i */
    MCP_JSON_BIGINT,     /* an integer literal beyond int64: tok.text only */
    MCP_JSON_FLOAT,      /* a literal with a fraction or an exponent: tok.d (finite) */
    MCP_JSON_TRUE,
    MCP_JSON_FALSE,
    MCP_JSON_NULL,
} mcp_json_tok;

/* Error codes; mcp_json_error_str() gives the message. */
typedef enum mcp_json_err {
    MCP_JSON_OK = 0,
    MCP_JSON_E_EOF,             /* the text ends inside a value */
    MCP_JSON_E_VALUE,           /* a value was expected (also NaN, 'x', +1, .5) */
    MCP_JSON_E_LITERAL,         /* a misspelt true, false or null */
    MCP_JSON_E_KEY,             /* a string key was expected */
    MCP_JSON_E_COLON,           /* ':' was expected after a key */
    MCP_JSON_E_COMMA,           /* ',' or the closing bracket was expected */
    MCP_JSON_E_TRAILING_COMMA,  /* a ',' right before ']' or '}' */
    MCP_JSON_E_NUMBER,          /* a malformed number: 01, 1., 1e, -x */
    MCP_JSON_E_NUMBER_RANGE,    /* a float literal beyond the range of double */
    MCP_JSON_E_CONTROL,         /* a raw control character (< 0x20) in a string */
    MCP_JSON_E_ESCAPE,          /* an invalid escape sequence */
    MCP_JSON_E_SURROGATE,       /* a \u escape of a lone surrogate */
    MCP_JSON_E_UTF8,            /* invalid UTF-8 in a string */
    MCP_JSON_E_DEPTH,           /* nesting deeper than the limit */
    MCP_JSON_E_TRAILING,        /* more text after the value */
    MCP_JSON_E_DUPLICATE_KEY,   /* mcp_json_validate only: a key repeated in one object */
    MCP_JSON_E_NOMEM,           /* mcp_json_validate only */
    MCP_JSON_E_STRING_LIMIT,    /* a string or key longer than max_string (unescaped bytes) */
    MCP_JSON_E_ARRAY_LIMIT,     /* an array of more than max_array elements */
    MCP_JSON_E_VALUE_LIMIT,     /* more than max_values values in the text */
} mcp_json_err;

/* "unexpected end of input", ...; never NULL. */
const char *mcp_json_error_str(mcp_json_err err);

#define MCP_JSON_DEFAULT_MAX_DEPTH 128
#define MCP_JSON_DEPTH_CAP 4096

typedef struct mcp_json_limits {
    /* The most containers open at once: 1 allows "[1]" but not "[[1]]"; a
     * scalar alone has depth 0. <= 0 means MCP_JSON_DEFAULT_MAX_DEPTH; values
     * above MCP_JSON_DEPTH_CAP are taken as the cap. */
    int max_depth;
    /* The longest string or object key, in bytes after unescaping ("\u00e9"
     * counts 2, as its UTF-8 does). 0: no limit but the text's length. The
     * error's offset is the string's opening quote. */
    size_t max_string;
    /* The most elements in one array. 0: no limit. The error's offset is the
     * first element beyond the limit. */
    size_t max_array;
    /* The most values in the whole text, containers and object members'
     * values included: what bounds the memory of a parsed tree (a value is
     * a node of about 100 bytes, for as little as 2 bytes of text). 0: no
     * limit. The error's offset is the first value beyond the limit. */
    size_t max_values;
} mcp_json_limits;

/* The token just returned. */
typedef struct mcp_json_token {
    mcp_json_tok kind;
    size_t offset;      /* of its first byte (a string's opening quote) */
    /* Strings and keys: the raw bytes between the quotes, escapes not
     * decoded. Numbers: the literal as written. Otherwise NULL, 0. */
    const char *text;
    size_t len;
    size_t unescaped_len; /* strings and keys: the length mcp_json_unescape gives */
    bool has_escapes;   /* strings and keys: text holds a '\\' */
    bool has_nul;       /* strings and keys: a \u0000 escape (valid JSON; callers
                         * that keep C strings reject it) */
    int64_t i;          /* MCP_JSON_INT */
    double d;           /* MCP_JSON_FLOAT */
} mcp_json_token;

typedef struct mcp_json_scanner {
    /* Read these. */
    mcp_json_token tok;
    mcp_json_err err;       /* MCP_JSON_OK until an error */
    size_t err_offset;      /* where the error was found (len at end of input) */
    int depth;              /* containers open after the last token */
    /* Private. */
    const char *text;
    size_t len;
    size_t pos;
    int max_depth;
    size_t max_string;      /* SIZE_MAX: no limit */
    size_t max_array;       /* SIZE_MAX: no limit */
    size_t max_values;      /* SIZE_MAX: no limit */
    size_t nvalues;         /* values begun so far */
    int state;
    uint64_t is_array[MCP_JSON_DEPTH_CAP / 64]; /* per open container: array or object */
    /* Per open container: the elements of an array so far. Last, so that
     * mcp_json_scan_init need not clear it (an entry is set as it opens). */
    size_t items[MCP_JSON_DEPTH_CAP];
} mcp_json_scanner;

/* Scan text[0..len); lim may be NULL for the defaults. text may be NULL when
 * len is 0. The text must outlive the scanner: tokens point into it. */
void mcp_json_scan_init(mcp_json_scanner *sc, const char *text, size_t len,
                        const mcp_json_limits *lim);
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

/* Judge a whole text: everything the scanner checks, plus duplicate keys in
 * any object (keys compared after unescaping). Returns MCP_JSON_OK or the
 * first error in text order, its offset in *err_offset (may be NULL); for a
 * duplicate, the offset of the repeated key's opening quote. Takes time
 * O(n log n) in the number of keys, and memory O(keys of the open objects). */
mcp_json_err mcp_json_validate(const char *text, size_t len, const mcp_json_limits *lim,
                               size_t *err_offset);

#endif
