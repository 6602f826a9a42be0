// The official MCP TypeScript client v2 (@modelcontextprotocol/client, pinned in package.json)
// against the example servers, over stdio and Streamable HTTP, in each of its version
// negotiation modes (ClientOptions.versionNegotiation.mode):
//   - { pin: '2026-07-28' }: the connect-time server/discover must offer 2026-07-28, no fallback;
//   - 'auto': server/discover first, the 2025-11-25 initialize only if the server shows no
//     2026-07-28 (a server that serves both must be chosen as 2026-07-28);
//   - 'legacy': the plain 2025-11-25 initialize, no probe.
// Each mode expects its revision: 2026-07-28 for the first two, 2025-11-25 for the third.
//
// weather-server: tools/list exactly as mcpidlc --print-tools prints it, calls whose
// structuredContent the client validates against the listed outputSchema (a spy on its validator
// proves it ran and passed), failures as isError results, an unknown tool as -32602.
// everything-server: tools, elicitation and sampling answered by the client's handlers (in
// 2026-07-28 by multi round-trip requests: an input_required result, then the retry with
// inputResponses and the requestState on a new request id; in 2025-11-25 by the server's own
// requests), resources, prompts, completion, and resource subscriptions (subscriptions/listen in
// 2026-07-28, resources/subscribe in 2025-11-25).
//
// Every message a server writes is checked against the schema of the revision in force
// (spec_check.mjs): the probe on the client's stdio sibling process included. Each session ends
// with the server's exit status 0.
//
// Environment (one server or both):
//   WEATHER_SERVER, MCPIDLC  the weather-server and mcpidlc executables (WEATHER_IDL: the IDL,
//                            by default examples/weather/weather.mcp.yaml beside this checkout)
//   EVERYTHING_SERVER        the everything-server executable
//   E2E_TRANSPORTS           the transports, comma-separated (default "stdio,http")
//   E2E_MODES                the modes, comma-separated (default "pin,auto,legacy")
//
// Run: node_modules/.bin/node --test v2client.test.mjs (from tests/e2e; ctest does it too).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';

import { SpyValidator, startHttpServer, stdioChild, waitFor } from './e2e_util.mjs';
import { LEGACY, MODERN, PROTOCOL_VERSION_KEY, SpecChecker, tapStdioClass } from './spec_check.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WEATHER = process.env.WEATHER_SERVER;
const MCPIDLC = process.env.MCPIDLC;
const WEATHER_IDL = process.env.WEATHER_IDL ?? path.resolve(HERE, '../../examples/weather/weather.mcp.yaml');
const EVERYTHING = process.env.EVERYTHING_SERVER;
const list = (value, fallback) => (value ?? fallback).split(',').map((t) => t.trim()).filter(Boolean);
const TRANSPORTS = list(process.env.E2E_TRANSPORTS, 'stdio,http');
const MODES = {
  pin: { mode: { pin: MODERN }, revision: MODERN },
  auto: { mode: 'auto', revision: MODERN },
  legacy: { mode: 'legacy', revision: LEGACY },
};
const MODE_NAMES = list(process.env.E2E_MODES, 'pin,auto,legacy');
// Hang guards only.
const WAIT_TIMEOUT_MS = 60_000;
const EXIT_TIMEOUT_MS = 60_000;
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
const SUBSCRIPTION_ID_KEY = 'io.modelcontextprotocol/subscriptionId';

tapStdioClass(StdioClientTransport);

const text = (t) => ({ type: 'text', text: t });
const json2 = (value) => JSON.stringify(value, null, 2);

/** p, or null once ms have passed. */
async function timed(p, ms) {
  let timer;
  const r = await Promise.race([p, new Promise((resolve) => (timer = setTimeout(() => resolve(null), ms)))]);
  clearTimeout(timer);
  return r;
}

/** What the server answered the client's server/discover probe (on stdio: on a sibling process). */
function probeAnswer(spec) {
  const probe = spec.sent.find((m) => m.method === 'server/discover');
  if (!probe) return 'the client sent no server/discover probe';
  // An error the server could not tie to the request has no id.
  const answer = spec.seen.find((s) => s.message.id === probe.id) ?? spec.seen.find((s) => 'error' in s.message && s.message.id === undefined);
  return `the server/discover probe was answered${answer ? ` (${answer.where}): ${JSON.stringify(answer.message)}` : ' with nothing the checker read'}`;
}

/**
 * A session: the server started over one transport, the v2 client connected to it in one mode,
 * with sampling and elicitation handlers whose answers the tests choose. close() ends the session
 * (stdio: the server's input; HTTP: DELETE of a 2025-11-25 session, then SIGTERM) and resolves
 * with the server's exit.
 */
async function openSession(server, kind, modeName) {
  const session = {
    spec: new SpecChecker(),
    validator: new SpyValidator(new AjvJsonSchemaValidator()), // the client's default, as callTool uses it
    elicitations: [],
    sampling: [],
    updates: [],
    listChanges: [],
    waiters: [],
    answerElicitation: () => ({ action: 'decline' }),
    answerSampling: () => ({ role: 'assistant', content: text('This is a test response from the client'), model: 'test-model', stopReason: 'endTurn' }),
  };
  const client = new Client({ name: 'mcpidl-e2e-v2', version: '1.0.0' }, {
    capabilities: { sampling: {}, elicitation: {} },
    jsonSchemaValidator: session.validator,
    versionNegotiation: { mode: MODES[modeName].mode },
  });
  client.setRequestHandler('elicitation/create', (request) => {
    session.elicitations.push(request.params);
    return session.answerElicitation(request.params);
  });
  client.setRequestHandler('sampling/createMessage', (request) => {
    session.sampling.push(request.params);
    return session.answerSampling(request.params);
  });
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    session.updates.push(n.params);
    session.waiters = session.waiters.filter((check) => !check());
  });
  for (const list of ['tools', 'prompts']) {
    client.setNotificationHandler(`notifications/${list}/list_changed`, () => {
      session.listChanges.push(list);
      session.waiters = session.waiters.filter((check) => !check());
    });
  }
  session.client = client;
  let stderr = '';
  if (kind === 'stdio') {
    const transport = new StdioClientTransport({ command: server, args: [], env: session.spec.stdioEnv(), stderr: 'pipe' });
    transport.stderr.on('data', (d) => (stderr += d));
    await connect(client, transport, session.spec);
    const { child, exited } = stdioChild(transport);
    session.close = async () => {
      child.stdin.end();
      const end = await timed(exited, EXIT_TIMEOUT_MS);
      await client.close();
      return { ...(end ?? { code: 'no exit', signal: null }), stderr };
    };
    session.kill = () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL');
    return session;
  }
  const { child, url, exited, stderr: serverStderr } = await startHttpServer(server, ['--http', '127.0.0.1:0'], WAIT_TIMEOUT_MS);
  session.kill = () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL');
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: session.spec.fetch() });
  try {
    await connect(client, transport, session.spec);
  } catch (err) {
    session.kill();
    throw err;
  }
  session.close = async () => {
    if (transport.sessionId) await transport.terminateSession();
    await client.close();
    child.kill('SIGTERM');
    const end = await timed(exited, EXIT_TIMEOUT_MS);
    if (!end) child.kill('SIGKILL');
    return { ...(end ?? { code: 'no exit', signal: null }), stderr: serverStderr() };
  };
  return session;
}

/** client.connect(transport); a failure says what the probe was answered. */
async function connect(client, transport, spec) {
  try {
    await client.connect(transport);
  } catch (err) {
    await timed(spec.settle(), WAIT_TIMEOUT_MS);
    err.message += ` (${err.code ?? err.name}; ${probeAnswer(spec)})`;
    throw err;
  }
}

/**
 * Runs fn and returns its value with the raw messages of the exchange: what the client sent and
 * what the server sent, once every POST's response has been read.
 */
async function exchange(session, fn) {
  const { spec } = session;
  const sentFrom = spec.sent.length;
  const seenFrom = spec.seen.length;
  let value;
  let error;
  try {
    value = await fn();
  } catch (err) {
    error = err;
  }
  await timed(spec.settle(), WAIT_TIMEOUT_MS);
  const ex = { value, sent: spec.sent.slice(sentFrom), seen: spec.seen.slice(seenFrom).map((s) => s.message) };
  if (error) {
    error.message += `\n--- exchange ---\n${[...ex.sent.map((m) => `-> ${JSON.stringify(m)}`), ...ex.seen.map((m) => `<- ${JSON.stringify(m)}`)].join('\n').slice(0, 4000)}`;
    throw error;
  }
  return ex;
}

/** The requests of a method in an exchange, each with its raw response. */
function calls(ex, method) {
  return ex.sent
    .filter((m) => m.method === method && m.id !== undefined)
    .map((request) => ({ request, response: ex.seen.find((m) => m.id === request.id && ('result' in m || 'error' in m)) }));
}

/** The one response to the one request of method in an exchange. */
function only(ex, method) {
  const found = calls(ex, method);
  assert.equal(found.length, 1, `one ${method} request`);
  assert.ok(found[0].response, `the response to ${method} was seen on the wire`);
  return found[0];
}

/**
 * The multi round-trip of a call that needs input from the client, as the wire shows it.
 * 2026-07-28: the call's result is input_required with one input request of inputMethod, the
 * client retries on a new request id with inputResponses under the same keys and the
 * requestState echoed, and the retry's result is complete; the server sends no request.
 * 2025-11-25: the server sends a request of inputMethod during the call.
 * Returns the params of the input request.
 */
function assertInputRound(ex, revision, method, inputMethod) {
  const rounds = calls(ex, method);
  if (revision === LEGACY) {
    assert.equal(rounds.length, 1, `one ${method}`);
    const asked = ex.seen.filter((m) => m.method === inputMethod && m.id !== undefined);
    assert.equal(asked.length, 1, `the server sent one ${inputMethod} request`);
    return asked[0].params;
  }
  assert.equal(ex.seen.filter((m) => m.method !== undefined && m.id !== undefined).length, 0,
    'no request from the server in 2026-07-28');
  assert.equal(rounds.length, 2, `${method}, then its retry`);
  const [first, retry] = rounds;
  assert.ok(first.response?.result, `the first ${method} was answered with a result`);
  const { result } = first.response;
  assert.equal(result.resultType, 'input_required');
  const keys = Object.keys(result.inputRequests ?? {});
  assert.equal(keys.length, 1, 'one input request');
  const input = result.inputRequests[keys[0]];
  assert.equal(input.method, inputMethod);
  assert.notDeepEqual(retry.request.id, first.request.id, 'the retry has a new request id');
  assert.deepEqual(Object.keys(retry.request.params.inputResponses ?? {}), keys, 'inputResponses under the same key');
  assert.equal(retry.request.params.requestState, result.requestState, 'the requestState echoed');
  assert.equal(retry.request.params.name ?? retry.request.params.uri, first.request.params.name ?? first.request.params.uri);
  assert.equal(retry.response?.result?.resultType, 'complete', 'the retry completed');
  return input.params;
}

/** Rejects with a ProtocolError of code; the raw error on the wire has it too. */
async function rejectsWith(session, fn, method, code) {
  const { spec } = session;
  const from = spec.sent.length;
  await assert.rejects(fn(), (err) => {
    assert.ok(err instanceof ProtocolError || typeof err.code === 'number', `a protocol error: ${err}`);
    return true;
  });
  await timed(spec.settle(), WAIT_TIMEOUT_MS);
  const request = spec.sent.slice(from).find((m) => m.method === method && m.id !== undefined);
  const response = spec.seen.find((s) => s.message.id === request.id && 'error' in s.message);
  assert.ok(response, `an error answered ${method}`);
  assert.equal(response.message.error.code, code, JSON.stringify(response.message));
  return response.message.error;
}

/**
 * The tests every session shares: the era, the connect exchange, and at the end the server's
 * exit and the schema check of everything it sent. `body(ctx)` adds the server's own tests.
 */
function sessionSuite(label, server, env, body) {
  for (const kind of TRANSPORTS) {
    for (const modeName of MODE_NAMES) {
      const { revision } = MODES[modeName];
      describe(`${label} over ${kind}, mode ${modeName}`, { concurrency: 1 }, () => {
        const ctx = { kind, modeName, revision, modern: revision === MODERN };
        let closed = false;

        before(async () => {
          assert.ok(server, `set ${env}`);
          assert.ok(kind === 'stdio' || kind === 'http', `unknown transport ${kind}`);
          assert.ok(MODES[modeName], `unknown mode ${modeName}`);
          ctx.session = await openSession(server, kind, modeName);
          ctx.client = ctx.session.client;
          ctx.spec = ctx.session.spec;
        });

        afterEach(async () => {
          if (!ctx.spec) return;
          await timed(ctx.spec.settle(), WAIT_TIMEOUT_MS);
          ctx.spec.assertClean();
        });

        after(async () => {
          if (ctx.session && !closed) {
            await ctx.client.close().catch(() => {});
            ctx.session.kill();
          }
        });

        test(`connect: revision ${revision}`, () => {
          const { client, spec } = ctx;
          const probe = spec.sent.find((m) => m.method === 'server/discover');
          assert.equal(client.getNegotiatedProtocolVersion(), revision, probeAnswer(spec));
          assert.equal(client.getProtocolEra(), ctx.modern ? 'modern' : 'legacy');
          const methods = spec.sent.filter((m) => m.id !== undefined).map((m) => m.method);
          if (ctx.modern) {
            assert.ok(!methods.includes('initialize'), `no initialize in 2026-07-28: ${methods}`);
            assert.ok(probe, 'the client probed with server/discover');
            assert.equal(probe.params._meta[PROTOCOL_VERSION_KEY], MODERN);
            const discover = client.getDiscoverResult();
            assert.ok(discover.supportedVersions.includes(MODERN), `supportedVersions ${discover.supportedVersions}`);
            assert.ok(discover.supportedVersions.includes(LEGACY), 'the server serves 2025-11-25 too');
          } else {
            if (modeName === 'legacy') assert.ok(!methods.includes('server/discover'), 'no probe in legacy mode');
            assert.ok(methods.includes('initialize'));
          }
        });

        body(ctx);

        test('2026-07-28 results carry resultType and the server info in _meta', { skip: !ctx.modern && 'a 2025-11-25 session' }, () => {
          const results = ctx.spec.seen.filter((s) => s.revision === MODERN && s.message.result);
          assert.ok(results.length > 0);
          for (const { message } of results) {
            assert.ok(['complete', 'input_required'].includes(message.result.resultType), JSON.stringify(message).slice(0, 300));
            assert.equal(typeof message.result._meta?.[SERVER_INFO_KEY]?.name, 'string', `serverInfo in ${JSON.stringify(message).slice(0, 300)}`);
          }
        });

        test('closing the session ends the server with exit status 0', async () => {
          closed = true;
          const { code, signal, stderr } = await ctx.session.close();
          assert.deepEqual({ code, signal }, { code: 0, signal: null }, `the server exited badly; its stderr:\n${stderr}`);
        });

        test(`every message the server sent is valid by the MCP ${revision} schema`, async () => {
          const { spec } = ctx;
          await timed(spec.settle({ all: true }), WAIT_TIMEOUT_MS);
          spec.assertClean();
          const counts = spec.countsOf(revision);
          assert.ok(Object.keys(counts).length > 0, `messages were checked under ${revision}: ${JSON.stringify(spec.byRevision)}`);
          if (ctx.modern) {
            assert.deepEqual(spec.counts, {}, `nothing under 2025-11-25 in a 2026-07-28 session: ${JSON.stringify(spec.counts)}`);
          }
          const unanswered = [...spec.pending.values()];
          assert.equal(unanswered.length, 0, `unanswered: ${unanswered}`);
        });
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// weather-server

const LONDON = { temperature: 16.2, humidity: 0.83, conditions: 'Overcast' };
const WEATHER_TOOLS = ['get_temperature', 'get_weather', 'get_weather_record', 'get_forecast', 'get_temperatures',
  'get_weather_upstream', 'weather_report'];

if (WEATHER) {
  sessionSuite('weather-server', WEATHER, 'WEATHER_SERVER and MCPIDLC', (ctx) => {
    let printed;

    /** A call whose structuredContent the client validated, once, against the listed outputSchema. */
    async function callStructured(name, args) {
      const from = ctx.session.validator.calls.length;
      const result = await ctx.client.callTool({ name, arguments: args });
      assert.equal(result.isError ?? false, false, `isError: ${JSON.stringify(result)}`);
      const ran = ctx.session.validator.calls.slice(from);
      assert.equal(ran.length, 1, 'the client validated structuredContent once');
      assert.deepEqual(ran[0].input, result.structuredContent);
      assert.deepEqual(ran[0].schema, printed.get(name).outputSchema);
      assert.equal(ran[0].valid, true, ran[0].errorMessage);
      return result;
    }

    /** A call expected to be an isError result of one text block. */
    async function callFailing(name, args) {
      const result = await ctx.client.callTool({ name, arguments: args });
      assert.equal(result.isError, true, `isError: ${JSON.stringify(result)}`);
      assert.equal(result.structuredContent, undefined, 'no structuredContent on an error');
      assert.equal(result.content.length, 1);
      return result.content[0].text;
    }

    test('server info and instructions', () => {
      assert.ok(MCPIDLC, 'set MCPIDLC');
      printed = new Map(JSON.parse(execFileSync(MCPIDLC, ['--print-tools', WEATHER_IDL], { encoding: 'utf8' })).map((t) => [t.name, t]));
      assert.deepEqual(ctx.client.getServerVersion(), { name: 'weather', title: 'Weather', version: '1.0.0' });
      assert.equal(ctx.client.getInstructions(), 'Ask for current conditions, a forecast, or temperatures of several cities.');
      assert.ok(ctx.client.getServerCapabilities()?.tools, 'the server offers tools');
    });

    test('tools/list: the 7 tools as mcpidlc --print-tools prints them; in 2026-07-28 with caching hints', async () => {
      const ex = await exchange(ctx.session, () => ctx.client.listTools());
      assert.deepEqual(ex.value.tools.map((t) => t.name), WEATHER_TOOLS);
      const { result } = only(ex, 'tools/list').response;
      assert.deepEqual(result.tools, [...printed.values()]);
      if (ctx.modern) {
        assert.ok(Number.isInteger(result.ttlMs) && result.ttlMs >= 0, `ttlMs ${result.ttlMs}`);
        assert.ok(['public', 'private'].includes(result.cacheScope), `cacheScope ${result.cacheScope}`);
      }
    });

    test('get_temperature and get_weather: structuredContent validated by the client', async () => {
      const t = await callStructured('get_temperature', { city: 'London' });
      assert.deepEqual(t.structuredContent, { result: 17 });
      assert.deepEqual(t.content, [text('17')]);
      const w = await callStructured('get_weather', { city: 'London' });
      assert.deepEqual(w.structuredContent, LONDON);
      assert.deepEqual(w.content, [text(json2(LONDON))]);
    });

    test('get_forecast and get_temperatures: a list, a dict', async () => {
      const days = [0, 1, 2].map((d) => ({ ...LONDON, temperature: LONDON.temperature + d }));
      const f = await callStructured('get_forecast', { city: 'London', days: 3 });
      assert.deepEqual(f.structuredContent, { result: days });
      const temps = { London: 16.2, Cairo: 34.1, Reykjavik: 4.4 };
      const t = await callStructured('get_temperatures', { cities: ['London', 'Cairo', 'Reykjavik'] });
      assert.deepEqual(t.structuredContent, temps);
    });

    test('weather_report: text only, nothing to validate', async () => {
      const from = ctx.session.validator.calls.length;
      const r = await ctx.client.callTool({ name: 'weather_report', arguments: { city: 'London' } });
      assert.deepEqual(r.content, [text('London: 16.2 degrees Celsius, Overcast, humidity 83%')]);
      assert.equal(ctx.session.validator.calls.length, from);
    });

    test('failures: an unknown city, invalid arguments, upstream data that fails its model', async () => {
      assert.equal(await callFailing('get_weather', { city: 'Atlantis' }),
        "Error executing tool get_weather: no reading for 'Atlantis' (known cities: London, Cairo, Reykjavik)");
      assert.equal(await callFailing('get_forecast', { city: 'London', days: 99 }),
        'Error executing tool get_forecast: 1 validation error for get_forecastArguments\n' +
        'days\n' +
        '  Input should be less than or equal to 14 [type=less_than_equal, input_value=99, input_type=int]');
      assert.match(await callFailing('get_weather_upstream', { city: 'London' }), /1 validation error for WeatherData/);
    });

    test('an unknown tool: -32602', async () => {
      await rejectsWith(ctx.session, () => ctx.client.callTool({ name: 'get_humidity', arguments: { city: 'London' } }),
        'tools/call', -32602);
    });

    test('the session still works after the failures', async () => {
      const r = await callStructured('get_temperature', { city: 'Reykjavik' });
      assert.deepEqual(r.structuredContent, { result: 4 });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// everything-server

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const EVERYTHING_TOOLS = ['test_simple_text', 'test_image_content', 'test_embedded_resource', 'test_error_handling',
  'test_sampling', 'test_elicitation', 'test_notify_update', 'test_trigger_tool_change', 'test_custom_headers'];

if (EVERYTHING) {
  sessionSuite('everything-server', EVERYTHING, 'EVERYTHING_SERVER', (ctx) => {
    test('server info and capabilities', () => {
      assert.deepEqual(ctx.client.getServerVersion(), { name: 'mcpidl-everything', title: 'mcpidl everything server', version: '1.0.0' });
      const caps = ctx.client.getServerCapabilities();
      for (const c of ['tools', 'resources', 'prompts', 'completions']) assert.ok(caps?.[c], `capability ${c}`);
    });

    test('tools/list and calls of content tools', async () => {
      const { tools } = await ctx.client.listTools();
      const names = tools.map((t) => t.name);
      for (const name of EVERYTHING_TOOLS) assert.ok(names.includes(name), `tool ${name} listed`);
      const simple = await ctx.client.callTool({ name: 'test_simple_text' });
      assert.deepEqual(simple.content, [text('This is a simple text response for testing.')]);
      const image = await ctx.client.callTool({ name: 'test_image_content', arguments: {} });
      assert.deepEqual(image.content, [{ type: 'image', data: PNG, mimeType: 'image/png' }]);
      const failed = await ctx.client.callTool({ name: 'test_error_handling', arguments: {} });
      assert.equal(failed.isError, true);
    });

    test('elicitation: the client\'s handler answers, the tool gets the answer', async () => {
      const { session } = ctx;
      session.elicitations.length = 0;
      session.answerElicitation = () => ({ action: 'accept', content: { username: 'testuser', email: 'test@example.com' } });
      const ex = await exchange(session, () =>
        ctx.client.callTool({ name: 'test_elicitation', arguments: { message: 'Please provide your information' } }));
      const asked = assertInputRound(ex, ctx.revision, 'tools/call', 'elicitation/create');
      assert.equal(asked.message, 'Please provide your information');
      assert.deepEqual(asked.requestedSchema.required, ['username', 'email']);
      assert.equal(session.elicitations.length, 1, 'the handler ran once');
      const r = ex.value;
      assert.equal(r.isError ?? false, false, JSON.stringify(r));
      assert.match(r.content[0].text, /^User response: /);
      assert.match(r.content[0].text, /testuser/);
    });

    test('elicitation declined: the result says so', async () => {
      ctx.session.answerElicitation = () => ({ action: 'decline' });
      const ex = await exchange(ctx.session, () => ctx.client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } }));
      assertInputRound(ex, ctx.revision, 'tools/call', 'elicitation/create');
      assert.match(ex.value.content[0].text, /decline/);
    });

    test('sampling: the client\'s handler answers, the tool returns the answer', async () => {
      const { session } = ctx;
      session.sampling.length = 0;
      const ex = await exchange(session, () =>
        ctx.client.callTool({ name: 'test_sampling', arguments: { prompt: 'Test prompt for sampling' } }));
      const asked = assertInputRound(ex, ctx.revision, 'tools/call', 'sampling/createMessage');
      assert.deepEqual(asked.messages, [{ role: 'user', content: text('Test prompt for sampling') }]);
      assert.equal(asked.maxTokens, 100);
      assert.equal(session.sampling.length, 1, 'the handler ran once');
      assert.deepEqual(ex.value.content, [text('LLM response: This is a test response from the client')]);
    });

    test('resources: list, read text and blob, a template, an unknown URI', async () => {
      const { client } = ctx;
      const lists = await exchange(ctx.session, () => client.listResources());
      assert.deepEqual(lists.value.resources.map((r) => r.uri), ['test://static-text', 'test://static-binary', 'test://watched-resource']);
      const t = await client.readResource({ uri: 'test://static-text' });
      assert.deepEqual(t.contents, [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }]);
      const b = await client.readResource({ uri: 'test://static-binary' });
      assert.deepEqual(b.contents, [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG }]);
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate), ['test://template/{id}/data']);
      const d = await client.readResource({ uri: 'test://template/123/data' });
      assert.deepEqual(JSON.parse(d.contents[0].text), { id: '123', templateTest: true, data: 'Data for ID: 123' });
      if (ctx.modern) {
        const { result } = only(lists, 'resources/list').response;
        assert.ok(Number.isInteger(result.ttlMs) && ['public', 'private'].includes(result.cacheScope), 'caching hints');
      }
      // Resource not found: -32002 in 2025-11-25, -32602 with data.uri in 2026-07-28.
      const uri = 'test://no-such-resource';
      const error = await rejectsWith(ctx.session, () => client.readResource({ uri }), 'resources/read', ctx.modern ? -32602 : -32002);
      if (ctx.modern) assert.equal(error.data?.uri, uri);
    });

    test('prompts: list, get with and without arguments', async () => {
      const { prompts } = await ctx.client.listPrompts();
      assert.deepEqual(prompts.map((p) => p.name), [
        'test_simple_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image',
        'test_input_required_result_prompt',
      ]);
      const simple = await ctx.client.getPrompt({ name: 'test_simple_prompt' });
      assert.deepEqual(simple.messages, [{ role: 'user', content: text('This is a simple prompt for testing.') }]);
      const withArgs = await ctx.client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'testValue1', arg2: 'testValue2' } });
      assert.deepEqual(withArgs.messages, [{ role: 'user', content: text("Prompt with arguments: arg1='testValue1', arg2='testValue2'") }]);
    });

    test('completion/complete: a prompt argument and a template variable', async () => {
      const values = async (ref, name, value) => (await ctx.client.complete({ ref, argument: { name, value } })).completion.values;
      assert.deepEqual(await values({ type: 'ref/prompt', name: 'test_prompt_with_arguments' }, 'arg1', 'te'), ['test', 'testing', 'tested']);
      assert.deepEqual(await values({ type: 'ref/resource', uri: 'test://template/{id}/data' }, 'id', 'al'), ['alpha']);
    });

    test('list changes: announced in the capabilities, heard by a listener (2026) or the session (2025)', async () => {
      const { session, client } = ctx;
      const caps = client.getServerCapabilities();
      assert.equal(caps.tools.listChanged, true, 'tools.listChanged');
      assert.equal(caps.prompts.listChanged, true, 'prompts.listChanged');
      let subscription;
      if (ctx.modern) subscription = await client.listen({ toolsListChanged: true });
      try {
        const from = session.listChanges.length;
        const r = await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
        assert.deepEqual(r.content, [text('Mutation triggered')]);
        await waitFor(session, () => session.listChanges.length > from, 'notifications/tools/list_changed', WAIT_TIMEOUT_MS);
        assert.deepEqual(session.listChanges.slice(from), ['tools']);
        if (ctx.modern && ctx.kind === 'stdio') {
          // The listener asked for tool changes only: a prompt change is not sent to it, and
          // on stdio's one ordered stream it would have come before the trigger's result.
          const before = session.listChanges.length;
          await client.callTool({ name: 'test_trigger_prompt_change', arguments: {} });
          assert.equal(session.listChanges.length, before, 'no prompts/list_changed for a tools-only listener');
        }
      } finally {
        if (subscription) await subscription.close();
      }
    });

    test('test_custom_headers: an argument that also travels as Mcp-Param-Value', async () => {
      const { client } = ctx;
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'test_custom_headers');
      assert.equal(tool.inputSchema.properties.value['x-mcp-header'], 'Value');
      for (const value of ['Hello', 'Grüße, 世界', ' padded ', '=?base64?literal?=']) {
        const r = await client.callTool({ name: 'test_custom_headers', arguments: { value } });
        assert.deepEqual(r.content, [text(`value=${value}`)], JSON.stringify(r));
      }
    });

    test('a resource subscription: updates while subscribed, none after', async () => {
      const { session, client } = ctx;
      const uri = 'test://watched-resource';
      const from = session.updates.length;
      let subscription;
      if (ctx.modern) {
        const ex = await exchange(session, async () => {
          subscription = await client.listen({ resourceSubscriptions: [uri] });
        });
        assert.deepEqual(subscription.honoredFilter.resourceSubscriptions, [uri]);
        const listenId = calls(ex, 'subscriptions/listen')[0].request.id;
        const ack = ex.seen.find((m) => m.method === 'notifications/subscriptions/acknowledged');
        assert.equal(ack?.params._meta?.[SUBSCRIPTION_ID_KEY], listenId, 'the acknowledgement names the subscription');
        session.listenId = listenId;
      } else {
        await client.subscribeResource({ uri });
      }
      try {
        const seenFrom = ctx.spec.seen.length;
        await client.callTool({ name: 'test_notify_update', arguments: {} });
        await waitFor(session, () => session.updates.length > from, 'notifications/resources/updated', WAIT_TIMEOUT_MS);
        assert.deepEqual(session.updates.slice(from).map((p) => p.uri), [uri]);
        if (ctx.modern) {
          const update = ctx.spec.seen.slice(seenFrom).find((s) => s.message.method === 'notifications/resources/updated');
          assert.equal(update.message.params._meta?.[SUBSCRIPTION_ID_KEY], session.listenId, 'the update names the subscription');
        }
      } finally {
        if (subscription) await subscription.close();
        else await client.unsubscribeResource({ uri });
      }
      if (subscription) assert.equal(await timed(subscription.closed, WAIT_TIMEOUT_MS), 'local');
      const afterUnsubscribe = session.updates.length;
      const r = await client.callTool({ name: 'test_notify_update', arguments: {} });
      assert.equal(r.isError ?? false, false);
      if (ctx.kind === 'stdio') assert.equal(session.updates.length, afterUnsubscribe, 'no update once unsubscribed');
    });
  });
}

if (!WEATHER && !EVERYTHING) {
  test('a server to test', () => assert.fail('set WEATHER_SERVER (and MCPIDLC) or EVERYTHING_SERVER'));
}
