// spec_check.mjs itself: it accepts what the MCP 2025-11-25 schema accepts, rejects what it
// rejects, tells every message's kind or complains, and reads server-sent events however the
// bytes are split; a message is checked by the schema of the revision its request claims
// (2026-07-28 in `_meta`). No server is needed.
//
// Run: node_modules/.bin/node --test spec_check.test.mjs (from tests/e2e; ctest does it too).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';

import { MODERN, SpecChecker, tapStdio, tapStdioClass } from './spec_check.mjs';

const call = (id, name) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });

/** A checker that has sent requests 1 (tools/call), 2 (ping) and "s" (initialize). */
function checker() {
  const spec = new SpecChecker();
  spec.noteSent(call(1, 'x'));
  spec.noteSent({ jsonrpc: '2.0', id: 2, method: 'ping' });
  spec.noteSent({ jsonrpc: '2.0', id: 's', method: 'initialize', params: {} });
  return spec;
}

describe('spec_check: kinds and validity', () => {
  test('valid messages of each kind pass, counted by type', () => {
    const spec = checker();
    spec.check({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } }, 't');
    spec.check({ jsonrpc: '2.0', id: 2, result: {} }, 't');
    spec.check({
      jsonrpc: '2.0', id: 's',
      result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'n', version: '1' } },
    }, 't');
    spec.check({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 50, total: 100 } }, 't');
    spec.check({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }, 't');
    spec.check({
      jsonrpc: '2.0', id: 0, method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'p' } }], maxTokens: 100 },
    }, 't');
    spec.check({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }, 't');
    spec.assertClean();
    assert.deepEqual(spec.counts, {
      CallToolResult: 1, EmptyResult: 1, InitializeResult: 1, ProgressNotification: 1,
      LoggingMessageNotification: 1, CreateMessageRequest: 1, JSONRPCErrorResponse: 1,
    });
    assert.equal(spec.pending.size, 0);
  });

  test('a result is checked against the Result type of its request\'s method', () => {
    const spec = checker();
    // A Result, but not an InitializeResult: serverInfo is missing.
    spec.check({ jsonrpc: '2.0', id: 's', result: { protocolVersion: '2025-11-25', capabilities: {} } }, 't');
    assert.throws(() => spec.assertClean(), /InitializeResult: .*serverInfo/);
  });

  test('invalid content: bad base64, a missing mimeType, an unknown block type', () => {
    for (const block of [
      { type: 'image', data: 'not base64!', mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==' },
      { type: 'video', data: 'UklGRg==', mimeType: 'video/mp4' },
    ]) {
      const spec = checker();
      spec.check({ jsonrpc: '2.0', id: 1, result: { content: [block] } }, 't');
      assert.throws(() => spec.assertClean(), /not a valid CallToolResult/, JSON.stringify(block));
    }
  });

  test('messages of no known kind are problems', () => {
    const cases = [
      [{ jsonrpc: '2.0', method: 'notifications/whatever' }, /unknown method/],
      [{ jsonrpc: '2.0', id: 9, method: 'tools/list' }, /request of unknown method/],
      [{ jsonrpc: '2.0', id: 77, result: {} }, /no pending request/],
      [{ jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } }, /both result and error/],
      [{ jsonrpc: '2.0' }, /neither/],
      [[{ jsonrpc: '2.0', id: 1, result: {} }], /batch/],
      ['text', /not a JSON-RPC message/],
    ];
    for (const [message, pattern] of cases) {
      const spec = checker();
      spec.check(message, 't');
      assert.throws(() => spec.assertClean(), pattern, JSON.stringify(message));
    }
  });

  test('ids keep their JSON type: a response to "1" does not answer request 1', () => {
    const spec = checker();
    spec.check({ jsonrpc: '2.0', id: '1', result: { content: [] } }, 't');
    assert.throws(() => spec.assertClean(), /id "1", which no pending request has/);
  });

  test('an error with id null is not the 2025-11-25 JSONRPCErrorResponse (the id is left out)', () => {
    const spec = checker();
    spec.check({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }, 't');
    assert.throws(() => spec.assertClean(), /JSONRPCErrorResponse: \/id/);
  });

  test('a second response to the same request is a problem', () => {
    const spec = checker();
    spec.check({ jsonrpc: '2.0', id: 2, result: {} }, 't');
    spec.check({ jsonrpc: '2.0', id: 2, result: {} }, 't');
    assert.throws(() => spec.assertClean(), /id 2, which no pending request has/);
  });

  test('assertClean reports each problem once', () => {
    const spec = checker();
    spec.check({ jsonrpc: '2.0', method: 'nope' }, 't');
    assert.throws(() => spec.assertClean());
    spec.assertClean();
  });
});

/** A fetch answering with body, delivered in pieces of n bytes. */
function fetchOf(body, type, n) {
  const bytes = new TextEncoder().encode(body);
  return async () =>
    new Response(new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += n) controller.enqueue(bytes.slice(i, i + n));
        controller.close();
      },
    }), { status: 200, headers: { 'content-type': type } });
}

const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
};
/** A 2026-07-28 request: its _meta claims the revision. */
const modern = (id, method, params = {}) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } });

describe('spec_check: the revision in force', () => {
  test('a response to a 2026-07-28 request is checked whole by the 2026-07-28 schema', () => {
    const spec = new SpecChecker();
    spec.noteSent(modern(1, 'tools/call', { name: 'x' }));
    spec.noteSent(modern(2, 'tools/call', { name: 'x' }));
    spec.noteSent(modern(3, 'server/discover'));
    spec.check({ jsonrpc: '2.0', id: 1, result: { resultType: 'complete', content: [] } }, 't');
    spec.check({
      jsonrpc: '2.0', id: 2,
      result: {
        resultType: 'input_required', requestState: 'opaque',
        inputRequests: { e: { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: {} } } } },
      },
    }, 't');
    spec.check({
      jsonrpc: '2.0', id: 3,
      result: {
        resultType: 'complete', supportedVersions: [MODERN], capabilities: {}, serverInfo: { name: 'n', version: '1' },
        ttlMs: 0, cacheScope: 'public',
      },
    }, 't');
    spec.assertClean();
    assert.deepEqual(spec.countsOf(MODERN), { CallToolResultResponse: 2, DiscoverResultResponse: 1 });
    assert.deepEqual(spec.counts, {}, 'nothing under 2025-11-25');
  });

  test('the same result without resultType passes in 2025-11-25 and fails in 2026-07-28', () => {
    const legacy = new SpecChecker();
    legacy.noteSent(call(1, 'x'));
    legacy.check({ jsonrpc: '2.0', id: 1, result: { content: [] } }, 't');
    legacy.assertClean();
    const spec = new SpecChecker();
    spec.noteSent(modern(1, 'tools/call', { name: 'x' }));
    spec.check({ jsonrpc: '2.0', id: 1, result: { content: [] } }, 't');
    assert.throws(() => spec.assertClean(), /2026-07-28: not a valid CallToolResultResponse: .*resultType/);
  });

  test('2026-07-28 has no server requests, no initialize and no ping', () => {
    const spec = new SpecChecker();
    spec.noteSent(modern(1, 'tools/call', { name: 'x' }));
    spec.check({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties: {} } } }, 't');
    assert.throws(() => spec.assertClean(), /request of unknown method elicitation\/create in 2026-07-28/);
    spec.noteSent(modern(2, 'ping'));
    spec.check({ jsonrpc: '2.0', id: 2, result: {} }, 't');
    assert.throws(() => spec.assertClean(), /a response to ping, whose Result type in 2026-07-28/);
  });

  test('a notification takes the revision of the latest request, or the one given', () => {
    const spec = new SpecChecker();
    spec.noteSent(modern(1, 'subscriptions/listen', { notifications: { toolsListChanged: true } }));
    const ack = {
      jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 1 }, notifications: { toolsListChanged: true } },
    };
    spec.check(ack, 't');
    spec.assertClean();
    spec.check(ack, 't', '2025-11-25');
    assert.throws(() => spec.assertClean(), /notification of unknown method notifications\/subscriptions\/acknowledged in 2025-11-25/);
  });
});

describe('spec_check: the HTTP tap', () => {
  const log = (data) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } });
  const sse =
    ': a comment\n' +
    'id: 1-0\nretry: 500\ndata: \n\n' + // priming: no message
    `id: 1-1\r\ndata: ${log('é, split anywhere')}\r\n\r\n` +
    `event: message\rid: 1-2\rdata: ${log('cr only')}\r\r` +
    `id: 1-3\ndata: {"jsonrpc":"2.0",\ndata: "id":1,"result":{"content":[]}}\n\n`;

  for (const n of [1, 2, 3, 7, 1000]) {
    test(`SSE read in pieces of ${n} bytes: every event, and the client gets the same bytes`, async () => {
      const spec = checker();
      const f = spec.fetch(fetchOf(sse, 'text/event-stream; charset=utf-8', n));
      const response = await f('http://127.0.0.1/mcp', { method: 'POST', body: JSON.stringify(call(5, 'y')) });
      assert.equal(await response.text(), sse);
      await spec.settle();
      spec.assertClean();
      assert.deepEqual(spec.seen.map((s) => s.message.params?.data ?? s.message.id),
        ['é, split anywhere', 'cr only', 1]);
      assert.deepEqual([...spec.pending.keys()], ['2', '"s"', '5'], 'request 5 was noted from the POST body');
    });
  }

  test('an invalid message in an SSE event, and a stream that ends inside an event', async () => {
    const spec = checker();
    const body = `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } })}\n\n` +
      'data: {"jsonrpc":"2.0","id":1,"res';
    await (await spec.fetch(fetchOf(body, 'text/event-stream', 5))('u', { method: 'POST' })).text();
    await spec.settle();
    assert.throws(() => spec.assertClean(), (err) =>
      /ProgressNotification: .*progressToken/.test(err.message) && /ended inside an event/.test(err.message));
  });

  test('a response is checked by the revision of the request POSTed, a GET stream by its header', async () => {
    const spec = new SpecChecker();
    const progress = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
    const body = `data: ${progress}\n\ndata: {"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}\n\n`;
    const post = { method: 'POST', headers: { 'MCP-Protocol-Version': MODERN }, body: JSON.stringify(modern(7, 'tools/list')) };
    await (await spec.fetch(fetchOf(body, 'text/event-stream', 9))('u', post)).text();
    const get = { method: 'GET', headers: new Headers({ 'mcp-protocol-version': '2025-11-25' }) };
    await (await spec.fetch(fetchOf(`data: ${progress}\n\n`, 'text/event-stream', 9))('u', get)).text();
    await spec.settle({ all: true });
    spec.assertClean();
    assert.deepEqual(spec.countsOf(MODERN), { ProgressNotification: 1, ListToolsResultResponse: 1 });
    assert.deepEqual(spec.counts, { ProgressNotification: 1 });
  });

  test('a JSON body is checked; a body of another type is left alone', async () => {
    const spec = checker();
    await (await spec.fetch(fetchOf('{"jsonrpc":"2.0","id":2,"result":{}}', 'application/json', 4))('u', { method: 'POST' })).text();
    await (await spec.fetch(fetchOf('Not Found', 'text/plain', 4))('u', { method: 'GET' })).text();
    await spec.settle({ all: true });
    spec.assertClean();
    assert.deepEqual(spec.counts, { EmptyResult: 1 });
    const bad = checker();
    await (await bad.fetch(fetchOf('{"jsonrpc":"2.0","id":2,', 'application/json', 4))('u', { method: 'POST' })).text();
    await bad.settle();
    assert.throws(() => bad.assertClean(), /not JSON/);
  });
});

describe('spec_check: the stdio tap', () => {
  test('lines split across chunks, a character split across chunks, blank lines', async () => {
    const stdout = new PassThrough();
    const transport = {
      sent: [],
      async start() {
        this._process = { stdout };
      },
      async send(m) {
        this.sent.push(m);
      },
    };
    const spec = new SpecChecker();
    tapStdio(transport, spec);
    await transport.start();
    await transport.send(call(3, 'z'));
    assert.deepEqual(transport.sent, [call(3, 'z')], 'send still reaches the transport');
    const text = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'ü' } })}\n\n` +
      `${JSON.stringify({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'ok' }] } })}\r\n` +
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":1}}\n';
    const bytes = Buffer.from(text, 'utf8');
    const at = bytes.indexOf(Buffer.from('ü', 'utf8')) + 1; // inside the two bytes of ü
    for (const piece of [bytes.subarray(0, at), bytes.subarray(at, at + 40), bytes.subarray(at + 40)]) stdout.write(piece);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(spec.seen[0].message.params.data, 'ü');
    assert.deepEqual(spec.counts, { LoggingMessageNotification: 2, CallToolResult: 1 });
    assert.throws(() => spec.assertClean(), /LoggingMessageNotification: \/params\/level/);
  });
});

describe('spec_check: the stdio tap of a transport class', () => {
  test('every instance whose env names the checker is tapped, the probe sibling too', async () => {
    class FakeStdio {
      constructor(params) {
        this._serverParams = params;
        this.sent = [];
      }
      async start() {
        this._process = { stdout: new PassThrough() };
      }
      async send(m) {
        this.sent.push(m);
      }
    }
    tapStdioClass(FakeStdio);
    tapStdioClass(FakeStdio); // a second call taps nothing twice
    const spec = new SpecChecker();
    const session = new FakeStdio({ command: 'server', env: spec.stdioEnv() });
    const sibling = new FakeStdio({ ...session._serverParams, stderr: 'ignore' });
    const other = new FakeStdio({ command: 'server' });
    for (const t of [session, sibling, other]) await t.start();
    await sibling.send(modern('probe-1', 'server/discover'));
    sibling._process.stdout.write('{"jsonrpc":"2.0","id":"probe-1","error":{"code":-32601,"message":"Method not found"}}\n');
    await session.send(call(0, 'x'));
    session._process.stdout.write('{"jsonrpc":"2.0","id":0,"result":{"content":[]}}\n');
    await other.send(call(1, 'x'));
    other._process.stdout.write('not even JSON\n');
    await new Promise((resolve) => setImmediate(resolve));
    spec.assertClean();
    assert.deepEqual(session.sent, [call(0, 'x')], 'send still reaches the transport');
    assert.deepEqual(spec.seen.map((s) => [s.where, s.revision]), [['probe stdout', MODERN], ['stdout', '2025-11-25']]);
    assert.deepEqual(spec.sent.map((m) => m.id), ['probe-1', 0], 'the untapped transport is not noted');
  });
});
