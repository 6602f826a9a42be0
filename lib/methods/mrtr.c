/* mrtr.c: multi round-trip requests (2026-07-28): a handler's requests to
 * the client, served from the answers the request carries.
 *
 * A modern tools/call, prompts/get or resources/read runs its handler with
 * the answers the client gave: this round's `inputResponses`, and those of
 * earlier rounds, which the server handed the client in `requestState`. Each
 * request the handler makes has a key (mcp_input_key, or input_N in order);
 * one with an answer gets it, one without becomes an input request of the
 * round. If any did, the run's own result is set aside and the answer is an
 * InputRequiredResult: the input requests, and a new requestState holding
 * every answer used so far. The client retries; the handler runs again.
 *
 * requestState is a sealed token (seal.h): {"v":1,"m":METHOD,"d":DIGEST,
 * "e":EXPIRY,"a":{KEY:ANSWER,...}}, DIGEST the SHA-256 of the request's
 * params (without _meta, inputResponses and requestState) in canonical JSON,
 * EXPIRY the Unix time after which it is refused; and "p", the subject of
 * the authenticated caller, when there is one: another caller's state is
 * refused. A state that does not
 * verify, has expired, or belongs to another request is refused with -32602.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal/methods.h"
#include "internal/seal.h"
#include "mcpidl/jsonw.h"

/* Requests to the client one round may hold. */
#define MAX_INPUTS 32

struct mcp_mrtr {
    const char *method;
    const char *subject; /* the authenticated caller's, or NULL */
    /* The digest of the request's params, computed when first needed (a
     * requestState to check or to write): most requests need neither, and
     * canonical JSON plus SHA-256 would cost them more than the tool call. */
    const mcp_json *params;
    mcp_arena *arena;
    bool have_digest;
    char digest[65];           /* hex */
    const mcp_json *earlier;   /* the answers of requestState ("a"), or NULL */
    const mcp_json *responses; /* inputResponses, or NULL */
    mcp_buf asked;             /* "KEY":{"method":..,"params":..},... */
    mcp_buf kept;              /* "KEY":ANSWER,... */
    size_t nasked, nkept;
    const char *keys[MAX_INPUTS * 2]; /* the keys of this run, for uniqueness */
    size_t nkeys;
    unsigned seq;         /* unnamed requests so far */
    const char *next_key; /* mcp_input_key */
    unsigned missing;     /* MCP_CLIENT_* asked for but not declared */
    /* 2025-11-25's tasks: a tools/call whose requests to the client are
     * real ones, their answers recorded (kept) for the task's run; and a
     * task's run, which cannot ask (only the recorded answers serve). */
    bool record, no_asking;
};

/* ---------------------------------------------------------------- canonical JSON */

typedef struct member_ref {
    const char *key;
    size_t len;
    const mcp_json *v;
} member_ref;

static int member_cmp(const void *x, const void *y)
{
    const member_ref *a = x, *b = y;
    size_t m = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->key, b->key, m);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* v in canonical form: members sorted by key (bytewise), no space; numbers
 * and strings as mcp_json_write writes them. `skip` lists top-level keys
 * left out. */
static bool canon(mcp_buf *b, const mcp_json *v, mcp_arena *a, const char *const *skip)
{
    if (v->kind == MCP_JARRAY) {
        mcp_buf_putc(b, '[');
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                mcp_buf_putc(b, ',');
            if (!canon(b, v->items[i], a, NULL))
                return false;
        }
        mcp_buf_putc(b, ']');
        return true;
    }
    if (v->kind != MCP_JOBJECT)
        return mcp_json_write(b, v, -1) || b->oom;
    member_ref *m = mcp_arena_alloc(a, (v->n ? v->n : 1) * sizeof *m);
    if (!m)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < v->n; i++) {
        bool skipped = false;
        for (size_t k = 0; skip && skip[k]; k++)
            if (v->members[i].key_len == strlen(skip[k]) &&
                memcmp(v->members[i].key, skip[k], v->members[i].key_len) == 0)
                skipped = true;
        if (!skipped)
            m[n++] = (member_ref){v->members[i].key, v->members[i].key_len, v->members[i].value};
    }
    qsort(m, n, sizeof *m, member_cmp);
    mcp_buf_putc(b, '{');
    for (size_t i = 0; i < n; i++) {
        if (i)
            mcp_buf_putc(b, ',');
        mcp_json_string(b, m[i].key, m[i].len);
        mcp_buf_putc(b, ':');
        if (!canon(b, m[i].v, a, NULL))
            return false;
    }
    mcp_buf_putc(b, '}');
    return true;
}

/* ---------------------------------------------------------------- a run */

static int fail(const char **msg, const char *text)
{
    *msg = text;
    return MCP_RPC_INVALID_PARAMS;
}

static void hex(char *out, const unsigned char *p, size_t n)
{
    static const char H[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = H[p[i] >> 4];
        out[2 * i + 1] = H[p[i] & 15];
    }
    out[2 * n] = 0;
}

/* The request's digest as hex (see the top of the file); NULL when out of
 * memory. */
static const char *request_digest(mcp_mrtr *m)
{
    if (m->have_digest)
        return m->digest;
    static const char *const SALIENT_SKIP[] = {"_meta", "inputResponses", "requestState", NULL};
    static const mcp_json EMPTY = {.kind = MCP_JOBJECT};
    mcp_buf c;
    mcp_buf_init(&c);
    bool ok = canon(&c, m->params ? m->params : &EMPTY, m->arena, SALIENT_SKIP) && !c.oom;
    if (ok) {
        unsigned char raw[32];
        mcp_sha256(c.data ? c.data : "", c.len, raw);
        hex(m->digest, raw, sizeof raw);
        m->have_digest = true;
    }
    mcp_buf_free(&c);
    return ok ? m->digest : NULL;
}

/* The answers requestState carries, checked (seal, request, deadline). */
static int open_state(mcp_call *call, const mcp_env *env, const mcp_json *state, const char **msg)
{
    mcp_mrtr *m = call->mrtr;
    if (state->kind != MCP_JSTRING)
        return fail(msg, "Invalid params: requestState must be a string");
    const char *why = NULL;
    size_t len = 0;
    char *payload = mcp_unseal(call->arena, env->state_key, state->s, state->len, &len, &why);
    if (!payload) {
        *msg = mcp_arena_printf(call->arena, "Invalid params: requestState %s", why);
        return MCP_RPC_INVALID_PARAMS;
    }
    mcp_json_err err = MCP_JSON_OK;
    const mcp_json *p = mcp_json_parse(call->arena, payload, len, NULL, &err, NULL);
    const mcp_json *v = mcp_json_get(p, "v"), *method = mcp_json_get(p, "m"), *digest = mcp_json_get(p, "d"),
                   *expiry = mcp_json_get(p, "e"), *answers = mcp_json_get(p, "a");
    /* It verified: only this server wrote it, so a bad shape is a bug or another version. */
    if (!p || !v || v->kind != MCP_JINT || v->i != 1 || !method || method->kind != MCP_JSTRING || !digest ||
        digest->kind != MCP_JSTRING || !expiry || expiry->kind != MCP_JINT || !answers || answers->kind != MCP_JOBJECT)
        return fail(msg, "Invalid params: requestState is not one this server understands");
    const char *want = request_digest(m);
    if (!want)
        return fail(msg, "Internal error: out of memory");
    if (!mcp_json_str_is(method, m->method) || !mcp_json_str_is(digest, want))
        return fail(msg, "Invalid params: requestState belongs to another request");
    const mcp_json *subject = mcp_json_get(p, "p");
    if (m->subject ? !mcp_json_str_is(subject, m->subject) : subject != NULL)
        return fail(msg, "Invalid params: requestState belongs to another caller");
    if (expiry->i < (int64_t)time(NULL))
        return fail(msg, "Invalid params: requestState has expired (send the request again without it)");
    m->earlier = answers;
    return 0;
}

int mcp_mrtr_begin(mcp_call *call, mcp_job *j, const char *method, const char **msg)
{
    call->mrtr = NULL;
    if (!mcp_job_ctx(j)->modern)
        return 0;
    mcp_mrtr *m = mcp_arena_alloc(call->arena, sizeof *m);
    if (!m)
        return fail(msg, "Internal error: out of memory");
    memset(m, 0, sizeof *m);
    m->method = method;
    m->subject = mcp_caller_subject(mcp_job_ctx(j)->caller);
    mcp_buf_init(&m->asked);
    mcp_buf_init(&m->kept);
    call->mrtr = m;
    const mcp_json *params = mcp_job_params(j);
    m->params = params;
    m->arena = call->arena;

    const mcp_json *responses = mcp_json_get(params, "inputResponses");
    if (responses && responses->kind != MCP_JOBJECT)
        return fail(msg, "Invalid params: inputResponses must be an object (the answers, by key)");
    m->responses = responses;
    const mcp_json *state = mcp_json_get(params, "requestState");
    return state ? open_state(call, mcp_job_env(j), state, msg) : 0;
}

/* Whether `answer` is a result of `method` (a client that answers 12345 to
 * an elicitation has not answered it). */
bool mcp_mrtr_answer_fits(const char *method, const mcp_json *answer)
{
    if (!answer || answer->kind != MCP_JOBJECT)
        return false;
    if (strcmp(method, "elicitation/create") == 0) {
        const mcp_json *act = mcp_json_get(answer, "action");
        return mcp_json_str_is(act, "accept") || mcp_json_str_is(act, "decline") || mcp_json_str_is(act, "cancel");
    }
    if (strcmp(method, "sampling/createMessage") == 0)
        return mcp_json_get(answer, "content") != NULL;
    if (strcmp(method, "roots/list") == 0) {
        const mcp_json *roots = mcp_json_get(answer, "roots");
        return roots && roots->kind == MCP_JARRAY;
    }
    return true;
}

static bool key_taken(const mcp_mrtr *m, const char *key)
{
    for (size_t i = 0; i < m->nkeys; i++)
        if (strcmp(m->keys[i], key) == 0)
            return true;
    return false;
}

/* The key of the run's next request: the name given, else input_N; unique. */
static const char *next_key(mcp_call *call)
{
    mcp_mrtr *m = call->mrtr;
    const char *base = m->next_key;
    m->next_key = NULL;
    if (!base)
        base = mcp_arena_printf(call->arena, "input_%u", ++m->seq);
    const char *key = base;
    for (unsigned n = 2; key && key_taken(m, key); n++)
        key = mcp_arena_printf(call->arena, "%s_%u", base, n);
    if (key && m->nkeys < sizeof m->keys / sizeof *m->keys)
        m->keys[m->nkeys++] = key;
    return key;
}

const mcp_json *mcp_mrtr_request(mcp_call *call, const char *method, const char *params, size_t params_len)
{
    mcp_mrtr *m = call->mrtr;
    const char *key = next_key(call);
    if (!key) {
        call->client_error = "out of memory";
        return NULL;
    }
    size_t klen = strlen(key);
    const mcp_json *answer = mcp_json_getn(m->earlier, key, klen);
    if (!mcp_mrtr_answer_fits(method, answer))
        answer = mcp_json_getn(m->responses, key, klen);
    if (mcp_mrtr_answer_fits(method, answer)) {
        if (m->nkept++)
            mcp_buf_putc(&m->kept, ',');
        mcp_json_string(&m->kept, key, klen);
        mcp_buf_putc(&m->kept, ':');
        mcp_json_write(&m->kept, answer, -1);
        call->client_error = NULL;
        return answer;
    }
    if (m->no_asking) {
        call->client_error = mcp_arena_printf(
            call->arena, "%s: no requests to the client in a task of 2025-11-25 (ask before mcp_task_start)", method);
        return NULL;
    }
    if (m->nasked == MAX_INPUTS) {
        call->client_error = mcp_arena_printf(call->arena, "%s: more than %d requests to the client in one round",
                                              method, MAX_INPUTS);
        return NULL;
    }
    if (m->nasked++)
        mcp_buf_putc(&m->asked, ',');
    mcp_json_string(&m->asked, key, klen);
    mcp_buf_puts(&m->asked, ":{\"method\":");
    mcp_json_cstring(&m->asked, method);
    if (params) {
        mcp_buf_puts(&m->asked, ",\"params\":");
        mcp_buf_put(&m->asked, params, params_len);
    }
    mcp_buf_putc(&m->asked, '}');
    call->client_error = mcp_arena_printf(call->arena,
                                          "%s: input required (the client is asked for '%s' and sends "
                                          "the request again)",
                                          method, key);
    return NULL;
}

void mcp_mrtr_missing(mcp_call *call, unsigned capability)
{
    if (call->mrtr)
        call->mrtr->missing |= capability;
}

int mcp_mrtr_end(mcp_call *call, const mcp_env *env, int code, bool failed, mcp_buf *out, const char **msg,
                 mcp_buf *err_data)
{
    mcp_mrtr *m = call->mrtr;
    if (!m)
        return code;
    int rc = code;
    if (m->nasked > 0) {
        /* The round's input requests, and the state the retry brings back. */
        mcp_buf payload;
        mcp_buf_init(&payload);
        const char *digest = request_digest(m);
        if (!digest)
            payload.oom = true;
        mcp_buf_printf(&payload, "{\"v\":1,\"m\":");
        mcp_json_cstring(&payload, m->method);
        mcp_buf_printf(&payload, ",\"d\":\"%s\",\"e\":%lld,\"a\":{", digest ? digest : "",
                       (long long)time(NULL) + env->opt.state_ttl);
        mcp_buf_put(&payload, m->kept.data ? m->kept.data : "", m->kept.len);
        mcp_buf_putc(&payload, '}');
        if (m->subject) {
            mcp_buf_puts(&payload, ",\"p\":");
            mcp_json_cstring(&payload, m->subject);
        }
        mcp_buf_putc(&payload, '}');
        mcp_buf_clear(out);
        mcp_buf_puts(out, "{\"inputRequests\":{");
        mcp_buf_put(out, m->asked.data, m->asked.len);
        mcp_buf_puts(out, "},\"requestState\":\"");
        mcp_seal(out, env->state_key, payload.data ? payload.data : "", payload.len);
        mcp_buf_puts(out, "\"}");
        if (payload.oom)
            out->oom = true;
        mcp_buf_free(&payload);
        rc = MCP_RUN_INPUT_REQUIRED;
    } else if (m->missing && failed) {
        /* The handler could not do without what the client lacks. */
        mcp_buf_clear(err_data);
        mcp_buf_puts(err_data, "{\"requiredCapabilities\":{");
        static const struct {
            unsigned bit;
            const char *name;
        } CAPS[] = {{MCP_CLIENT_SAMPLING, "sampling"},
                    {MCP_CLIENT_ELICITATION, "elicitation"},
                    {MCP_CLIENT_ROOTS, "roots"}};
        bool first = true;
        for (size_t i = 0; i < sizeof CAPS / sizeof *CAPS; i++)
            if (m->missing & CAPS[i].bit) {
                mcp_buf_printf(err_data, "%s\"%s\":{}", first ? "" : ",", CAPS[i].name);
                first = false;
            }
        mcp_buf_puts(err_data, "}}");
        *msg = "Missing required client capability";
        rc = MCP_RPC_MISSING_CAPABILITY;
    }
    if (m->asked.oom || m->kept.oom)
        out->oom = true;
    mcp_buf_free(&m->asked);
    mcp_buf_free(&m->kept);
    call->mrtr = NULL;
    return rc;
}

bool mcp_mrtr_begin_task(mcp_call *call, const mcp_json *answers)
{
    mcp_mrtr *m = mcp_arena_alloc(call->arena, sizeof *m);
    call->mrtr = m;
    if (!m)
        return false;
    memset(m, 0, sizeof *m);
    m->method = "tools/call";
    m->earlier = answers && answers->kind == MCP_JOBJECT ? answers : NULL;
    mcp_buf_init(&m->asked);
    mcp_buf_init(&m->kept);
    return true;
}

bool mcp_mrtr_begin_record(mcp_call *call)
{
    if (!mcp_mrtr_begin_task(call, NULL))
        return false;
    call->mrtr->record = true;
    return true;
}

bool mcp_mrtr_recording(const mcp_call *call) { return call->mrtr && call->mrtr->record; }

void mcp_mrtr_record(mcp_call *call, const mcp_json *answer)
{
    mcp_mrtr *m = call->mrtr;
    const char *key = next_key(call);
    if (!key) {
        m->kept.oom = true;
        return;
    }
    if (m->nkept++)
        mcp_buf_putc(&m->kept, ',');
    mcp_json_string(&m->kept, key, strlen(key));
    mcp_buf_putc(&m->kept, ':');
    mcp_json_write(&m->kept, answer, -1);
}

void mcp_mrtr_no_asking(mcp_call *call)
{
    if (call->mrtr)
        call->mrtr->no_asking = true;
}

size_t mcp_mrtr_peek(const mcp_call *call, mcp_buf *asked, mcp_buf *kept)
{
    const mcp_mrtr *m = call->mrtr;
    if (!m)
        return 0;
    if (asked && m->asked.len)
        mcp_buf_put(asked, m->asked.data, m->asked.len);
    if (kept && m->kept.len)
        mcp_buf_put(kept, m->kept.data, m->kept.len);
    if ((asked && m->asked.oom) || (kept && m->kept.oom)) {
        if (asked)
            asked->oom = true;
        if (kept)
            kept->oom = true;
    }
    return m->nasked;
}

void mcp_mrtr_release(mcp_call *call)
{
    mcp_mrtr *m = call->mrtr;
    if (!m)
        return;
    mcp_buf_free(&m->asked);
    mcp_buf_free(&m->kept);
    call->mrtr = NULL;
}

/* ---------------------------------------------------------------- the handler's API */

void mcp_input_key(mcp_call *call, const char *key)
{
    if (call && call->mrtr)
        call->mrtr->next_key = key ? mcp_arena_strdup(call->arena, key) : NULL;
}

bool mcp_input_pending(const mcp_call *call) { return call && call->mrtr && call->mrtr->nasked > 0; }

static unsigned capability_bit(const char *capability)
{
    if (!capability)
        return 0;
    if (strcmp(capability, "sampling") == 0)
        return MCP_CLIENT_SAMPLING;
    if (strcmp(capability, "elicitation") == 0)
        return MCP_CLIENT_ELICITATION;
    if (strcmp(capability, "roots") == 0)
        return MCP_CLIENT_ROOTS;
    return 0;
}

bool mcp_client_supports(const mcp_call *call, const char *capability)
{
    unsigned bit = capability_bit(capability);
    return call && bit && (mcp_call_client_caps(call) & bit);
}

mcp_status mcp_require_client(mcp_call *call, const char *capability)
{
    if (!call)
        return MCP_ERROR;
    if (mcp_client_supports(call, capability))
        return MCP_OK;
    mcp_mrtr_missing(call, capability_bit(capability));
    return mcp_fail(call, "the client did not declare the %s capability", capability ? capability : "(null)");
}
