// Identical replicas behind a real load balancer: three everything-server replicas over
// Streamable HTTP (loopback ports, one shared --state-key-file, --node-id r1, r2, r3) behind
// nginx, started here with a configuration of its own in a temporary folder (no root, no system
// configuration, no daemon). The configuration is the one docs/deploy.md shows: round robin for
// 2026-07-28 requests (which carry no session), a `map` on the Mcp-Session-Id prefix that sends
// each 2025-11-25 session back to the replica that made it, the other replicas as `backup` of
// each such route (so that the session of a dead replica gets the 404 of a live one), and
// `proxy_next_upstream error timeout` without `non_idempotent`: a POST that could not be
// connected is passed to the next replica, one that was sent is not (a tool may have run).
// nginx adds the replica that answered (X-MCP-Upstream, from $upstream_addr) to each response.
//
// The official v2 client (@modelcontextprotocol/client) drives it in both eras, and the test
// checks:
//   - a multi round-trip request (MRTR) whose rounds go to three different replicas, addressed
//     directly, completes: the sealed requestState opens on every replica sharing the key;
//   - through nginx, the rounds of MRTR calls land on different replicas (round robin) and
//     complete;
//   - a run of 2,000 calls (tools/call with a tag echoed in the answer, and MRTR elicitations
//     whose answer names the call) from 2026-07-28 clients and 2025-11-25 sessions at once, one
//     replica killed (SIGKILL) past the middle, from inside a call it is serving (a 2025
//     session's elicitation): every call ends with exactly one answer, the right one, after at
//     most one retry by the client (a 404 on a session of the dead replica is followed by a new
//     initialize, as the specification says, and the call sent again); the call in flight on
//     the dead replica was retried; the 2026 requests were spread over all three replicas; every
//     request of a 2025 session went to its replica; only sessions of the dead replica got 404;
//     nothing hangs (a call that reaches its hang guard fails the test); the calls started after
//     the replica's exit all succeed at once (2026: nginx passes a refused connection to
//     another replica);
//   - a subscriptions/listen held on each replica: the dead replica's ends, the others stay
//     open, and listening again lands on a live replica;
//   - the surviving replicas and nginx then stop with exit status 0.
//
// Environment:
//   EVERYTHING_SERVER  the everything-server executable (required)
//   NGINX_BIN          the nginx executable (required; ctest's wrapper finds it or skips)
//   DEPLOY_CALLS       calls in the run (default 2000)
//   DEPLOY_KEEP        set: keep the temporary folder (nginx.conf, error.log, access.log)
//
// Run: node_modules/.bin/node --test nginx_replicas.test.mjs (from tests/e2e; ctest does it).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { Client, SdkErrorCode, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import { startHttpServer } from './e2e_util.mjs';

const SERVER = process.env.EVERYTHING_SERVER;
const NGINX = process.env.NGINX_BIN;
const CALLS = Number(process.env.DEPLOY_CALLS ?? 2000);
const NODES = ['r1', 'r2', 'r3'];
const VICTIM = 'r2';
const MODERN = '2026-07-28';
const LEGACY_MODE = 'legacy';
// Concurrent clients of each era during the run.
const MODERN_CLIENTS = 6;
const LEGACY_CLIENTS = 6;
// Hang guards only: no result depends on how fast anything is.
const START_TIMEOUT_MS = 60_000;
const CALL_TIMEOUT_MS = 60_000;
const EXIT_TIMEOUT_MS = 60_000;

/** p, or null once ms have passed. */
async function timed(p, ms) {
  let timer;
  const r = await Promise.race([p, new Promise((resolve) => (timer = setTimeout(() => resolve(null), ms)))]);
  clearTimeout(timer);
  return r;
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A port free on 127.0.0.1 now (nginx binds it next; a lost race is retried by the caller). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once a TCP connection to port succeeds. */
function connects(port) {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

/**
 * The nginx configuration of docs/deploy.md, with this test's loopback ports and temporary
 * folder: replicas { r1: port, ... }.
 */
function nginxConf(dir, listen, replicas) {
  const servers = (primary) =>
    NODES.map((n) => `        server 127.0.0.1:${replicas[n]}${n === primary ? '' : ' backup'};`).join('\n');
  return `# Written by tests/e2e/nginx_replicas.test.mjs (see docs/deploy.md).
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
events { worker_connections 1024; }

http {
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    log_format mcp '$remote_addr "$request" $status mcp-method=$http_mcp_method '
                   'session=$http_mcp_session_id upstream=$upstream_addr upstream_status=$upstream_status';
    access_log ${dir}/access.log mcp;

    # 2026-07-28 requests carry no session: any replica serves them.
    upstream mcp_all {
${NODES.map((n) => `        server 127.0.0.1:${replicas[n]} max_fails=1 fail_timeout=10s;`).join('\n')}
    }
    # A 2025-11-25 session lives in the replica that created it; the others only answer 404
    # (Session not found) when that replica is gone, and the client initializes again.
${NODES.map((n) => `    upstream mcp_${n} {\n${servers(n)}\n    }`).join('\n')}

    # Session ids start with the replica's --node-id and '-'.
    map $http_mcp_session_id $mcp_upstream {
        default  mcp_all;
${NODES.map((n) => `        ~^${n}-  mcp_${n};`).join('\n')}
    }

    server {
        listen 127.0.0.1:${listen};

        location = /mcp {
            # The servers' --max-message-bytes (8 MiB by default); nginx's own default is 1 MiB.
            client_max_body_size 8m;
            proxy_pass http://$mcp_upstream;
            proxy_http_version 1.1;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            # SSE: every event goes out as it comes (the server also sends X-Accel-Buffering: no).
            proxy_buffering off;
            proxy_cache off;
            # Held streams (GET, subscriptions/listen, long tools): the server sends a comment
            # every 15 seconds, so any timeout above that keeps them open.
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
            # A refused connection goes to the next replica; a POST already sent does not
            # (no non_idempotent): a tool may have run, the client decides.
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries 3;
            # Which replica answered (for debugging; this test counts with it).
            add_header X-MCP-Upstream $upstream_addr always;
        }
    }
}
`;
}

/** The last address of $upstream_addr ("a, b" when nginx tried a then b). */
const lastUpstream = (value) => (value ? value.split(/\s*[,:]\s+/).pop().trim() : null);

/**
 * A fetch that records each request and the replica that answered it: entries of
 * { method, rpc, id, session, inputResponses, status, upstream, tries, error, cut }. route(entry,
 * url) may send the request elsewhere (to a replica directly).
 *
 * An SSE response cut short (its replica died) leaves the client's request waiting until its
 * timeout: the client has nothing to resume it from on a 2026-07-28 stream, and on a 2025-11-25
 * one its resumption gets 404. So a POST's stream that breaks aborts the call that sent it
 * (state.current, the AbortController of the call in flight when the POST was made), which its
 * caller then retries, as an application would.
 */
function recordingFetch(log, route, state) {
  return async (url, init = {}) => {
    const headers = new Headers(init.headers);
    let body;
    try {
      body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    } catch {
      body = undefined;
    }
    const entry = {
      method: init.method ?? 'GET',
      rpc: body?.method,
      id: body?.id,
      session: headers.get('mcp-session-id'),
      inputResponses: body?.params?.inputResponses !== undefined,
      status: null,
      upstream: null,
      tries: 0,
    };
    log.push(entry);
    const owner = state?.current;
    try {
      const response = await fetch(route ? route(entry, url) : url, init);
      entry.status = response.status;
      const up = response.headers.get('x-mcp-upstream');
      entry.upstream = lastUpstream(up);
      entry.tries = up ? up.split(',').length : 0;
      const sse = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
      if (entry.method !== 'POST' || !sse || !response.body || !owner) return response;
      const [mine, theirs] = response.body.tee();
      (async () => {
        try {
          for await (const chunk of mine) void chunk;
        } catch (err) {
          entry.cut = String(err);
          if (!owner.signal.aborted) owner.abort(new Error(`the response stream was cut: ${err}`));
        }
      })();
      return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (err) {
      entry.error = String(err);
      throw err;
    }
  };
}

/** A client of the v2 SDK on url: `modern` pins 2026-07-28, else the legacy 2025-11-25 handshake. */
async function openClient(url, modern, log, route) {
  const client = new Client({ name: 'mcpidl-deploy', version: '1.0.0' }, {
    capabilities: { elicitation: {} },
    versionNegotiation: { mode: modern ? { pin: MODERN } : LEGACY_MODE },
  });
  const state = { client, answerName: 'nobody', elicitations: 0, errors: [] };
  client.setRequestHandler('elicitation/create', async () => {
    state.elicitations++;
    if (state.onElicit) await state.onElicit(state);
    return { action: 'accept', content: { name: state.answerName, color: 'teal' } };
  });
  client.onerror = (err) => state.errors.push(String(err));
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch(log, route, state) });
  state.transport = transport;
  await client.connect(transport);
  assert.equal(client.getNegotiatedProtocolVersion(), modern ? MODERN : '2025-11-25');
  return state;
}

const WATCHED = 'test://watched-resource';

/** A subscriptions/listen held through nginx: { node, sub, cause } (cause once it closed). */
async function listen(c, log) {
  const from = log.length;
  const sub = await c.client.listen({ resourceSubscriptions: [WATCHED] });
  assert.deepEqual(sub.honoredFilter.resourceSubscriptions, [WATCHED]);
  const posted = log.slice(from).find((e) => e.rpc === 'subscriptions/listen');
  const l = { node: nodeOfPort[posted?.upstream], sub, cause: null };
  sub.closed.then((cause) => (l.cause = cause));
  return l;
}
const nodeOfPort = {};

const text = (result) => (result?.content ?? []).map((c) => c.text).join('');
const nodeOfSession = (id) => (id ? id.split('-')[0] : null);

describe('three everything-server replicas behind nginx', { concurrency: 1 }, () => {
  const ctx = { replicas: {}, ports: {}, nodeOfPort: {}, clients: [] };

  before(async () => {
    assert.ok(SERVER, 'set EVERYTHING_SERVER');
    assert.ok(NGINX, 'set NGINX_BIN');
    ctx.dir = mkdtempSync(path.join(os.tmpdir(), 'mcpidl-nginx-'));
    // nginx's workers may run as another user when the test runs as root: they read the folder.
    chmodSync(ctx.dir, 0o755);
    ctx.keyFile = path.join(ctx.dir, 'state.key');
    writeFileSync(ctx.keyFile, randomBytes(48), { mode: 0o600 });
    for (const node of NODES) {
      const r = await startHttpServer(SERVER,
        ['--http', '127.0.0.1:0', '--node-id', node, '--state-key-file', ctx.keyFile], START_TIMEOUT_MS);
      ctx.replicas[node] = r;
      const port = Number(new URL(r.url).port);
      ctx.ports[node] = port;
      ctx.nodeOfPort[`127.0.0.1:${port}`] = node;
      nodeOfPort[`127.0.0.1:${port}`] = node;
    }
    // nginx on a free port; a port taken between the probe and nginx's bind is tried again.
    // (nginx reads sockets to inherit from a variable NGINX: none is passed.)
    const nginxEnv = { ...process.env };
    delete nginxEnv.NGINX;
    for (let attempt = 1; ; attempt++) {
      ctx.port = await freePort();
      writeFileSync(path.join(ctx.dir, 'nginx.conf'), nginxConf(ctx.dir, ctx.port, ctx.ports));
      const nginx = spawn(NGINX, ['-p', ctx.dir, '-c', path.join(ctx.dir, 'nginx.conf'), '-e', path.join(ctx.dir, 'error.log'),
        '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'], env: nginxEnv });
      let stderr = '';
      nginx.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise((resolve) => nginx.once('exit', (code, signal) => resolve({ code, signal })));
      let gone = null;
      exited.then((e) => (gone = e));
      const deadline = Date.now() + START_TIMEOUT_MS;
      while (!gone && !(await connects(ctx.port))) {
        assert.ok(Date.now() < deadline, `nginx did not listen within ${START_TIMEOUT_MS} ms: ${stderr}`);
        await pause(20);
      }
      if (!gone) {
        ctx.nginx = { child: nginx, exited };
        break;
      }
      const log = readFileSync(path.join(ctx.dir, 'error.log'), 'utf8');
      assert.ok(attempt < 5 && /Address already in use/.test(stderr + log), `nginx exited (${JSON.stringify(gone)}):\n${stderr}\n${log}`);
    }
    ctx.url = `http://127.0.0.1:${ctx.port}/mcp`;
  });

  after(async () => {
    for (const c of ctx.clients) await c.client.close().catch(() => {});
    for (const r of Object.values(ctx.replicas)) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    if (ctx.nginx && ctx.nginx.child.exitCode === null && ctx.nginx.child.signalCode === null) {
      // SIGTERM: the master stops its workers too (a killed master would leave them running).
      ctx.nginx.child.kill('SIGTERM');
      if (!(await timed(ctx.nginx.exited, EXIT_TIMEOUT_MS))) ctx.nginx.child.kill('SIGKILL');
    }
    if (ctx.dir && !process.env.DEPLOY_KEEP) rmSync(ctx.dir, { recursive: true, force: true });
  });

  /** The access log and the error log's tail, for failure messages. */
  const logs = () => {
    const read = (f) => {
      try {
        return readFileSync(path.join(ctx.dir, f), 'utf8');
      } catch {
        return '';
      }
    };
    return `--- error.log\n${read('error.log').slice(-3000)}\n--- access.log (tail)\n${read('access.log').slice(-3000)}`;
  };

  test('an MRTR request whose three rounds go to three replicas directly completes (one shared state key)', async () => {
    const log = [];
    const direct = Object.fromEntries(NODES.map((n) => [n, ctx.replicas[n].url]));
    // Round k of the tools/call goes to NODES[k]: the first without inputResponses, then each retry.
    let round = 0;
    const route = (entry, url) => {
      if (entry.rpc !== 'tools/call') return url;
      const node = NODES[entry.inputResponses ? ++round : (round = 0)];
      entry.to = node;
      return direct[node];
    };
    const c = await openClient(direct.r1, true, log, route);
    ctx.clients.push(c);
    c.answerName = 'Ada';
    const result = await c.client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} }, { timeout: CALL_TIMEOUT_MS });
    assert.equal(text(result), 'Multi-round complete for Ada who likes teal');
    const rounds = log.filter((e) => e.rpc === 'tools/call');
    assert.deepEqual(rounds.map((e) => [e.to, e.inputResponses, e.status]), [['r1', false, 200], ['r2', true, 200], ['r3', true, 200]]);
    assert.equal(c.elicitations, 2, 'two rounds of input');
  });

  test('through nginx: each round of an MRTR call lands on another replica (round robin), and the call completes', async () => {
    const log = [];
    const c = await openClient(ctx.url, true, log);
    ctx.clients.push(c);
    // The first call also fetches tools/list (the client's output-schema cache): off the record.
    await c.client.callTool({ name: 'test_simple_text', arguments: {} }, { timeout: CALL_TIMEOUT_MS });
    for (let i = 0; i < 12; i++) {
      c.answerName = `mrtr-${i}`;
      const from = log.length;
      const result = await c.client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} }, { timeout: CALL_TIMEOUT_MS });
      assert.equal(text(result), `Multi-round complete for mrtr-${i} who likes teal`);
      const rounds = log.slice(from).filter((e) => e.rpc === 'tools/call');
      assert.equal(rounds.length, 3, 'a first round and two retries');
      const nodes = rounds.map((e) => ctx.nodeOfPort[e.upstream]);
      for (let k = 1; k < nodes.length; k++)
        assert.notEqual(nodes[k], nodes[k - 1], `round ${k + 1} of call ${i} on the replica of round ${k}: ${nodes}\n${logs()}`);
    }
  });

  const run = { calls: [], log: [], legacy: [], modern: [] };

  test(`${CALLS} calls from both eras through nginx, replica ${VICTIM} killed mid-run: each answered once, rightly`, { timeout: 10 * 60_000 }, async () => {
    // The 2025-11-25 sessions first, one after another: round robin puts two on each replica.
    for (let i = 0; i < LEGACY_CLIENTS; i++) {
      const c = await openClient(ctx.url, false, run.log);
      c.sessions = [c.transport.sessionId];
      run.legacy.push(c);
      ctx.clients.push(c);
    }
    const homes = run.legacy.map((c) => nodeOfSession(c.transport.sessionId));
    for (const node of NODES) assert.ok(homes.includes(node), `a 2025 session on ${node}: ${homes}`);
    for (let i = 0; i < MODERN_CLIENTS; i++) {
      const c = await openClient(ctx.url, true, run.log);
      run.modern.push(c);
      ctx.clients.push(c);
    }
    // Held 2026-07-28 subscriptions/listen streams, until each replica holds one.
    run.listener = await openClient(ctx.url, true, run.log);
    ctx.clients.push(run.listener);
    run.listens = [];
    for (let i = 0; i < 3 * NODES.length && !NODES.every((n) => run.listens.some((l) => l.node === n)); i++)
      run.listens.push(await listen(run.listener, run.log));
    for (const node of NODES) assert.ok(run.listens.some((l) => l.node === node), `a listen held on ${node}`);

    let next = 0;
    const killAt = Math.floor(CALLS / 2);
    let killing = null;
    const victim = ctx.replicas[VICTIM];
    const kill = () => {
      killing ??= (async () => {
        for (const c of run.calls) c.beforeKill = c.done === true; // finished before the kill
        victim.child.kill('SIGKILL');
        const end = await timed(victim.exited, EXIT_TIMEOUT_MS);
        assert.ok(end, `${VICTIM} did not exit after SIGKILL`);
        run.exitedAt = next; // calls from here on start after the replica is gone
      })();
      return killing;
    };
    // The kill comes from inside a call on the victim, past the middle of the run: a 2025-11-25
    // session's elicitation, which its replica waits for; meanwhile the other clients' calls go on.
    const onElicit = async (state) => {
      if (next >= killAt && nodeOfSession(state.transport.sessionId) === VICTIM) {
        run.killedInCall = true;
        await kill();
      }
    };
    for (const c of run.legacy) c.onElicit = onElicit;

    /** One attempt of call n on client c: the answer's text, or throws. */
    const attempt = async (c, n, mrtr) => {
      const controller = new AbortController();
      c.current = controller;
      const options = { timeout: CALL_TIMEOUT_MS, signal: controller.signal };
      try {
        if (mrtr) {
          c.answerName = `call-${n}`;
          const r = await c.client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} }, options);
          return { got: text(r), want: `Hello, call-${n}!`, isError: r.isError };
        }
        const r = await c.client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: `call-${n}` } }, options);
        return { got: text(r), want: `name=call-${n} street= city=`, isError: r.isError };
      } catch (err) {
        err.streamCut = controller.signal.aborted; // aborted by recordingFetch, not timed out
        throw err;
      } finally {
        c.current = null;
      }
    };

    /** A new 2025-11-25 session for client slot i, after its session was not found. */
    const reinitialize = async (i) => {
      const old = run.legacy[i];
      await old.client.close().catch(() => {});
      const c = await openClient(ctx.url, false, run.log);
      c.sessions = [...old.sessions, c.transport.sessionId];
      c.reinits = (old.reinits ?? 0) + 1;
      c.onElicit = onElicit;
      run.legacy[i] = c;
      ctx.clients.push(c);
      return c;
    };

    const status = (err) => err?.status ?? err?.data?.status;

    const worker = async (era, i) => {
      for (;;) {
        const n = next++;
        if (n >= CALLS) return;
        if (n === killAt + Math.floor(CALLS / 4)) kill(); // should no such elicitation have come
        const startedAfterExit = run.exitedAt !== undefined;
        const mrtr = n % 5 === 0;
        const call = { n, era, mrtr, startedAfterExit, failures: [], notFound: 0, answers: 0 };
        run.calls.push(call);
        let retried = false;
        for (;;) {
          const c = era === 'modern' ? run.modern[i] : run.legacy[i];
          call.session = c.transport.sessionId;
          try {
            const r = await attempt(c, n, mrtr);
            call.answers++;
            call.got = r.got;
            call.ok = r.got === r.want && !r.isError;
            break;
          } catch (err) {
            const code = status(err);
            if (era === 'legacy' && code === 404 && call.notFound === 0) {
              // Session not found: a new session, and the call again (the specification's rule).
              call.notFound++;
              call.lostSession = c.transport.sessionId;
              await reinitialize(i);
              continue;
            }
            call.failures.push(`${code ?? ''} ${String(err).slice(0, 100)}`);
            if (err?.code === SdkErrorCode.RequestTimeout && !err.streamCut) {
              call.hung = true; // the hang guard: a failure, not a reason to retry
              break;
            }
            if (retried) break;
            retried = true;
          }
        }
        call.done = true;
      }
    };
    await Promise.all([
      ...run.modern.map((_, i) => worker('modern', i)),
      ...run.legacy.map((_, i) => worker('legacy', i)),
    ]);
    await killing;
    assert.ok(run.killedInCall, `the kill came from inside a call on ${VICTIM}`);
    const bad = run.calls.filter((c) => !c.ok || c.answers !== 1);
    assert.equal(bad.length, 0, `calls without exactly one right answer: ${JSON.stringify(bad.slice(0, 10))}\n${logs()}`);
    assert.equal(run.calls.length, CALLS);
  });

  test('every call got its answer after at most one retry; none before the kill failed; all after the exit succeeded at once', (t) => {
    const retried = run.calls.filter((c) => c.failures.length > 0);
    assert.ok(retried.every((c) => c.failures.length === 1), 'at most one retry');
    assert.ok(retried.length > 0, `the call in flight on ${VICTIM} when it was killed failed and was retried`);
    const before = run.calls.filter((c) => c.beforeKill);
    assert.ok(before.length > 0);
    assert.deepEqual(before.filter((c) => c.failures.length || c.notFound).map((c) => c.n), [], 'calls finished before the kill');
    const later = run.calls.filter((c) => c.startedAfterExit);
    assert.ok(later.length > 0);
    assert.deepEqual(later.filter((c) => c.failures.length).map((c) => [c.n, c.failures]), [], 'calls started after the exit');
    for (const c of retried) t.diagnostic(`retried: call ${c.n} (${c.era}${c.mrtr ? ', MRTR' : ''}): ${c.failures[0]}`);
    t.diagnostic(`calls ${run.calls.length}, retried once ${retried.length}, 404 then a new session ${run.calls.filter((c) => c.notFound).length}; started after ${VICTIM}'s exit ${later.length}`);
  });

  test('2026-07-28 calls were spread over the three replicas', (t) => {
    const served = Object.fromEntries(NODES.map((n) => [n, 0]));
    const modern = run.log.filter((e) => e.rpc === 'tools/call' && !e.session && e.status === 200);
    for (const e of modern) served[ctx.nodeOfPort[e.upstream]]++;
    t.diagnostic(`2026-07-28 tools/call POSTs answered 200 by replica: ${JSON.stringify(served)}`);
    for (const n of NODES) assert.ok(served[n] > 0, `${n} served no 2026 call: ${JSON.stringify(served)}`);
    // Requests without a session (2026-07-28 ones, and the initialize of a new session) that nginx
    // first tried on the dead replica. How many depends on timing (a replica that failed once is
    // left out for fail_timeout), so the count is only reported; that they all succeeded at
    // once is checked above.
    const passedOn = run.log.filter((e) => !e.session && e.tries > 1);
    t.diagnostic(`requests without a session that nginx passed to another replica after a refused connection: ${passedOn.length}`);
    assert.ok(passedOn.every((e) => e.status === 200 && ctx.nodeOfPort[e.upstream] !== VICTIM));
  });

  test('2025-11-25 sessions stayed on their replica; only those of the dead replica got 404, and each started a new session', (t) => {
    const bySession = run.log.filter((e) => e.session && e.status !== null);
    assert.ok(bySession.length > 0);
    const stray = bySession.filter((e) => e.status >= 200 && e.status < 300 && ctx.nodeOfPort[e.upstream] !== nodeOfSession(e.session));
    assert.deepEqual(stray.map((e) => [e.method, e.rpc, e.session, e.upstream]), [], 'answered by another replica than the session\'s');
    const notFound = bySession.filter((e) => e.status === 404);
    assert.ok(notFound.length > 0, 'a session of the dead replica got 404');
    assert.deepEqual([...new Set(notFound.map((e) => nodeOfSession(e.session)))], [VICTIM], 'only sessions of the dead replica got 404');
    assert.ok(notFound.every((e) => ctx.nodeOfPort[e.upstream] !== VICTIM), 'the 404 came from a live replica');
    const lost = run.legacy.filter((c) => nodeOfSession(c.sessions[0]) === VICTIM);
    assert.ok(lost.length > 0);
    for (const c of lost) {
      assert.ok(c.reinits >= 1, `the session ${c.sessions[0]} started again`);
      assert.notEqual(nodeOfSession(c.transport.sessionId), VICTIM);
    }
    for (const c of run.legacy.filter((c) => nodeOfSession(c.sessions[0]) !== VICTIM)) assert.equal(c.reinits ?? 0, 0, `${c.sessions[0]} kept its session`);
    t.diagnostic(`2025-11-25 session POSTs by replica: ${JSON.stringify(Object.fromEntries(NODES.map((n) => [n, bySession.filter((e) => e.method === 'POST' && e.status === 200 && ctx.nodeOfPort[e.upstream] === n).length])))}; 404s ${notFound.length}`);
  });

  test('the listen held on the dead replica ended, the others stayed open, and listening again lands on a live replica', async () => {
    const dead = run.listens.filter((l) => l.node === VICTIM);
    for (const l of dead) assert.equal(await timed(l.sub.closed, EXIT_TIMEOUT_MS), 'remote', `the listen on ${VICTIM} ended from the server's side`);
    const live = run.listens.filter((l) => l.node !== VICTIM);
    assert.deepEqual(live.map((l) => [l.node, l.cause]), live.map((l) => [l.node, null]), 'the listens on live replicas are open');
    const again = await listen(run.listener, run.log);
    assert.notEqual(again.node, VICTIM);
    assert.ok(NODES.includes(again.node));
    for (const l of [...live, again]) {
      await l.sub.close();
      assert.equal(await timed(l.sub.closed, EXIT_TIMEOUT_MS), 'local');
    }
  });

  test('the surviving replicas and nginx stop with exit status 0', async () => {
    for (const c of ctx.clients) {
      if (c.transport.sessionId) await c.transport.terminateSession().catch(() => {});
      await c.client.close().catch(() => {});
    }
    ctx.clients = [];
    for (const node of NODES.filter((n) => n !== VICTIM)) {
      const r = ctx.replicas[node];
      assert.equal(r.child.exitCode, null, `${node} is still running`);
      r.child.kill('SIGTERM');
      const end = await timed(r.exited, EXIT_TIMEOUT_MS);
      assert.deepEqual(end, { code: 0, signal: null }, `${node}'s stderr:\n${r.stderr()}`);
    }
    ctx.nginx.child.kill('SIGQUIT');
    const end = await timed(ctx.nginx.exited, EXIT_TIMEOUT_MS);
    assert.deepEqual(end, { code: 0, signal: null }, logs());
  });
});
