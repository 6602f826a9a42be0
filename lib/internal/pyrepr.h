/* pyrepr.h (internal): Python's reprs of JSON values, for pydantic's
 * validation reports (codec/pyrepr.c). */
#ifndef MCPIDL_INTERNAL_PYREPR_H
#define MCPIDL_INTERNAL_PYREPR_H

#include "mcpidl/buf.h"
#include "mcpidl/json.h"

/* Python's repr() of the value as the MCP Python SDK would hold it ({'a': 1},
 * [1, 'x'], 'text', None, True, 16.2, 1e-07), for validation reports.
 * Strings as Python's str.__repr__: single quotes unless the text holds a '
 * and no "; \\, the quote, \t \n \r escaped; other controls and DEL as \xNN;
 * non-ASCII raw when Python deems it printable, else \xNN, \uNNNN or
 * \UNNNNNNNN, lowercase. The table of non-printable code points is Python
 * 3.11's (Unicode 14.0) without the unassigned ones, which stay raw (the
 * approximation: Python escapes them, but which they are depends on its
 * Unicode version), except those unassigned in every version so far:
 * noncharacters, planes 4 to 13, the gaps of plane 14 (see pyrepr.c). A byte
 * of invalid UTF-8 (only in hand-built values) shows as Python's
 * surrogateescape would: \udcNN. Without recursion. */
void mcp_json_py_repr(mcp_buf *b, const mcp_json *v);
/* The repr as a pydantic error report shows it (input_value=...): whole when
 * it is at most 50 bytes of UTF-8, else its first 25 bytes and last 24 (each
 * cut moved off a multi-byte character, the head's down and the tail's up)
 * around "...", as pydantic-core's write_truncated_to_limited_bytes. The work
 * is bounded whatever the size of v: only the head and the tail of the repr
 * are produced (but a string's quote choice scans the whole string). */
void mcp_json_py_repr_short(mcp_buf *b, const mcp_json *v);
/* Python's type name of the value: dict, list, str, int (also BIGINT), float,
 * bool, NoneType. */
const char *mcp_json_py_type(const mcp_json *v);
/* Python's repr() of a float (shortest digits; exponent form below 1e-4 and
 * from 1e16 on, with at least two exponent digits: 1e-05, 1e+16; ".0" when
 * integral in plain form: 17.0; nan, inf, -inf, -0.0). */
void mcp_py_float_repr(mcp_buf *b, double d);

#endif
