/* test_auth.c: the HTTP transport as an OAuth 2.1 resource server
 * (lib/transport/auth.c, tls.c) over sockets on 127.0.0.1, with a hand-made
 * server table whose items carry scopes, stub tools that report their
 * caller, tokens minted by jwt_mint.h, and a stand-in authorization server
 * (a libmicrohttpd daemon of the test's own) for JWKS URLs and
 * introspection. The client is libcurl.
 *
 * The catalogue (`catalogue` below) sends each hostile request and checks
 * its exact status and WWW-Authenticate header, then a valid request that
 * must be served.
 */
#define _GNU_SOURCE
#include <check.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check_run.h"
#include "internal/http.h"
#include "internal/http_route.h" /* http_core_reused */
#include "internal/methods.h"
#include "jwt_mint.h"
#include "test_runtime.h"

#define RESOURCE "http://localhost/mcp"
#define ISSUER "https://as.example"
#define METADATA_URL "http://localhost/.well-known/oauth-protected-resource/mcp"
#define AUTH_LINE_MAX 65536

/* ---------------------------------------------------------------- the server table */

static const char *const FILES_READ[] = {"files:read"};
static const char *const FILES_RW[] = {"files:read", "files:write"};
static const char *const NOTES[] = {"notes:read"};
static const char *const PROMPTS[] = {"prompts:use"};

static mcp_status read_stub(mcp_call *call, const char *uri, const char *const *vars)
{
    (void)vars;
    return mcp_resource_text(call, uri, "text/plain", "x");
}

static mcp_status prompt_stub(mcp_call *call, const char *const *args)
{
    (void)args;
    return mcp_content_text(call, "hello");
}

static const mcp_tool TOOLS[] = {
    {.name = "whoami", .list_entry = "{\"name\":\"whoami\"}"},
    {.name = "ask", .list_entry = "{\"name\":\"ask\"}"},
    {.name = "read_file", .list_entry = "{\"name\":\"read_file\"}", .scopes = FILES_READ, .nscopes = 1},
    {.name = "write_file", .list_entry = "{\"name\":\"write_file\"}", .scopes = FILES_RW, .nscopes = 2},
};
static const mcp_resource RESOURCES[] = {
    {.name = "a",
     .uri = "note://a",
     .list_entry = "{\"name\":\"a\",\"uri\":\"note://a\"}",
     .text = "A",
     .scopes = NOTES,
     .nscopes = 1},
};
static const mcp_resource_template TEMPLATES[] = {
    {.name = "file",
     .uri_template = "file:///{name}",
     .list_entry = "{\"name\":\"file\",\"uriTemplate\":\"file:///{name}\"}",
     .nvars = 1,
     .read = read_stub,
     .scopes = FILES_READ,
     .nscopes = 1},
};
static const mcp_prompt PROMPT_LIST[] = {
    {.name = "greet", .list_entry = "{\"name\":\"greet\"}", .get = prompt_stub, .scopes = PROMPTS, .nscopes = 1},
};

static const mcp_server SERVER = {
    .abi = MCPIDL_ABI,
    .name = "authsrv",
    .version = "1.0",
    .tools = TOOLS,
    .ntools = 4,
    .resources = RESOURCES,
    .nresources = 1,
    .templates = TEMPLATES,
    .ntemplates = 1,
    .prompts = PROMPT_LIST,
    .nprompts = 1,
};

/* Every tool answers with who called it: "NAME by SUB [scopes]"; "ask"
 * first asks the client twice (sampling), which a 2026-07-28 request
 * answers in two more rounds (requestState, bound to the caller). */
static bool stub_invoke(mcp_call *call, const mcp_json *arguments, mcp_buf *out)
{
    (void)arguments;
    if (strcmp(call->tool->name, "ask") == 0) {
        const char *one = NULL, *two = NULL;
        if (!mcp_sample_text(call, "one", 5, &one) || !mcp_sample_text(call, "two", 5, &two)) {
            mcp_buf_puts(out, "{\"content\":[],\"isError\":true}");
            return true;
        }
    }
    const mcp_caller *who = mcp_call_caller(call);
    const mcp_json *jti = mcp_caller_claim(who, "jti");
    mcp_buf_printf(out, "{\"content\":[{\"type\":\"text\",\"text\":\"%s by %s%s%s%s\"}],\"isError\":false}",
                   call->tool->name, mcp_caller_subject(who) ? mcp_caller_subject(who) : "nobody",
                   mcp_caller_has_scope(who, "files:read") ? " files:read" : "",
                   mcp_caller_has_scope(who, "files:write") ? " files:write" : "",
                   jti && jti->kind == MCP_JSTRING ? " jti" : "");
    return true;
}

/* ---------------------------------------------------------------- keys, tokens, files */

static mint_keys K, K2; /* K2: a second key set, for rotation and unknown kids */
static char JWKS[8192], JWKS2[8192], JWKS_BOTH[16384];
static char dir[] = "/tmp/mcpidl-auth-XXXXXX";
static char jwks_file[256], secret_file[256];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* Claims for RESOURCE from ISSUER, valid for an hour, with `extra` members. */
static char *claims(const char *sub, const char *scope, const char *extra)
{
    static char buf[4096];
    long now = (long)time(NULL);
    snprintf(buf, sizeof buf,
             "{\"iss\":\"%s\",\"sub\":\"%s\",\"aud\":\"%s\",\"iat\":%ld,\"exp\":%ld,\"scope\":\"%s\"%s%s}", ISSUER, sub,
             RESOURCE, now, now + 3600, scope, extra ? "," : "", extra ? extra : "");
    return buf;
}

static char *token(const char *sub, const char *scope)
{
    return mint_jwt(&K, "RS256", "rsa", NULL, claims(sub, scope, NULL), NULL);
}

/* ---------------------------------------------------------------- the stand-in authorization server */

typedef enum { AS_GOOD, AS_BOTH, AS_GARBAGE, AS_HANG } as_mode;
static struct MHD_Daemon *as_d;
static unsigned as_port;
static _Atomic as_mode as_mode_now;
static atomic_int as_jwks_hits, as_introspect_hits;
static pthread_mutex_t as_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t as_cv = PTHREAD_COND_INITIALIZER;
static bool as_release;

typedef struct as_conn {
    char body[4096];
    size_t len;
} as_conn;

static enum MHD_Result as_answer(struct MHD_Connection *c, unsigned status, const char *text)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result as_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *data, size_t *size, void **con_cls)
{
    (void)cls;
    (void)version;
    as_conn *ac = *con_cls;
    if (!ac) {
        *con_cls = calloc(1, sizeof *ac);
        return MHD_YES;
    }
    if (*size) {
        size_t n = *size < sizeof ac->body - 1 - ac->len ? *size : sizeof ac->body - 1 - ac->len;
        memcpy(ac->body + ac->len, data, n);
        ac->len += n;
        *size = 0;
        return MHD_YES;
    }
    if (strcmp(url, "/jwks") == 0 && strcmp(method, "GET") == 0) {
        atomic_fetch_add(&as_jwks_hits, 1);
        as_mode m = atomic_load(&as_mode_now);
        if (m == AS_HANG) { /* until the test lets go */
            pthread_mutex_lock(&as_mu);
            while (!as_release)
                pthread_cond_wait(&as_cv, &as_mu);
            pthread_mutex_unlock(&as_mu);
            return MHD_NO;
        }
        return as_answer(c, 200, m == AS_GOOD ? JWKS : m == AS_BOTH ? JWKS_BOTH : "{\"keys\": [garbage");
    }
    if (strcmp(url, "/introspect") == 0 && strcmp(method, "POST") == 0) {
        atomic_fetch_add(&as_introspect_hits, 1);
        char *pass = NULL;
        char *user = MHD_basic_auth_get_username_password(c, &pass);
        bool ok = user && pass && strcmp(user, "rs-client") == 0 && strcmp(pass, "s3cret") == 0;
        free(user);
        free(pass);
        if (!ok)
            return as_answer(c, 401, "{\"error\":\"invalid_client\"}");
        long exp = (long)time(NULL) + 3600;
        char answer[1024];
        if (strstr(ac->body, "token=opaque-good"))
            snprintf(answer, sizeof answer,
                     "{\"active\":true,\"iss\":\"%s\",\"sub\":\"carol\",\"aud\":\"%s\",\"exp\":%ld,"
                     "\"scope\":\"files:read\",\"client_id\":\"c\"}",
                     ISSUER, RESOURCE, exp);
        else if (strstr(ac->body, "token=opaque-other"))
            snprintf(answer, sizeof answer, "{\"active\":true,\"aud\":\"https://elsewhere\",\"exp\":%ld}", exp);
        else
            snprintf(answer, sizeof answer, "{\"active\":false}");
        return as_answer(c, 200, answer);
    }
    return as_answer(c, 404, "{}");
}

static void as_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
    (void)cls;
    (void)c;
    (void)t;
    free(*con_cls);
    *con_cls = NULL;
}

static void as_start(void)
{
    as_d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL, 0, NULL,
                            NULL, as_request, NULL, MHD_OPTION_NOTIFY_COMPLETED, as_completed, NULL,
                            MHD_OPTION_SOCK_ADDR, NULL, MHD_OPTION_END);
    ck_assert_ptr_nonnull(as_d);
    as_port = MHD_get_daemon_info(as_d, MHD_DAEMON_INFO_BIND_PORT)->port;
}

static void as_stop(void)
{
    pthread_mutex_lock(&as_mu);
    as_release = true;
    pthread_cond_broadcast(&as_cv);
    pthread_mutex_unlock(&as_mu);
    MHD_stop_daemon(as_d);
}

/* ---------------------------------------------------------------- the resource server */

static mcp_runtime *rt;
static mcp_http *srv;
static unsigned port;
static bool tls_on;
static char ca_file[256], cert_file[256], key_file[256];
static char jwks_url[128], introspect_url[128];

static void options(mcp_options *o)
{
    mcp_options_default(o);
    o->workers = 2;
    o->http = "127.0.0.1:0";
    o->auth_issuer = ISSUER;
    o->auth_resource = RESOURCE;
    o->auth_jwks = jwks_file;
}

static void start(mcp_options *o)
{
    rt = test_runtime_new(&SERVER, o);
    ck_assert_ptr_nonnull(rt);
    srv = mcp_http_start(rt);
    ck_assert_ptr_nonnull(srv);
    port = mcp_http_port(srv);
    tls_on = o->tls_cert != NULL;
}

static void start_default(void)
{
    mcp_options o;
    options(&o);
    o.auth_required_scopes[o.nrequired_scopes++] = "mcp";
    start(&o);
}

static void stop(void)
{
    mcp_http_stop(srv);
    srv = NULL;
    mcp_runtime_free(rt);
    rt = NULL;
}

/* ---------------------------------------------------------------- the client */

typedef struct resp {
    long status;
    char www[2048]; /* WWW-Authenticate, "" when absent */
    char sid[64];   /* Mcp-Session-Id, "" when absent */
    char *body;
    size_t len;
    CURLcode rc;
    char subject[256]; /* TLS: the server certificate's subject */
} resp;

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    resp *r = ud;
    size_t k = size * n;
    r->body = realloc(r->body, r->len + k + 1);
    memcpy(r->body + r->len, p, k);
    r->len += k;
    r->body[r->len] = 0;
    return k;
}

static void header_value(char *dst, size_t cap, const char *line, size_t n, const char *name)
{
    size_t nl = strlen(name);
    if (n <= nl || strncasecmp(line, name, nl) != 0)
        return;
    const char *v = line + nl;
    size_t vl = n - nl;
    while (vl && (*v == ' '))
        v++, vl--;
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n'))
        vl--;
    snprintf(dst, cap, "%.*s", (int)vl, v);
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    resp *r = ud;
    header_value(r->www, sizeof r->www, p, size * n, "WWW-Authenticate:");
    header_value(r->sid, sizeof r->sid, p, size * n, "Mcp-Session-Id:");
    return size * n;
}

/* One request: `auth` is a whole Authorization header line (NULL: none),
 * `extra` more header lines separated by '\n'. */
static resp call_full(const char *method, const char *path, const char *auth, const char *extra, const char *body,
                      long tls_max)
{
    resp r = {0};
    CURL *c = curl_easy_init();
    char url[2048];
    snprintf(url, sizeof url, "%s://127.0.0.1:%u%s", tls_on ? "https" : "http", port, path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    struct curl_slist *h = NULL;
    if (auth)
        h = curl_slist_append(h, auth);
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", extra ? extra : "");
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n"))
        h = curl_slist_append(h, line);
    if (body) {
        h = curl_slist_append(h, "Content-Type: application/json");
        h = curl_slist_append(h, "Accept: application/json");
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    }
    h = curl_slist_append(h, "Expect:");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (tls_on) {
        curl_easy_setopt(c, CURLOPT_CAINFO, ca_file);
        curl_easy_setopt(c, CURLOPT_CERTINFO, 1L);
        if (tls_max)
            curl_easy_setopt(c, CURLOPT_SSLVERSION, tls_max);
    }
    r.rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    struct curl_certinfo *ci = NULL;
    if (tls_on && r.rc == CURLE_OK && curl_easy_getinfo(c, CURLINFO_CERTINFO, &ci) == CURLE_OK && ci &&
        ci->num_of_certs > 0)
        for (struct curl_slist *s = ci->certinfo[0]; s; s = s->next)
            if (strncmp(s->data, "Subject:", 8) == 0)
                snprintf(r.subject, sizeof r.subject, "%s", s->data + 8);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (!r.body)
        r.body = calloc(1, 1);
    return r;
}

static resp call(const char *method, const char *path, const char *auth, const char *extra, const char *body)
{
    return call_full(method, path, auth, extra, body, 0);
}

#define INIT \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
#define TOOL_CALL(tool) \
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"" tool "\",\"arguments\":{}}}"

/* A stateless 2026-07-28 tools/call, its headers mirroring its body. */
#define MODERN_META \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/" \
    "clientCapabilities\":{\"sampling\":{}}}"
#define MODERN_CALL(tool) \
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"" tool \
    "\",\"arguments\":{}," MODERN_META "}}"
#define MODERN_HEADERS(tool) "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: " tool

static char *bearer(const char *tok)
{
    static __thread char line[AUTH_LINE_MAX];
    snprintf(line, sizeof line, "Authorization: Bearer %s", tok);
    return line;
}

/* A session of the caller with this token: its id in sid. */
static void open_session(const char *tok, char *sid)
{
    resp r = call("POST", "/mcp", bearer(tok), NULL, INIT);
    ck_assert_msg(r.status == 200, "initialize: %ld %s", r.status, r.body);
    ck_assert_uint_eq(strlen(r.sid), 32);
    strcpy(sid, r.sid);
    free(r.body);
    char hdr[128];
    snprintf(hdr, sizeof hdr, "Mcp-Session-Id: %s", sid);
    r = call("POST", "/mcp", bearer(tok), hdr, INITIALIZED);
    ck_assert_int_eq(r.status, 202);
    free(r.body);
}

/* A tools/call in session sid: the response. */
static resp call_tool(const char *auth, const char *sid, const char *body)
{
    char hdr[128];
    snprintf(hdr, sizeof hdr, "Mcp-Session-Id: %s", sid);
    return call("POST", "/mcp", auth, hdr, body);
}

/* A 2026-07-28 tools/call of `tool` with `auth` (a whole header line). */
static resp call_modern(const char *auth, const char *tool)
{
    char body[512], hdrs[256];
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
             "\"arguments\":{}," MODERN_META "}}",
             tool);
    snprintf(hdrs, sizeof hdrs, "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: %s", tool);
    return call("POST", "/mcp", auth, hdrs, body);
}

/* ---------------------------------------------------------------- fixtures */

static void make_tls_files(const char *cn)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "(cd %s && { [ -f ca.key ] || openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
             "-nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=test-ca; } && "
             "openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key.new "
             "-out server.csr -subj /CN=%s && "
             "printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > ext.cnf && "
             "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
             "-extfile ext.cnf -out server.pem.new && mv server.key.new server.key && "
             "mv server.pem.new server.pem) >/dev/null 2>&1",
             dir, cn);
    ck_assert_int_eq(system(cmd), 0);
}

static void suite_setup(void)
{
    signal(SIGPIPE, SIG_IGN);
    test_invoker = stub_invoke;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    mint_keys_init(&K, 1);
    mint_keys_init(&K2, 2);
    mint_jwks(&K, "", JWKS);
    mint_jwks(&K2, "new-", JWKS2);
    snprintf(JWKS_BOTH, sizeof JWKS_BOTH, "%.*s,%s", (int)strlen(JWKS) - 2, JWKS, strchr(JWKS2, '[') + 1);
    snprintf(jwks_file, sizeof jwks_file, "%s/jwks.json", dir);
    write_file(jwks_file, JWKS);
    snprintf(secret_file, sizeof secret_file, "%s/secret", dir);
    write_file(secret_file, "s3cret\n");
    snprintf(ca_file, sizeof ca_file, "%s/ca.pem", dir);
    snprintf(cert_file, sizeof cert_file, "%s/server.pem", dir);
    snprintf(key_file, sizeof key_file, "%s/server.key", dir);
    as_start();
    snprintf(jwks_url, sizeof jwks_url, "http://127.0.0.1:%u/jwks", as_port);
    snprintf(introspect_url, sizeof introspect_url, "http://127.0.0.1:%u/introspect", as_port);
}

static void suite_teardown(void)
{
    as_stop();
    mint_keys_clear(&K);
    mint_keys_clear(&K2);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_auth: could not remove %s\n", dir);
    curl_global_cleanup();
}

/* ---------------------------------------------------------------- the catalogue */

#define MD "resource_metadata=\"" METADATA_URL "\""
#define INVALID_TOKEN(why) "Bearer error=\"invalid_token\", error_description=\"" why "\", " MD ", scope=\"mcp\""
#define INVALID_REQUEST(why) "Bearer error=\"invalid_request\", error_description=\"" why "\", " MD

START_TEST(catalogue)
{
    start_default();
    char *good = token("alice", "mcp files:read");
    char sid[64];
    open_session(good, sid);
    long now = (long)time(NULL);
    char c[4096];

    char *t_none = mint_jwt(&K, "none", "rsa", NULL, claims("alice", "mcp", NULL), NULL);
    char *t_hs = mint_jwt(&K, "HS256", "rsa", NULL, claims("alice", "mcp", NULL), JWKS);
    char *t_kid = mint_jwt(&K2, "RS256", "new-rsa", NULL, claims("alice", "mcp", NULL), NULL);
    char *t_sig = mint_jwt(&K2, "RS256", "rsa", NULL, claims("alice", "mcp", NULL), NULL); /* K2's key, K's kid */
    snprintf(c, sizeof c,
             "{\"iss\":\"https://evil.example\",\"sub\":\"alice\",\"aud\":\"%s\",\"exp\":%ld,\"scope\":\"mcp\"}",
             RESOURCE, now + 3600);
    char *t_iss = mint_jwt(&K, "ES256", "ec", NULL, c, NULL);
    snprintf(c, sizeof c,
             "{\"iss\":\"%s\",\"sub\":\"alice\",\"aud\":[\"https://other.example/mcp\"],\"exp\":%ld,"
             "\"scope\":\"mcp\"}",
             ISSUER, now + 3600);
    char *t_aud = mint_jwt(&K, "EdDSA", "ed", NULL, c, NULL);
    snprintf(c, sizeof c, "{\"iss\":\"%s\",\"sub\":\"alice\",\"aud\":\"%s\",\"exp\":%ld,\"scope\":\"mcp\"}", ISSUER,
             RESOURCE, now - 31);
    char *t_exp = mint_jwt(&K, "PS256", "rsa", NULL, c, NULL);
    snprintf(c, sizeof c, "{\"iss\":\"%s\",\"sub\":\"alice\",\"aud\":\"%s\",\"exp\":%ld,\"nbf\":%ld,\"scope\":\"mcp\"}",
             ISSUER, RESOURCE, now + 7200, now + 3600);
    char *t_nbf = mint_jwt(&K, "RS256", "rsa", NULL, c, NULL);
    snprintf(c, sizeof c, "{\"iss\":\"%s\",\"sub\":\"alice\",\"aud\":\"%s\",\"scope\":\"mcp\"}", ISSUER, RESOURCE);
    char *t_noexp = mint_jwt(&K, "RS256", "rsa", NULL, c, NULL);
    char *t_typ = mint_jwt(&K, "RS256", NULL, "{\"alg\":\"RS256\",\"kid\":\"rsa\",\"typ\":\"secevent+jwt\"}",
                           claims("alice", "mcp", NULL), NULL);
    char *t_noscope = token("alice", "files:read");
    char *huge = malloc(AUTH_LINE_MAX);
    memset(huge, 'a', 8193);
    huge[8193] = 0;

    char h_none[AUTH_LINE_MAX], h_hs[AUTH_LINE_MAX], h_kid[AUTH_LINE_MAX], h_sig[AUTH_LINE_MAX], h_iss[AUTH_LINE_MAX],
        h_aud[AUTH_LINE_MAX], h_exp[AUTH_LINE_MAX], h_nbf[AUTH_LINE_MAX], h_noexp[AUTH_LINE_MAX], h_typ[AUTH_LINE_MAX],
        h_noscope[AUTH_LINE_MAX], h_huge[AUTH_LINE_MAX], h_lower[AUTH_LINE_MAX], h_twice[AUTH_LINE_MAX], h_query[256],
        h_second[AUTH_LINE_MAX];
    snprintf(h_none, sizeof h_none, "%s", bearer(t_none));
    snprintf(h_hs, sizeof h_hs, "%s", bearer(t_hs));
    snprintf(h_kid, sizeof h_kid, "%s", bearer(t_kid));
    snprintf(h_sig, sizeof h_sig, "%s", bearer(t_sig));
    snprintf(h_iss, sizeof h_iss, "%s", bearer(t_iss));
    snprintf(h_aud, sizeof h_aud, "%s", bearer(t_aud));
    snprintf(h_exp, sizeof h_exp, "%s", bearer(t_exp));
    snprintf(h_nbf, sizeof h_nbf, "%s", bearer(t_nbf));
    snprintf(h_noexp, sizeof h_noexp, "%s", bearer(t_noexp));
    snprintf(h_typ, sizeof h_typ, "%s", bearer(t_typ));
    snprintf(h_noscope, sizeof h_noscope, "%s", bearer(t_noscope));
    snprintf(h_huge, sizeof h_huge, "%s", bearer(huge));
    snprintf(h_lower, sizeof h_lower, "Authorization: bearer %s", good);
    snprintf(h_twice, sizeof h_twice, "Authorization: Bearer Bearer %s", good);
    snprintf(h_second, sizeof h_second, "Authorization: Bearer %s", good);

    static char path_query[AUTH_LINE_MAX];
    snprintf(path_query, sizeof path_query, "/mcp?access_token=%s", good);
    snprintf(h_query, sizeof h_query, "Mcp-Session-Id: %s", sid);

    const struct {
        const char *name, *auth, *extra, *path;
        long status;
        const char *www; /* NULL: no WWW-Authenticate */
    } CASES[] = {
        {"no header", NULL, NULL, "/mcp", 401, "Bearer " MD ", scope=\"mcp\""},
        {"another scheme", "Authorization: Basic YWxpY2U6cHc=", NULL, "/mcp", 401, "Bearer " MD ", scope=\"mcp\""},
        {"empty token", "Authorization: Bearer ", NULL, "/mcp", 400, INVALID_REQUEST("the bearer token is empty")},
        {"Bearer twice", h_twice, NULL, "/mcp", 400,
         INVALID_REQUEST("the Authorization header is not Bearer followed by one token")},
        {"two Authorization headers", h_second, h_second, "/mcp", 400, NULL},
        {"lower-case scheme", h_lower, NULL, "/mcp", 200, NULL},
        {"token in the query", NULL, NULL, path_query, 400,
         INVALID_REQUEST("access tokens are taken in the Authorization header only")},
        {"token in the query and the header", h_second, NULL, path_query, 400,
         INVALID_REQUEST("access tokens are taken in the Authorization header only")},
        {"malformed base64", "Authorization: Bearer eyJ~bad.eyJ.c2ln", NULL, "/mcp", 401,
         INVALID_TOKEN("malformed base64url")},
        {"not a JWT", "Authorization: Bearer opaque-token", NULL, "/mcp", 401,
         INVALID_TOKEN("not a JWT: three base64url parts separated by dots")},
        {"alg none", h_none, NULL, "/mcp", 401, INVALID_TOKEN("the token's algorithm is not allowed")},
        {"HS256 keyed with the public key", h_hs, NULL, "/mcp", 401,
         INVALID_TOKEN("the token's algorithm is not allowed")},
        {"unknown kid", h_kid, NULL, "/mcp", 401, INVALID_TOKEN("no known key has the token's kid")},
        {"bad signature", h_sig, NULL, "/mcp", 401, INVALID_TOKEN("the token's signature does not verify")},
        {"wrong issuer", h_iss, NULL, "/mcp", 401, INVALID_TOKEN("the token is from another issuer")},
        {"wrong audience", h_aud, NULL, "/mcp", 401, INVALID_TOKEN("the token is for another resource")},
        {"expired", h_exp, NULL, "/mcp", 401, INVALID_TOKEN("the token has expired")},
        {"not yet valid", h_nbf, NULL, "/mcp", 401, INVALID_TOKEN("the token is not valid yet")},
        {"no exp", h_noexp, NULL, "/mcp", 401, INVALID_TOKEN("the token has no expiry time")},
        {"typ of another kind", h_typ, NULL, "/mcp", 401, INVALID_TOKEN("the token's typ is not JWT or at+jwt")},
        {"huge token", h_huge, NULL, "/mcp", 401, INVALID_TOKEN("the token is longer than 8192 bytes")},
        {"without the required scope", h_noscope, NULL, "/mcp", 403,
         "Bearer error=\"insufficient_scope\", error_description=\"the token lacks a scope this request needs\", " MD
         ", scope=\"mcp\""},
    };
    /* Each case as a request of the 2025-11-25 session, then as a stateless
     * 2026-07-28 one: the same answers. */
    for (int modern = 0; modern < 2; modern++)
        for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
            char extra[AUTH_LINE_MAX + 128];
            snprintf(extra, sizeof extra, "%s%s%s", modern ? MODERN_HEADERS("whoami") : h_query,
                     CASES[i].extra ? "\n" : "", CASES[i].extra ? CASES[i].extra : "");
            resp r = call("POST", CASES[i].path, CASES[i].auth, extra,
                          modern ? MODERN_CALL("whoami") : TOOL_CALL("whoami"));
            ck_assert_msg(r.status == CASES[i].status, "%s%s: status %ld, want %ld (%s)", modern ? "2026: " : "",
                          CASES[i].name, r.status, CASES[i].status, r.body);
            ck_assert_msg(strcmp(r.www, CASES[i].www ? CASES[i].www : "") == 0,
                          "%s%s: WWW-Authenticate\n  %s\nwant\n  %s", modern ? "2026: " : "", CASES[i].name, r.www,
                          CASES[i].www ? CASES[i].www : "(none)");
            /* No answer echoes a token. */
            ck_assert_msg(!strstr(r.body, good) && !strstr(r.www, "eyJ"), "%s: the answer holds a token",
                          CASES[i].name);
            free(r.body);
            /* ... and the next valid request is served. */
            r = modern ? call_modern(bearer(good), "whoami") : call_tool(bearer(good), sid, TOOL_CALL("whoami"));
            ck_assert_msg(r.status == 200 && strstr(r.body, "whoami by alice files:read"), "after %s%s: %ld %s",
                          modern ? "2026: " : "", CASES[i].name, r.status, r.body);
            free(r.body);
        }
    /* A header larger than libmicrohttpd's buffer for a request's headers:
     * libmicrohttpd answers it itself. */
    char *line = malloc(AUTH_LINE_MAX);
    memset(line, 'a', AUTH_LINE_MAX - 1);
    line[AUTH_LINE_MAX - 1] = 0;
    memcpy(line, "Authorization: Bearer ", 22);
    resp r = call("POST", "/mcp", line, h_query, TOOL_CALL("whoami"));
    ck_assert_msg(r.status == 431, "a 64 KiB header: %ld", r.status);
    free(r.body);
    r = call_tool(bearer(good), sid, TOOL_CALL("whoami"));
    ck_assert_int_eq(r.status, 200);
    free(r.body);
    free(line);

    char *all[] = {good, t_none, t_hs, t_kid, t_sig, t_iss, t_aud, t_exp, t_nbf, t_noexp, t_typ, t_noscope, huge};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- scopes */

START_TEST(scopes_of_items)
{
    start_default();
    char *reader = token("alice", "mcp files:read");
    char *writer = token("bob", "mcp files:read files:write notes:read prompts:use");
    char sid_r[64], sid_w[64];
    open_session(reader, sid_r);
    open_session(writer, sid_w);
    static const struct {
        const char *body, *scope; /* what the reader lacks: the challenge's scope, or NULL */
    } CASES[] = {
        {TOOL_CALL("whoami"), NULL},
        {TOOL_CALL("read_file"), NULL},
        {TOOL_CALL("write_file"), "mcp files:read files:write"},
        {TOOL_CALL("nosuchtool"), NULL}, /* the session answers: unknown tool */
        {"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":\"note://a\"}}",
         "mcp notes:read"},
        {"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":\"file:///x\"}}", NULL},
        {"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"note://a\"}}",
         "mcp notes:read"},
        {"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/get\",\"params\":{\"name\":\"greet\"}}",
         "mcp prompts:use"},
        {"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/"
         "prompt\","
         "\"name\":\"greet\"},\"argument\":{\"name\":\"x\",\"value\":\"\"}}}",
         "mcp prompts:use"},
        {"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}", NULL},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        resp r = call_tool(bearer(reader), sid_r, CASES[i].body);
        if (CASES[i].scope) {
            char want[512];
            snprintf(want, sizeof want,
                     "Bearer error=\"insufficient_scope\", error_description=\"the token lacks a scope this request "
                     "needs\", " MD ", scope=\"%s\"",
                     CASES[i].scope);
            ck_assert_msg(r.status == 403 && strcmp(r.www, want) == 0, "case %zu: %ld %s", i, r.status, r.www);
        } else {
            ck_assert_msg(r.status == 200 && r.www[0] == 0, "case %zu: %ld %s", i, r.status, r.body);
        }
        free(r.body);
        r = call_tool(bearer(writer), sid_w, CASES[i].body);
        ck_assert_msg(r.status == 200, "case %zu with every scope: %ld %s", i, r.status, r.body);
        free(r.body);
    }
    /* tools/list shows every tool, whatever the caller's scopes. */
    resp r = call_tool(bearer(reader), sid_r, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}");
    ck_assert(strstr(r.body, "write_file") && strstr(r.body, "read_file"));
    free(r.body);
    /* The handler reads the caller: subject and scopes. */
    r = call_tool(bearer(writer), sid_w, TOOL_CALL("write_file"));
    ck_assert_msg(strstr(r.body, "write_file by bob files:read files:write"), "%s", r.body);
    free(r.body);
    /* A batch needs the scopes of each of its requests (2025-03-26 sessions take batches). */
    r = call("POST", "/mcp", bearer(reader), NULL,
             "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
             "\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    ck_assert_int_eq(r.status, 200);
    char sid_b[64];
    snprintf(sid_b, sizeof sid_b, "%s", r.sid);
    free(r.body);
    r = call_tool(bearer(reader), sid_b, INITIALIZED);
    ck_assert_int_eq(r.status, 202);
    free(r.body);
#define CALL_ID(id, tool) \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" tool "\",\"arguments\":{}" \
    "}}"
    static const char BATCH[] = "[" CALL_ID(1, "whoami") "," CALL_ID(2, "write_file") "]";
    r = call_tool(bearer(reader), sid_b, BATCH);
    ck_assert_msg(r.status == 403 && strstr(r.www, "scope=\"mcp files:read files:write\""), "%ld %s", r.status, r.www);
    free(r.body);
    r = call_tool(bearer(writer), sid_b, BATCH); /* another subject's session */
    ck_assert_int_eq(r.status, 404);
    free(r.body);
    r = call_tool(bearer(reader), sid_b, "[" CALL_ID(1, "whoami") "," CALL_ID(2, "read_file") "]");
    ck_assert_msg(r.status == 200 && strstr(r.body, "whoami by alice") && strstr(r.body, "read_file by alice"),
                  "%ld %s", r.status, r.body);
    free(r.body);
    free(reader);
    free(writer);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- 2026-07-28 requests */

/* The string member `key` of a JSON answer's result (malloc'd; NULL: none). */
static char *result_string(const char *body, const char *key)
{
    mcp_arena a;
    mcp_arena_init(&a);
    const mcp_json *m = mcp_json_parse(&a, body, strlen(body), NULL, NULL, NULL);
    const mcp_json *v = mcp_json_get(mcp_json_get(m, "result"), key);
    char *out = v && v->kind == MCP_JSTRING ? strdup(v->s) : NULL;
    mcp_arena_free(&a);
    return out;
}

/* A round of the "ask" tool: its answers so far (inputResponses) and the
 * requestState of the last round (NULL: none). */
static resp ask_round(const char *tok, int answered, const char *state)
{
    static const char ANSWER[] =
        "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"yes\"},\"model\":\"m\"}";
    char body[8192], responses[1024] = "";
    if (answered)
        snprintf(responses, sizeof responses, ",\"inputResponses\":{\"input_%d\":%s}", answered, ANSWER);
    char st[4096] = "";
    if (state)
        snprintf(st, sizeof st, ",\"requestState\":\"%s\"", state);
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\","
             "\"arguments\":{}," MODERN_META "%s%s}}",
             responses, st);
    return call("POST", "/mcp", bearer(tok), MODERN_HEADERS("ask"), body);
}

/* A 2026-07-28 request is served by a stateless session kept from an
 * earlier one when there is one: the caller is the later request's, never
 * the earlier one's (its subject, its scopes). */
START_TEST(stateless_reuse_takes_each_caller)
{
    start_default();
    char *alice = token("alice", "mcp files:read");
    char *bob = token("bob", "mcp files:read files:write");
    unsigned long before = http_core_reused(srv);
    /* Rounds until reuses are seen: the answering thread keeps the session
     * unless the ticker holds it at that moment. */
    for (int round = 0; round < 10 && http_core_reused(srv) < before + 4; round++) {
        resp r = call_modern(bearer(alice), "whoami");
        ck_assert_msg(r.status == 200 && strstr(r.body, "whoami by alice files:read\""), "%ld %s", r.status, r.body);
        free(r.body);
        r = call_modern(bearer(bob), "whoami");
        ck_assert_msg(r.status == 200 && strstr(r.body, "whoami by bob files:read files:write\""), "%ld %s", r.status,
                      r.body);
        free(r.body);
        /* bob's write scope does not stay for alice's next request. */
        r = call_modern(bearer(alice), "write_file");
        ck_assert_msg(r.status == 403, "%ld %s", r.status, r.body);
        free(r.body);
        r = call_modern(NULL, "whoami");
        ck_assert_int_eq(r.status, 401);
        free(r.body);
    }
    ck_assert_uint_ge(http_core_reused(srv), before + 4);
    free(alice);
    free(bob);
    stop();
}
END_TEST

START_TEST(modern_requests)
{
    start_default();
    char *reader = token("alice", "mcp files:read");
    char *writer = token("bob", "mcp files:read files:write");
    /* No token, a bad one: the same challenges as a session's requests. */
    resp r = call("POST", "/mcp", NULL, MODERN_HEADERS("whoami"), MODERN_CALL("whoami"));
    ck_assert_int_eq(r.status, 401);
    ck_assert_str_eq(r.www, "Bearer " MD ", scope=\"mcp\"");
    free(r.body);
    r = call_modern("Authorization: Bearer e30.e30.c2ln", "whoami");
    ck_assert_int_eq(r.status, 401);
    ck_assert(strstr(r.www, "error=\"invalid_token\""));
    free(r.body);
    /* The IDL's scopes: 403 with every scope the call needs. */
    r = call_modern(bearer(reader), "write_file");
    ck_assert_msg(r.status == 403, "%ld %s", r.status, r.body);
    ck_assert_str_eq(r.www, "Bearer error=\"insufficient_scope\", error_description=\"the token lacks a scope this "
                            "request needs\", " MD ", scope=\"mcp files:read files:write\"");
    free(r.body);
    r = call_modern(bearer(reader), "read_file");
    ck_assert_msg(r.status == 200 && strstr(r.body, "read_file by alice files:read"), "%ld %s", r.status, r.body);
    free(r.body);
    /* The handler reads the caller. */
    r = call_modern(bearer(writer), "write_file");
    ck_assert_msg(r.status == 200 && strstr(r.body, "write_file by bob files:read files:write"), "%ld %s", r.status,
                  r.body);
    free(r.body);
    /* subscriptions/listen: the scopes of each resource it would hear about. */
    r = call("POST", "/mcp", bearer(reader), "MCP-Protocol-Version: 2026-07-28\nMcp-Method: subscriptions/listen",
             "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":"
             "{\"resourceSubscriptions\":[\"file:///x\",\"note://a\"]}," MODERN_META "}}");
    ck_assert_msg(r.status == 403 && strstr(r.www, "scope=\"mcp files:read notes:read\""), "%ld %s", r.status, r.www);
    free(r.body);
    /* No GET stream in 2026-07-28, but the token comes first. */
    r = call("GET", "/mcp", NULL, "MCP-Protocol-Version: 2026-07-28\nAccept: text/event-stream", NULL);
    ck_assert_int_eq(r.status, 401);
    free(r.body);
    r = call("GET", "/mcp", bearer(reader), "MCP-Protocol-Version: 2026-07-28\nAccept: text/event-stream", NULL);
    ck_assert_int_eq(r.status, 405);
    free(r.body);

    /* requestState is bound to the token's subject: alice's next round is
     * hers alone. */
    r = ask_round(reader, 0, NULL);
    ck_assert_msg(r.status == 200 && strstr(r.body, "\"input_1\""), "round 1: %ld %s", r.status, r.body);
    char *state1 = result_string(r.body, "requestState");
    free(r.body);
    r = ask_round(reader, 1, state1);
    ck_assert_msg(r.status == 200 && strstr(r.body, "\"input_2\""), "round 2: %ld %s", r.status, r.body);
    char *state2 = result_string(r.body, "requestState");
    ck_assert_ptr_nonnull(state2);
    free(r.body);
    r = ask_round(writer, 2, state2); /* bob with alice's state */
    ck_assert_msg(r.status == 400 && strstr(r.body, "requestState belongs to another caller"), "%ld %s", r.status,
                  r.body);
    free(r.body);
    r = ask_round(reader, 2, state2);
    ck_assert_msg(r.status == 200 && strstr(r.body, "ask by alice files:read"), "round 3: %ld %s", r.status, r.body);
    free(r.body);
    free(state1);
    free(state2);
    free(reader);
    free(writer);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- the runtime's own check */

typedef struct answers {
    pthread_mutex_t mu;
    char text[16384];
} answers;

static bool answers_sink(void *ctx, void *reply_ctx, const mcp_out_part *parts, size_t n, bool final)
{
    (void)reply_ctx;
    (void) final;
    answers *a = ctx;
    pthread_mutex_lock(&a->mu);
    for (size_t i = 0; i < n; i++) {
        size_t at = strlen(a->text), room = sizeof a->text - 1 - at;
        memcpy(a->text + at, parts[i].p, parts[i].n < room ? parts[i].n : room);
        a->text[at + (parts[i].n < room ? parts[i].n : room)] = 0;
    }
    pthread_mutex_unlock(&a->mu);
    return true;
}

/* A transport that hands the session an authenticated caller without
 * checking scopes itself: the session refuses what the caller may not do,
 * before the handler runs. */
START_TEST(runtime_checks_scopes)
{
    static const char *const RO[] = {"files:read"};
    const mcp_caller ro = {.subject = "carol", .scopes = RO, .nscopes = 1};
    mcp_runtime *r = test_runtime_new(&SERVER, NULL);
    ck_assert_ptr_nonnull(r);
    static answers got = {.mu = PTHREAD_MUTEX_INITIALIZER};
    mcp_session *s = mcp_session_new(r, answers_sink, &got);
    ck_assert_ptr_nonnull(s);
    mcp_session_message_from(s, INIT, strlen(INIT), NULL, &ro);
    mcp_session_message_from(s, INITIALIZED, strlen(INITIALIZED), NULL, &ro);
    mcp_session_drain(s);
    got.text[0] = 0;
    mcp_session_message_from(s, TOOL_CALL("write_file"), strlen(TOOL_CALL("write_file")), NULL, &ro);
    mcp_session_drain(s);
    ck_assert_str_eq(got.text, "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32003,\"message\":\"Forbidden: "
                               "the caller's token lacks the scope files:write\"}}");
    got.text[0] = 0;
    mcp_session_message_from(s, TOOL_CALL("read_file"), strlen(TOOL_CALL("read_file")), NULL, &ro);
    mcp_session_drain(s);
    ck_assert_msg(strstr(got.text, "read_file by carol files:read"), "%s", got.text);
    /* No caller (stdio, HTTP without authorization): nothing to check. */
    got.text[0] = 0;
    mcp_session_message(s, TOOL_CALL("write_file"), strlen(TOOL_CALL("write_file")), NULL);
    mcp_session_drain(s);
    ck_assert_msg(strstr(got.text, "write_file by nobody"), "%s", got.text);
    mcp_session_free(s);
    mcp_runtime_free(r);
}
END_TEST

/* ---------------------------------------------------------------- sessions belong to their caller */

START_TEST(session_owner)
{
    start_default();
    char *alice = token("alice", "mcp");
    char *bob = token("bob", "mcp");
    char sid[64];
    open_session(alice, sid);
    resp r = call_tool(bearer(bob), sid, TOOL_CALL("whoami"));
    ck_assert_int_eq(r.status, 404);
    free(r.body);
    char hdr[128];
    snprintf(hdr, sizeof hdr, "Mcp-Session-Id: %s", sid);
    r = call("DELETE", "/mcp", bearer(bob), hdr, NULL);
    ck_assert_int_eq(r.status, 404);
    free(r.body);
    /* Another token of the same subject may use it (a refreshed token). */
    char *alice2 = mint_jwt(&K, "ES256", "ec", NULL, claims("alice", "mcp", "\"jti\":\"2\""), NULL);
    r = call_tool(bearer(alice2), sid, TOOL_CALL("whoami"));
    ck_assert_msg(r.status == 200 && strstr(r.body, "whoami by alice jti"), "%ld %s", r.status, r.body);
    free(r.body);
    free(alice);
    free(alice2);
    free(bob);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- the metadata document */

START_TEST(metadata_document)
{
    start_default();
    static const char WANT[] =
        "{\"resource\":\"" RESOURCE "\",\"authorization_servers\":[\"" ISSUER "\"],"
        "\"scopes_supported\":[\"mcp\",\"files:read\",\"files:write\",\"notes:read\",\"prompts:use\"],"
        "\"bearer_methods_supported\":[\"header\"],\"resource_name\":\"authsrv\"}";
    static const char *const PATHS[] = {"/.well-known/oauth-protected-resource/mcp",
                                        "/.well-known/oauth-protected-resource"};
    for (size_t i = 0; i < 2; i++) {
        resp r = call("GET", PATHS[i], NULL, NULL, NULL);
        ck_assert_int_eq(r.status, 200);
        ck_assert_str_eq(r.body, WANT);
        free(r.body);
    }
    resp r = call("GET", "/.well-known/oauth-protected-resource/other", NULL, NULL, NULL);
    ck_assert_int_eq(r.status, 404);
    free(r.body);
    r = call("POST", "/.well-known/oauth-protected-resource", NULL, NULL, "{}");
    ck_assert_int_eq(r.status, 405);
    free(r.body);
    /* GET and DELETE of the endpoint need a token too. */
    r = call("GET", "/mcp", NULL, "Accept: text/event-stream", NULL);
    ck_assert_int_eq(r.status, 401);
    free(r.body);
    r = call("DELETE", "/mcp", NULL, NULL, NULL);
    ck_assert_int_eq(r.status, 401);
    free(r.body);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- settings */

START_TEST(settings)
{
    test_quiet = true;
    static const struct {
        const char *issuer, *resource, *jwks, *introspect, *client_id, *secret;
    } BAD[] = {
        {NULL, RESOURCE, "J", NULL, NULL, NULL},
        {ISSUER, NULL, "J", NULL, NULL, NULL},
        {ISSUER, RESOURCE, NULL, NULL, NULL, NULL},
        {"http://as.example", RESOURCE, "J", NULL, NULL, NULL}, /* plain http, not loopback */
        {ISSUER, "mcp.example.com/mcp", "J", NULL, NULL, NULL}, /* no scheme */
        {ISSUER, "https://mcp.example.com/mcp#x", "J", NULL, NULL, NULL},
        {ISSUER, RESOURCE, "http://keys.example/jwks", NULL, NULL, NULL},
        {ISSUER, RESOURCE, "/nonexistent/jwks.json", NULL, NULL, NULL},
        {ISSUER, RESOURCE, NULL, "https://as.example/introspect", NULL, NULL},
        {ISSUER, RESOURCE, NULL, "https://as.example/introspect", "id", "/nonexistent/secret"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        mcp_options o;
        mcp_options_default(&o);
        o.http = "127.0.0.1:0";
        o.auth_issuer = BAD[i].issuer;
        o.auth_resource = BAD[i].resource;
        o.auth_jwks = BAD[i].jwks && strcmp(BAD[i].jwks, "J") == 0 ? jwks_file : BAD[i].jwks;
        o.auth_introspect = BAD[i].introspect;
        o.auth_client_id = BAD[i].client_id;
        o.auth_client_secret_file = BAD[i].secret;
        mcp_runtime *r = test_runtime_new(&SERVER, &o);
        ck_assert_ptr_nonnull(r);
        mcp_http *h = mcp_http_start(r);
        ck_assert_msg(h == NULL, "settings %zu were taken", i);
        mcp_runtime_free(r);
    }
    /* Without auth, only a loopback address (nothing is bound when refused). */
    static const char *const OPEN[] = {"0.0.0.0:0", "[::]:0"};
    for (size_t i = 0; i < 2; i++) {
        mcp_options o;
        mcp_options_default(&o);
        o.http = OPEN[i];
        mcp_runtime *r = test_runtime_new(&SERVER, &o);
        ck_assert_ptr_null(mcp_http_start(r));
        mcp_runtime_free(r);
    }
    /* TLS: a key that is not the certificate's, a missing key. */
    make_tls_files("one");
    char other_key[300];
    snprintf(other_key, sizeof other_key, "%s/ca.key", dir);
    const char *pairs[][2] = {{cert_file, other_key}, {cert_file, NULL}, {NULL, key_file}, {"/nonexistent", key_file}};
    for (size_t i = 0; i < 4; i++) {
        mcp_options o;
        options(&o);
        o.tls_cert = pairs[i][0];
        o.tls_key = pairs[i][1];
        mcp_runtime *r = test_runtime_new(&SERVER, &o);
        ck_assert_ptr_null(mcp_http_start(r));
        mcp_runtime_free(r);
    }
    test_quiet = false;
}
END_TEST

/* ---------------------------------------------------------------- introspection */

START_TEST(introspection)
{
    mcp_options o;
    options(&o);
    o.auth_jwks = NULL;
    o.auth_introspect = introspect_url;
    o.auth_client_id = "rs-client";
    o.auth_client_secret_file = secret_file;
    start(&o);
    atomic_store(&as_introspect_hits, 0);
    char sid[64];
    open_session("opaque-good", sid);
    for (int i = 0; i < 5; i++) {
        resp r = call_tool(bearer("opaque-good"), sid, TOOL_CALL("read_file"));
        ck_assert_msg(r.status == 200 && strstr(r.body, "read_file by carol files:read"), "%ld %s", r.status, r.body);
        free(r.body);
    }
    /* Asked once, then cached until exp. */
    ck_assert_int_eq(atomic_load(&as_introspect_hits), 1);
    resp r = call_tool(bearer("opaque-good"), sid, TOOL_CALL("write_file"));
    ck_assert_int_eq(r.status, 403);
    free(r.body);
    r = call_tool(bearer("opaque-inactive"), sid, TOOL_CALL("whoami"));
    ck_assert_int_eq(r.status, 401);
    ck_assert_str_eq(r.www, "Bearer error=\"invalid_token\", error_description=\"the token is not active\", " MD);
    free(r.body);
    r = call_tool(bearer("opaque-other"), sid, TOOL_CALL("whoami"));
    ck_assert_int_eq(r.status, 401);
    ck_assert(strstr(r.www, "the token is for another resource"));
    free(r.body);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- key sets at a URL */

/* Standard error into a file while `on`; its text when turned off. */
static int saved_err = -1;
static char err_path[300];

static void capture_stderr(bool on)
{
    fflush(stderr);
    if (on) {
        snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
        int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        saved_err = dup(2);
        dup2(fd, 2);
        close(fd);
    } else {
        dup2(saved_err, 2);
        close(saved_err);
    }
}

static bool log_has(const char *what)
{
    FILE *f = fopen(err_path, "r");
    char buf[16384] = "";
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return strstr(buf, what) != NULL;
}

typedef struct pending {
    char *tok;
    char sid[64];
    resp r;
} pending;

static void *call_later(void *p)
{
    pending *q = p;
    q->r = call_tool(bearer(q->tok), q->sid, TOOL_CALL("whoami"));
    return NULL;
}

START_TEST(jwks_at_a_url)
{
    atomic_store(&as_mode_now, AS_GOOD);
    mcp_options o;
    options(&o);
    o.auth_jwks = jwks_url;
    o.auth_jwks_refresh = 3600; /* one refetch in this test's life, whatever its speed */
    start(&o);
    char *old = token("alice", "files:read");
    char sid[64];
    open_session(old, sid);
    /* The authorization server rotates: a token of the new key makes the
     * server fetch the set again, once. */
    atomic_store(&as_mode_now, AS_BOTH);
    char *rotated = mint_jwt(&K2, "ES256", "new-ec", NULL, claims("alice", "", NULL), NULL);
    int hits = atomic_load(&as_jwks_hits);
    resp r = call_tool(bearer(rotated), sid, TOOL_CALL("whoami"));
    ck_assert_msg(r.status == 200, "%ld %s", r.status, r.www);
    free(r.body);
    ck_assert_int_eq(atomic_load(&as_jwks_hits), hits + 1);
    /* Another unknown kid within the refresh time: no fetch, 401. */
    char *unknown = mint_jwt(&K2, "RS256", "newer", NULL, claims("alice", "", NULL), NULL);
    r = call_tool(bearer(unknown), sid, TOOL_CALL("whoami"));
    ck_assert_int_eq(r.status, 401);
    free(r.body);
    ck_assert_int_eq(atomic_load(&as_jwks_hits), hits + 1);
    stop();

    /* Garbage from the JWKS URL: the server keeps its keys, says so, serves. */
    atomic_store(&as_mode_now, AS_GOOD);
    o.auth_jwks_refresh = 3600;
    start(&o);
    open_session(old, sid);
    atomic_store(&as_mode_now, AS_GARBAGE);
    capture_stderr(true);
    r = call_tool(bearer(unknown), sid, TOOL_CALL("whoami"));
    capture_stderr(false);
    ck_assert_int_eq(r.status, 401);
    free(r.body);
    ck_assert(log_has("cannot load the keys from"));
    ck_assert(log_has("serving with the 3 key(s) it has"));
    r = call_tool(bearer(old), sid, TOOL_CALL("whoami"));
    ck_assert_int_eq(r.status, 200);
    free(r.body);
    stop();

    /* A JWKS URL that hangs: the request that waits for it is answered when
     * the fetch gives up; the others are served meanwhile. */
    atomic_store(&as_mode_now, AS_GOOD);
    start(&o);
    pending p = {.tok = unknown};
    open_session(old, p.sid);
    atomic_store(&as_mode_now, AS_HANG);
    int before = atomic_load(&as_jwks_hits);
    pthread_t t;
    capture_stderr(true);
    pthread_create(&t, NULL, call_later, &p);
    while (atomic_load(&as_jwks_hits) == before) /* the fetch has started and hangs */
        sched_yield();
    for (int i = 0; i < 3; i++) {
        r = call_tool(bearer(old), p.sid, TOOL_CALL("whoami"));
        ck_assert_int_eq(r.status, 200);
        free(r.body);
    }
    pthread_join(t, NULL);
    capture_stderr(false);
    ck_assert_int_eq(p.r.status, 401);
    ck_assert(log_has("timed out") || log_has("Timeout"));
    free(p.r.body);
    stop();
    free(old);
    free(rotated);
    free(unknown);
}
END_TEST

/* ---------------------------------------------------------------- TLS */

START_TEST(tls)
{
    make_tls_files("one");
    mcp_options o;
    options(&o);
    o.tls_cert = cert_file;
    o.tls_key = key_file;
    start(&o);
    char *good = token("alice", "files:read");
    char sid[64];
    open_session(good, sid);
    resp r = call_tool(bearer(good), sid, TOOL_CALL("read_file"));
    ck_assert_msg(r.status == 200 && strstr(r.body, "read_file by alice"), "%d %s", r.rc, r.body);
    ck_assert_msg(strstr(r.subject, "CN=one") || strstr(r.subject, "CN = one"), "%s", r.subject);
    free(r.body);
    /* TLS 1.1 and older are refused. */
    r = call_full("POST", "/mcp", bearer(good), NULL, INIT, CURL_SSLVERSION_TLSv1_0 | CURL_SSLVERSION_MAX_TLSv1_1);
    ck_assert_int_ne(r.rc, CURLE_OK);
    free(r.body);
    /* A new certificate, loaded again (what SIGHUP does): new handshakes get it. */
    make_tls_files("two");
    mcp_http_reload(srv);
    r = call_tool(bearer(good), sid, TOOL_CALL("whoami"));
    ck_assert_int_eq(r.status, 200);
    ck_assert_msg(strstr(r.subject, "CN=two") || strstr(r.subject, "CN = two"), "%s", r.subject);
    free(r.body);
    /* A reload that fails keeps what is in use. */
    write_file(key_file, "not a key\n");
    capture_stderr(true);
    mcp_http_reload(srv);
    capture_stderr(false);
    ck_assert(log_has("keeping the certificate in use"));
    r = call_tool(bearer(good), sid, TOOL_CALL("whoami"));
    ck_assert_int_eq(r.status, 200);
    free(r.body);
    free(good);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- the cost of a request's token */

START_TEST(cache_figures)
{
    start_default();
    char *good = token("alice", "mcp");
    char sid[64];
    open_session(good, sid);
    for (int i = 0; i < 20; i++) {
        resp r = call_tool(bearer(good), sid, TOOL_CALL("whoami"));
        ck_assert_int_eq(r.status, 200);
        free(r.body);
    }
    free(good);
    stop();
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("auth");
    TCase *tc = tcase_create("auth");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, suite_setup, suite_teardown);
    tcase_add_test(tc, catalogue);
    tcase_add_test(tc, scopes_of_items);
    tcase_add_test(tc, modern_requests);
    tcase_add_test(tc, stateless_reuse_takes_each_caller);
    tcase_add_test(tc, runtime_checks_scopes);
    tcase_add_test(tc, session_owner);
    tcase_add_test(tc, metadata_document);
    tcase_add_test(tc, settings);
    tcase_add_test(tc, introspection);
    tcase_add_test(tc, jwks_at_a_url);
    tcase_add_test(tc, tls);
    tcase_add_test(tc, cache_figures);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return check_run(suite(), false) ? 1 : 0; }
