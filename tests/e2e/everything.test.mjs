// The official MCP TypeScript client against the everything example, over stdio and over
// Streamable HTTP: the same tests on both transports.
//
// The client declares sampling and elicitation and answers them with handlers each test sets;
// tools of every content type, logging, progress, sampling, elicitation (accept, decline,
// cancel; the SEP-1034 and SEP-1330 forms), resources, the resource template, subscriptions,
// prompts and completions are exercised. Every message the server sends is checked against the
// MCP 2025-11-25 schema (spec_check.mjs), and where order matters (progress before the result)
// the raw messages are looked at.
//
// Environment:
//   EVERYTHING_SERVER  the everything-server executable (required)
//   E2E_TRANSPORTS     the transports to test, comma-separated (default "stdio,http")
//   WRAP               a command line to run the server under, e.g. valgrind; the server must
//                      still exit with status 0 at the end of each session.
//
// Run: node_modules/.bin/node --test everything.test.mjs (from tests/e2e; ctest does it too).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { startHttpServer, stdioChild, waitFor } from './e2e_util.mjs';
import { SpecChecker, tapStdio } from './spec_check.mjs';

const SERVER = process.env.EVERYTHING_SERVER;
const TRANSPORTS = (process.env.E2E_TRANSPORTS ?? 'stdio,http').split(',').map((t) => t.trim()).filter(Boolean);
const WRAP = (process.env.WRAP ?? '').trim().split(/\s+/).filter(Boolean);
// Hang guards only (valgrind's leak check at exit included).
const EXIT_TIMEOUT_MS = 120_000;
const WAIT_TIMEOUT_MS = 60_000;

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const SAMPLING_ANSWER = {
  role: 'assistant',
  content: { type: 'text', text: 'This is a test response from the client' },
  model: 'test-model',
  stopReason: 'endTurn',
};
const TOOLS = [
  'test_simple_text', 'test_image_content', 'test_audio_content', 'test_embedded_resource',
  'test_multiple_content_types', 'test_tool_with_logging', 'test_error_handling',
  'test_tool_with_progress', 'test_sampling', 'test_elicitation', 'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums', 'json_schema_2020_12_tool', 'test_reconnection',
  'test_trigger_tool_change', 'test_trigger_prompt_change', 'test_custom_headers',
];
// The requestedSchema properties the conformance suite checks (SEP-1034 and SEP-1330).
const SEP1034_PROPERTIES = {
  name: { type: 'string', default: 'John Doe' },
  age: { type: 'integer', default: 30 },
  score: { type: 'number', default: 95.5 },
  status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
  verified: { type: 'boolean', default: true },
};
const SEP1330_PROPERTIES = {
  untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
  titledSingle: {
    type: 'string',
    oneOf: [
      { const: 'value1', title: 'First Option' },
      { const: 'value2', title: 'Second Option' },
      { const: 'value3', title: 'Third Option' },
    ],
  },
  legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
  untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
  titledMulti: {
    type: 'array',
    items: {
      anyOf: [
        { const: 'value1', title: 'First Choice' },
        { const: 'value2', title: 'Second Choice' },
        { const: 'value3', title: 'Third Choice' },
      ],
    },
  },
};

const text = (t) => ({ type: 'text', text: t });

/** The client with its sampling and elicitation handlers, whose answers the tests choose. */
function makeClient(session) {
  const client = new Client(
    { name: 'mcpidl-e2e-everything', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    session.sampling.push(request.params);
    return session.answerSampling(request.params);
  });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    session.elicitations.push(request.params);
    return session.answerElicitation(request.params);
  });
  // Each waiter (waitFor) is a check that is done once it holds.
  const notified = () => {
    session.waiters = session.waiters.filter((check) => !check());
  };
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    session.logs.push(n.params);
    notified();
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    session.updates.push(n.params);
    notified();
  });
  for (const [schema, list] of [[ToolListChangedNotificationSchema, 'tools'], [PromptListChangedNotificationSchema, 'prompts']]) {
    client.setNotificationHandler(schema, () => {
      session.listChanges.push(list);
      notified();
    });
  }
  return client;
}

function newSession(kind) {
  return {
    kind,
    spec: new SpecChecker(),
    sampling: [],
    elicitations: [],
    logs: [],
    updates: [],
    listChanges: [],
    waiters: [],
    answerSampling: () => SAMPLING_ANSWER,
    answerElicitation: () => ({ action: 'decline' }),
  };
}

function serverCommand(args) {
  return WRAP.length ? [WRAP[0], [...WRAP.slice(1), SERVER, ...args]] : [SERVER, args];
}

/** A session over stdio; close() ends the server's input and waits for it to exit. */
async function openStdio() {
  const session = newSession('stdio');
  const [command, args] = serverCommand([]);
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (d) => (stderr += d));
  tapStdio(transport, session.spec);
  session.client = makeClient(session);
  await session.client.connect(transport);
  const { child, exited } = stdioChild(transport);
  session.close = async () => {
    // The SDK's close() would SIGTERM a server that takes over 2 s to exit, as valgrind does.
    child.stdin.end();
    const end = await timed(exited, EXIT_TIMEOUT_MS);
    await session.client.close();
    return { ...(end ?? { code: 'no exit', signal: null }), stderr };
  };
  return session;
}

/** A session over Streamable HTTP; close() sends DELETE, then stops the server with SIGTERM. */
async function openHttp() {
  const session = newSession('http');
  const [command, args] = serverCommand(['--http', '127.0.0.1:0']);
  const { child, url, exited, stderr } = await startHttpServer(command, args, WAIT_TIMEOUT_MS);
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: session.spec.fetch() });
  session.client = makeClient(session);
  await session.client.connect(transport);
  session.transport = transport;
  session.url = url;
  session.close = async () => {
    await transport.terminateSession();
    await session.client.close();
    child.kill('SIGTERM');
    const end = await timed(exited, EXIT_TIMEOUT_MS);
    if (!end) child.kill('SIGKILL');
    return { ...(end ?? { code: 'no exit', signal: null }), stderr: stderr() };
  };
  session.kill = () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL');
  return session;
}

/** p, or null once ms have passed. */
async function timed(p, ms) {
  let timer;
  const r = await Promise.race([p, new Promise((resolve) => (timer = setTimeout(() => resolve(null), ms)))]);
  clearTimeout(timer);
  return r;
}

/**
 * Runs fn and returns its value with the raw messages of the exchange: what the client sent and
 * what the server sent, in wire order, once every POST's response has been read.
 */
async function exchange(session, fn) {
  const { spec } = session;
  const sentFrom = spec.sent.length;
  const seenFrom = spec.seen.length;
  const value = await fn();
  await spec.settle();
  const seen = spec.seen.slice(seenFrom);
  return { value, sent: spec.sent.slice(sentFrom), seen: seen.map((s) => s.message), where: seen.map((s) => s.where) };
}

/** The raw response to the one request of method that the exchange sent. */
function rawResponse({ sent, seen }, method) {
  const requests = sent.filter((m) => m.method === method && m.id !== undefined);
  assert.equal(requests.length, 1, `one ${method} request`);
  const i = seen.findIndex((m) => m.id === requests[0].id && ('result' in m || 'error' in m));
  assert.ok(i >= 0, `the response to ${method} was seen on the wire`);
  return { request: requests[0], response: seen[i], index: i };
}

async function rejectsWith(promise, code, pattern) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof McpError, `an McpError: ${err}`);
    assert.equal(err.code, code, err.message);
    if (pattern) assert.match(err.message, pattern);
    return true;
  });
}

for (const kind of TRANSPORTS) {
  describe(`everything-server over ${kind}`, { concurrency: 1 }, () => {
    let session;
    let client;
    let closed = false;

    before(async () => {
      assert.ok(SERVER, 'set EVERYTHING_SERVER to the everything-server executable');
      assert.ok(kind === 'stdio' || kind === 'http', `unknown transport ${kind}`);
      session = kind === 'stdio' ? await openStdio() : await openHttp();
      client = session.client;
    });

    afterEach(async () => {
      await session.spec.settle();
      session.spec.assertClean();
    });

    after(async () => {
      if (!closed) {
        await session?.client.close().catch(() => {});
        session?.kill?.();
      }
    });

    test('initialize: server info and capabilities', () => {
      assert.deepEqual(client.getServerVersion(), { name: 'mcpidl-everything', title: 'mcpidl everything server', version: '1.0.0' });
      const caps = client.getServerCapabilities();
      for (const c of ['tools', 'resources', 'prompts', 'logging', 'completions']) assert.ok(caps?.[c], `capability ${c}`);
      assert.equal(caps.resources.subscribe, true, 'resources.subscribe');
      // list_changed: [tools, prompts] in the IDL; resources are not announced.
      assert.equal(caps.tools.listChanged, true, 'tools.listChanged');
      assert.equal(caps.prompts.listChanged, true, 'prompts.listChanged');
      assert.equal(caps.resources.listChanged ?? false, false, 'resources.listChanged');
    });

    test('list changes: the trigger tools announce tools/list_changed and prompts/list_changed', async () => {
      for (const [tool, list] of [['test_trigger_tool_change', 'tools'], ['test_trigger_prompt_change', 'prompts']]) {
        const from = session.listChanges.length;
        const r = await client.callTool({ name: tool, arguments: {} });
        assert.deepEqual(r.content, [text('Mutation triggered')]);
        await waitFor(session, () => session.listChanges.length > from, `notifications/${list}/list_changed`, WAIT_TIMEOUT_MS);
        assert.deepEqual(session.listChanges.slice(from), [list]);
      }
    });

    test('ping: exactly {}', async () => {
      const ex = await exchange(session, () => client.ping());
      assert.deepEqual(rawResponse(ex, 'ping').response.result, {});
    });

    test('tools/list: every tool, each with a description and an object inputSchema', async () => {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const name of TOOLS) assert.ok(names.includes(name), `tool ${name} listed`);
      for (const t of tools) {
        assert.ok(t.description, `${t.name} has a description`);
        assert.equal(t.inputSchema.type, 'object', `${t.name} inputSchema.type`);
      }
      const sampling = tools.find((t) => t.name === 'test_sampling');
      assert.equal(sampling.inputSchema.properties.prompt.type, 'string');
      assert.deepEqual(sampling.inputSchema.required, ['prompt']);
    });

    test('json_schema_2020_12_tool: $schema, $defs and additionalProperties as written', async () => {
      const { tools } = await client.listTools();
      const schema = tools.find((t) => t.name === 'json_schema_2020_12_tool').inputSchema;
      assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
      assert.equal(schema.additionalProperties, false);
      assert.equal(schema.$defs.address.type, 'object');
      assert.deepEqual(Object.keys(schema.$defs.address.properties), ['street', 'city']);
      assert.equal(schema.properties.name.type, 'string');
      assert.equal(schema.properties.address.$ref, '#/$defs/address');
      // The SEP-2106 keywords written with schema_extra, published as written.
      assert.equal(schema.$defs.address.$anchor, 'addressDef');
      assert.deepEqual(schema.allOf, [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }]);
      assert.deepEqual(schema.if, { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] });
      assert.deepEqual(schema.then, { required: ['phone'] });
      assert.deepEqual(schema.else, { required: ['email'] });
      assert.deepEqual(schema.properties.contactMethod.enum, ['phone', 'email']);
      const r = await client.callTool({
        name: 'json_schema_2020_12_tool',
        arguments: { name: 'Ada', address: { street: '1 Main St', city: 'Springfield' } },
      });
      assert.deepEqual(r.content, [text('name=Ada street=1 Main St city=Springfield')]);
      // additionalProperties: false is enforced, not only declared.
      const extra = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'Ada', age: 3 } });
      assert.equal(extra.isError, true, JSON.stringify(extra));
    });

    test('test_simple_text, called without arguments', async () => {
      const ex = await exchange(session, () => client.callTool({ name: 'test_simple_text' }));
      assert.equal('arguments' in rawResponse(ex, 'tools/call').request.params, false);
      assert.deepEqual(ex.value.content, [text('This is a simple text response for testing.')]);
      assert.equal(ex.value.isError, false);
    });

    test('test_image_content and test_audio_content: PNG and WAV', async () => {
      const image = await client.callTool({ name: 'test_image_content', arguments: {} });
      assert.deepEqual(image.content, [{ type: 'image', data: PNG, mimeType: 'image/png' }]);
      const audio = await client.callTool({ name: 'test_audio_content', arguments: {} });
      assert.equal(audio.content.length, 1);
      assert.equal(audio.content[0].type, 'audio');
      assert.equal(audio.content[0].mimeType, 'audio/wav');
      assert.equal(Buffer.from(audio.content[0].data, 'base64').subarray(0, 4).toString('latin1'), 'RIFF');
    });

    test('test_embedded_resource and test_multiple_content_types', async () => {
      const embedded = await client.callTool({ name: 'test_embedded_resource', arguments: {} });
      assert.deepEqual(embedded.content, [{
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      }]);
      const mixed = await client.callTool({ name: 'test_multiple_content_types', arguments: {} });
      assert.deepEqual(mixed.content, [
        text('Multiple content types test:'),
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' },
        },
      ]);
    });

    test('test_error_handling: an isError result, not a JSON-RPC error', async () => {
      const r = await client.callTool({ name: 'test_error_handling', arguments: {} });
      assert.equal(r.isError, true);
      // libmcpidl words a failed call as FastMCP does.
      assert.deepEqual(r.content, [text('Error executing tool test_error_handling: This tool intentionally returns an error for testing')]);
    });

    test('an unknown tool: JSON-RPC error -32602', async () => {
      await rejectsWith(client.callTool({ name: 'no_such_tool', arguments: {} }), ErrorCode.InvalidParams, /no_such_tool/);
    });

    test('logging/setLevel debug: exactly {}; test_tool_with_logging sends 3 messages before its result', async () => {
      const set = await exchange(session, () => client.setLoggingLevel('debug'));
      assert.deepEqual(rawResponse(set, 'logging/setLevel').response.result, {});
      const from = session.logs.length;
      const ex = await exchange(session, () => client.callTool({ name: 'test_tool_with_logging', arguments: {} }));
      assert.deepEqual(ex.value.content, [text('Tool with logging executed successfully')]);
      const { index } = rawResponse(ex, 'tools/call');
      const logged = ex.seen.filter((m) => m.method === 'notifications/message');
      assert.deepEqual(logged.map((m) => [m.params.level, m.params.data]), [
        ['info', 'Tool execution started'],
        ['info', 'Tool processing data'],
        ['info', 'Tool execution completed'],
      ]);
      for (const m of logged) assert.ok(ex.seen.indexOf(m) < index, 'each log message comes before the result');
      assert.deepEqual(session.logs.slice(from), logged.map((m) => m.params), 'the client handled each');
    });

    test('logging/setLevel error: the info messages are no longer sent', async () => {
      await client.setLoggingLevel('error');
      const ex = await exchange(session, () => client.callTool({ name: 'test_tool_with_logging', arguments: {} }));
      assert.equal(ex.value.isError, false);
      assert.deepEqual(ex.seen.filter((m) => m.method === 'notifications/message'), []);
      await client.setLoggingLevel('debug');
    });

    test('test_tool_with_progress: 0, 50, 100 of 100 with the request\'s token, before the result', async () => {
      const progress = [];
      const ex = await exchange(session, () =>
        client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, { onprogress: (p) => progress.push(p) }));
      assert.deepEqual(ex.value.content, [text('Progress test completed')]);
      const { request, index } = rawResponse(ex, 'tools/call');
      const token = request.params._meta.progressToken;
      assert.equal(typeof token, 'number', 'the SDK uses the request id as the token');
      const notes = ex.seen.filter((m) => m.method === 'notifications/progress');
      assert.equal(notes.length, 3);
      for (const m of notes) {
        assert.strictEqual(m.params.progressToken, token, 'the same token, of the same JSON type');
        assert.ok(ex.seen.indexOf(m) < index, 'progress comes before the result');
      }
      assert.deepEqual(notes.map((m) => [m.params.progress, m.params.total]), [[0, 100], [50, 100], [100, 100]]);
      // The client matched them to the call. (It may drop the last: the SDK hands a notification
      // on a microtask later, and the response that follows it at once has by then removed the
      // call's progress handler.)
      assert.ok(progress.length >= 1, 'the client matched progress to the call');
      assert.deepEqual(progress.map((p) => p.progress), [0, 50, 100].slice(0, progress.length));
    });

    test('test_sampling: sampling/createMessage as the suite expects, the answer in the result', async () => {
      session.sampling.length = 0;
      const r = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Test prompt for sampling' } });
      assert.equal(session.sampling.length, 1);
      const params = session.sampling[0];
      assert.deepEqual(params.messages, [{ role: 'user', content: text('Test prompt for sampling') }]);
      assert.equal(params.maxTokens, 100);
      assert.equal(r.isError, false);
      assert.deepEqual(r.content, [text('LLM response: This is a test response from the client')]);
    });

    test('test_sampling twice at once: each call gets its own answer', async () => {
      session.answerSampling = (params) => ({ ...SAMPLING_ANSWER, content: text(`echo ${params.messages[0].content.text}`) });
      try {
        const rs = await Promise.all(['first', 'second'].map((prompt) =>
          client.callTool({ name: 'test_sampling', arguments: { prompt } })));
        assert.deepEqual(rs.map((r) => r.content), [[text('LLM response: echo first')], [text('LLM response: echo second')]]);
      } finally {
        session.answerSampling = () => SAMPLING_ANSWER;
      }
    });

    test('test_sampling: a client that refuses makes an isError result', async () => {
      session.answerSampling = () => {
        throw new McpError(ErrorCode.InternalError, 'no model here');
      };
      try {
        const r = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'x' } });
        assert.equal(r.isError, true);
        assert.match(r.content[0].text, /sampling failed/);
      } finally {
        session.answerSampling = () => SAMPLING_ANSWER;
      }
    });

    test('test_elicitation accepted: the schema the suite expects, the values in the result', async () => {
      session.elicitations.length = 0;
      session.answerElicitation = () => ({ action: 'accept', content: { username: 'testuser', email: 'test@example.com' } });
      const r = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Please provide your information' } });
      assert.equal(session.elicitations.length, 1);
      const params = session.elicitations[0];
      assert.equal(params.message, 'Please provide your information');
      assert.deepEqual(params.requestedSchema, {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      });
      assert.equal(r.isError, false);
      assert.equal(r.content.length, 1);
      assert.match(r.content[0].text, /^User response: /);
      assert.match(r.content[0].text, /accept/);
      assert.match(r.content[0].text, /testuser/);
      assert.match(r.content[0].text, /test@example\.com/);
    });

    test('test_elicitation declined, then cancelled: the result says so', async () => {
      for (const action of ['decline', 'cancel']) {
        session.answerElicitation = () => ({ action });
        const r = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
        assert.equal(r.isError, false, `${action}: ${JSON.stringify(r)}`);
        assert.match(r.content[0].text, /^User response: /);
        assert.match(r.content[0].text, new RegExp(action));
      }
    });

    test('test_elicitation_sep1034_defaults: the defaults, and the answer decoded', async () => {
      session.elicitations.length = 0;
      session.answerElicitation = () => ({
        action: 'accept',
        content: { name: 'Jane Roe', age: 41, score: 12.5, status: 'pending', verified: false },
      });
      const r = await client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
      const { requestedSchema } = session.elicitations[0];
      assert.equal(requestedSchema.type, 'object');
      assert.deepEqual(requestedSchema.properties, SEP1034_PROPERTIES);
      assert.deepEqual(r.content, [
        text('User response: action=accept, name=Jane Roe, age=41, score=12.5, status=pending, verified=false'),
      ]);
      // Fields the user left out take their defaults.
      session.answerElicitation = () => ({ action: 'accept', content: {} });
      const d = await client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
      assert.deepEqual(d.content, [
        text('User response: action=accept, name=John Doe, age=30, score=95.5, status=active, verified=true'),
      ]);
    });

    test('test_elicitation_sep1330_enums: the five enum forms, and the answer decoded', async () => {
      session.elicitations.length = 0;
      session.answerElicitation = () => ({
        action: 'accept',
        content: {
          untitledSingle: 'option2', titledSingle: 'value3', legacyEnum: 'opt1',
          untitledMulti: ['option1', 'option3'], titledMulti: ['value2'],
        },
      });
      const r = await client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} });
      const { requestedSchema } = session.elicitations[0];
      assert.equal(requestedSchema.type, 'object');
      assert.deepEqual(requestedSchema.properties, SEP1330_PROPERTIES);
      assert.deepEqual(r.content, [text(
        'User response: action=accept, untitledSingle=option2, titledSingle=value3, legacyEnum=opt1, ' +
        'untitledMulti=[option1,option3], titledMulti=[value2]')]);
    });

    test('an accepted answer that does not fit the form: an isError result', async () => {
      session.answerElicitation = () => ({ action: 'accept', content: { untitledSingle: 'option9' } });
      const r = await client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} });
      assert.equal(r.isError, true, JSON.stringify(r));
      assert.match(r.content[0].text, /does not fit the form.*untitledSingle/s);
    });

    test('test_reconnection: the result arrives (over HTTP, after the client resumes the stream)', async () => {
      const ex = await exchange(session, () => client.callTool({ name: 'test_reconnection', arguments: {} }));
      assert.deepEqual(ex.value.content, [text('Reconnection test completed')]);
      if (kind === 'http') {
        // The POST stream closed before the answer, which came when the client resumed the
        // stream with GET and Last-Event-ID.
        const { index } = rawResponse(ex, 'tools/call');
        assert.match(ex.where[index], /^GET 200 text\/event-stream/);
      }
    });

    test('resources/list: the three resources', async () => {
      const { resources } = await client.listResources();
      assert.deepEqual(resources.map((r) => r.uri), ['test://static-text', 'test://static-binary', 'test://watched-resource']);
      for (const r of resources) assert.ok(r.name, `${r.uri} has a name`);
      assert.deepEqual(resources.map((r) => r.mimeType), ['text/plain', 'image/png', 'text/plain']);
    });

    test('resources/read: text and blob', async () => {
      const t = await client.readResource({ uri: 'test://static-text' });
      assert.deepEqual(t.contents, [
        { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
      ]);
      const b = await client.readResource({ uri: 'test://static-binary' });
      assert.deepEqual(b.contents, [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG }]);
      assert.equal(Buffer.from(b.contents[0].blob, 'base64').subarray(1, 4).toString('latin1'), 'PNG');
    });

    test('resources/templates/list and a read through the template', async () => {
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.equal(resourceTemplates.length, 1);
      assert.equal(resourceTemplates[0].uriTemplate, 'test://template/{id}/data');
      assert.equal(resourceTemplates[0].mimeType, 'application/json');
      assert.ok(resourceTemplates[0].name);
      for (const id of ['123', 'abc-9']) {
        const r = await client.readResource({ uri: `test://template/${id}/data` });
        assert.equal(r.contents.length, 1);
        assert.equal(r.contents[0].uri, `test://template/${id}/data`);
        assert.equal(r.contents[0].mimeType, 'application/json');
        assert.deepEqual(JSON.parse(r.contents[0].text), { id, templateTest: true, data: `Data for ID: ${id}` });
      }
    });

    test('resources/read of an unknown URI: JSON-RPC error -32002', async () => {
      await rejectsWith(client.readResource({ uri: 'test://no-such-resource' }), -32002);
    });

    test('resources/subscribe and unsubscribe: exactly {}; updates only while subscribed', async () => {
      const uri = 'test://watched-resource';
      const sub = await exchange(session, () => client.subscribeResource({ uri }));
      assert.deepEqual(rawResponse(sub, 'resources/subscribe').response.result, {});
      const from = session.updates.length;
      await client.callTool({ name: 'test_notify_update', arguments: {} });
      await waitFor(session, () => session.updates.length > from, 'notifications/resources/updated', WAIT_TIMEOUT_MS);
      assert.deepEqual(session.updates.slice(from), [{ uri }]);

      const unsub = await exchange(session, () => client.unsubscribeResource({ uri }));
      assert.deepEqual(rawResponse(unsub, 'resources/unsubscribe').response.result, {});
      const after = session.updates.length;
      const ex = await exchange(session, () => client.callTool({ name: 'test_notify_update', arguments: {} }));
      assert.equal(ex.value.isError, false);
      if (kind === 'stdio') {
        // One stream: an update would have been written before the tool's result. (Over HTTP
        // it would travel on the GET stream, in no set order with the result.)
        assert.equal(session.updates.length, after, 'no update once unsubscribed');
      }
    });

    test('prompts/list: five prompts with descriptions and arguments', async () => {
      const { prompts } = await client.listPrompts();
      assert.deepEqual(prompts.map((p) => p.name), [
        'test_simple_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image',
        'test_input_required_result_prompt',
      ]);
      for (const p of prompts) assert.ok(p.description, `${p.name} has a description`);
      const withArgs = prompts.find((p) => p.name === 'test_prompt_with_arguments');
      assert.deepEqual(withArgs.arguments.map((a) => [a.name, a.required ?? false]), [['arg1', true], ['arg2', false]]);
    });

    test('prompts/get without arguments, with arguments, and without a required one', async () => {
      const simple = await client.getPrompt({ name: 'test_simple_prompt' });
      assert.deepEqual(simple.messages, [{ role: 'user', content: text('This is a simple prompt for testing.') }]);
      const withArgs = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'testValue1', arg2: 'testValue2' } });
      assert.deepEqual(withArgs.messages, [
        { role: 'user', content: text("Prompt with arguments: arg1='testValue1', arg2='testValue2'") },
      ]);
      await rejectsWith(client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg2: 'x' } }), ErrorCode.InvalidParams);
      await rejectsWith(client.getPrompt({ name: 'no_such_prompt' }), ErrorCode.InvalidParams);
    });

    test('prompts/get: an embedded resource, an image', async () => {
      const embedded = await client.getPrompt({
        name: 'test_prompt_with_embedded_resource',
        arguments: { resourceUri: 'test://example-resource' },
      });
      assert.deepEqual(embedded.messages, [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
          },
        },
        { role: 'user', content: text('Please process the embedded resource above.') },
      ]);
      const image = await client.getPrompt({ name: 'test_prompt_with_image' });
      assert.deepEqual(image.messages, [
        { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
        { role: 'user', content: text('Please analyze the image above.') },
      ]);
    });

    test('completion/complete: a prompt argument and a template variable', async () => {
      const prompt = { type: 'ref/prompt', name: 'test_prompt_with_arguments' };
      const values = async (ref, name, value) =>
        (await client.complete({ ref, argument: { name, value } })).completion.values;
      assert.deepEqual(await values(prompt, 'arg1', 'te'), ['test', 'testing', 'tested']);
      assert.deepEqual(await values(prompt, 'arg1', 'val'), ['value', 'valid']);
      assert.deepEqual(await values(prompt, 'arg1', 'zzz'), []);
      assert.deepEqual(await values(prompt, 'arg2', 'par'), ['paris', 'park', 'parrot']);
      const template = { type: 'ref/resource', uri: 'test://template/{id}/data' };
      assert.deepEqual(await values(template, 'id', ''), ['123', '456', 'alpha', 'beta']);
      assert.deepEqual(await values(template, 'id', 'al'), ['alpha']);
    });

    // 2025-11-25's experimental tasks (the SDK's client.experimental.tasks): the tools of the
    // everything server marked `task:` become tasks when the call carries params.task.
    test('tasks: the capability, and execution.taskSupport in tools/list', async () => {
      const caps = client.getServerCapabilities();
      assert.deepEqual(caps.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
      const { tools } = await client.listTools();
      const support = Object.fromEntries(tools.filter((t) => t.execution).map((t) => [t.name, t.execution.taskSupport]));
      assert.equal(support.slow_compute, 'optional');
      assert.equal(support.failing_job, 'required');
      assert.equal(support.greet, undefined);
    });

    test('tasks: callToolStream creates a task, polls it and gets its result', async () => {
      await client.listTools(); // the client learns which tools are tasks
      const seen = [];
      for await (const m of client.experimental.tasks.callToolStream({ name: 'slow_compute', arguments: { seconds: 0.3, label: 'e2e' } }))
        seen.push(m);
      assert.equal(seen[0].type, 'taskCreated');
      assert.equal(seen[0].task.status, 'working');
      const taskId = seen[0].task.taskId;
      const statuses = seen.filter((m) => m.type === 'taskStatus').map((m) => m.task.status);
      assert.equal(statuses.at(-1), 'completed');
      const last = seen.at(-1);
      assert.equal(last.type, 'result', JSON.stringify(last));
      assert.deepEqual(last.result.content, [text('e2e: computed in 0.3 s')]);
      assert.equal(last.result._meta['io.modelcontextprotocol/related-task'].taskId, taskId);
      const listed = await client.experimental.tasks.listTasks();
      assert.ok(listed.tasks.some((t) => t.taskId === taskId && t.status === 'completed'), 'the task is listed');
    });

    test('tasks: an elicitation in the tools/call, before the task; none within it', async () => {
      await client.listTools();
      session.answerElicitation = () => ({ action: 'accept', content: { name: 'Bob' } });
      try {
        const seen = [];
        for await (const m of client.experimental.tasks.callToolStream({ name: 'test_tool_with_task', arguments: {} })) seen.push(m);
        assert.equal(seen[0].type, 'taskCreated');
        assert.deepEqual(seen.at(-1).result?.content, [text('Hello, Bob!')], JSON.stringify(seen.at(-1)));
        // confirm_delete asks within its task, which 2025-11-25 tasks of mcpidl cannot: the task fails.
        const created = await client.request(
          { method: 'tools/call', params: { name: 'confirm_delete', arguments: { filename: 'f' }, task: {} } }, CreateTaskResultSchema);
        const r = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
        assert.equal(r.isError, true);
        assert.match(r.content[0].text, /no requests to the client in a task of 2025-11-25/);
      } finally {
        session.answerElicitation = () => ({ action: 'decline' });
      }
    });

    test('tasks: a failing task; tasks/result returns its isError result or its JSON-RPC error', async () => {
      await client.listTools();
      const seen = [];
      for await (const m of client.experimental.tasks.callToolStream({ name: 'failing_job', arguments: {} })) seen.push(m);
      assert.equal(seen.at(-1).type, 'error');
      const taskId = seen[0].task.taskId;
      assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'failed');
      const r = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.equal(r.isError, true);
      assert.match(r.content[0].text, /failed after a second/);
      const created = await client.request(
        { method: 'tools/call', params: { name: 'protocol_error_job', arguments: {}, task: {} } }, CreateTaskResultSchema);
      await rejectsWith(client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema), ErrorCode.InternalError, /the job crashed/);
    });

    test('tasks: tasks/result waits for the end; tasks/cancel; the errors', async () => {
      const created = await client.request(
        { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 0.5 }, task: { ttl: 60000 } } },
        CreateTaskResultSchema);
      const { taskId } = created.task;
      assert.equal(created.task.ttl, 60000);
      // Held until the task ends, while other requests are served.
      const waiting = client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'working');
      assert.deepEqual((await waiting).content, [text('computed in 0.5 s')]);
      const long = await client.request(
        { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 30 }, task: {} } }, CreateTaskResultSchema);
      const cancelled = await client.experimental.tasks.cancelTask(long.task.taskId);
      assert.equal(cancelled.status, 'cancelled');
      assert.equal((await client.experimental.tasks.getTask(long.task.taskId)).status, 'cancelled');
      await rejectsWith(client.experimental.tasks.cancelTask(long.task.taskId), ErrorCode.InvalidParams, /terminal status/);
      await rejectsWith(client.experimental.tasks.getTask('no-such-task'), ErrorCode.InvalidParams, /unknown task/);
      if (kind === 'http') {
        // A task is its session's: another session of the server does not see it.
        const other = new Client({ name: 'mcpidl-e2e-other', version: '1.0.0' });
        await other.connect(new StreamableHTTPClientTransport(new URL(session.url)));
        try {
          await rejectsWith(other.experimental.tasks.getTask(taskId), ErrorCode.InvalidParams, /unknown task/);
          assert.deepEqual((await other.experimental.tasks.listTasks()).tasks, []);
        } finally {
          await other.close();
        }
      }
      // A task: required tool called without params.task; params.task on a tool that is never a task.
      await rejectsWith(client.request({ method: 'tools/call', params: { name: 'failing_job', arguments: {} } }, CreateTaskResultSchema),
        ErrorCode.MethodNotFound, /task augmentation required/);
      await rejectsWith(client.request({ method: 'tools/call', params: { name: 'greet', arguments: { name: 'x' }, task: {} } },
        CreateTaskResultSchema), ErrorCode.MethodNotFound, /forbidden/);
    });

    test('a call cancelled in flight; the session goes on', async () => {
      const controller = new AbortController();
      const call = client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
        signal: controller.signal,
        onprogress: () => controller.abort('enough'),
      });
      await assert.rejects(call);
      const r = await client.callTool({ name: 'test_simple_text' });
      assert.deepEqual(r.content, [text('This is a simple text response for testing.')]);
    });

    test('closing the session ends the server with exit status 0', async () => {
      closed = true;
      const { code, signal, stderr } = await session.close();
      assert.deepEqual({ code, signal }, { code: 0, signal: null },
        `the server${WRAP.length ? ` under "${WRAP.join(' ')}"` : ''} exited badly; its stderr:\n${stderr}`);
    });

    test('every message the server sent is valid by the MCP 2025-11-25 schema', async () => {
      const { spec } = session;
      await spec.settle({ all: true });
      spec.assertClean();
      for (const type of ['InitializeResult', 'CallToolResult', 'JSONRPCErrorResponse', 'LoggingMessageNotification',
        'ProgressNotification', 'CreateMessageRequest', 'ElicitRequest', 'ResourceUpdatedNotification', 'ReadResourceResult',
        'ListResourceTemplatesResult', 'GetPromptResult', 'CompleteResult', 'EmptyResult'])
        assert.ok(spec.counts[type] > 0, `some ${type} was checked: ${JSON.stringify(spec.counts)}`);
      // The cancelled call may have gone unanswered, as the specification allows; nothing else.
      const unanswered = [...spec.pending.values()];
      assert.ok(unanswered.length <= 1 && unanswered.every((m) => m === 'tools/call'), `unanswered: ${unanswered}`);
    });
  });
}
