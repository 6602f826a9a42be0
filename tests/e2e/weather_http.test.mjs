// The official MCP TypeScript client against the weather example over Streamable HTTP.
//
// The server runs as `weather-server --http 127.0.0.1:0` (it prints the URL it listens on);
// the client connects with StreamableHTTPClientTransport, lists the tools, calls them (results
// checked by the client's own output-schema validation), meets the failures, ends the session
// with DELETE, and the server, stopped with SIGTERM, must exit with status 0. Every message the
// server sends (JSON bodies and SSE events alike) is checked against the MCP specification's
// schema (spec_check.mjs); an invalid one fails the test during which it arrived.
//
// Environment: WEATHER_SERVER (required); under with_tls.sh (MCP_TLS_CERT, MCP_TLS_KEY and
// NODE_EXTRA_CA_CERTS set), the same over HTTPS.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';

import { tlsArgs } from './e2e_util.mjs';
import { SpecChecker } from './spec_check.mjs';

const SERVER = process.env.WEATHER_SERVER;

describe('weather-server over Streamable HTTP', () => {
  let child, url, client, transport, stderr = '';
  const spec = new SpecChecker();

  before(async () => {
    assert.ok(SERVER, 'WEATHER_SERVER must name the weather-server executable');
    child = spawn(SERVER, ['--http', '127.0.0.1:0', ...tlsArgs()], { stdio: ['ignore', 'ignore', 'pipe'] });
    url = await new Promise((resolve, reject) => {
      child.stderr.on('data', (d) => {
        stderr += d;
        const m = /listening on (https?:\/\/\S+)/.exec(stderr);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${stderr}`)));
    });
    client = new Client({ name: 'mcpidl-e2e-http', version: '1.0.0' });
    transport = new StreamableHTTPClientTransport(new URL(url), { fetch: spec.fetch() });
    await client.connect(transport);
  });

  afterEach(async () => {
    await spec.settle();
    spec.assertClean();
  });

  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  test('initialize went through and a session was issued', () => {
    assert.equal(client.getServerVersion().name, 'weather');
    assert.match(transport.sessionId ?? '', /^[\x21-\x7e]+$/);
  });

  test('tools/list lists the seven tools', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), [
      'get_temperature', 'get_weather', 'get_weather_record', 'get_forecast',
      'get_temperatures', 'get_weather_upstream', 'weather_report',
    ]);
  });

  test('get_weather answers with validated structured content', async () => {
    const r = await client.callTool({ name: 'get_weather', arguments: { city: 'London' } });
    assert.equal(r.isError, false);
    assert.deepEqual(r.structuredContent, { temperature: 16.2, humidity: 0.83, conditions: 'Overcast' });
    assert.equal(r.content[0].text, '{\n  "temperature": 16.2,\n  "humidity": 0.83,\n  "conditions": "Overcast"\n}');
  });

  test('three calls at once all answer', async () => {
    const rs = await Promise.all(['London', 'Cairo', 'Reykjavik'].map((city) =>
      client.callTool({ name: 'get_temperature', arguments: { city } })));
    assert.deepEqual(rs.map((r) => r.structuredContent.result), [17, 34, 4]);
  });

  test('upstream data that fails validation is an isError result', async () => {
    const r = await client.callTool({ name: 'get_weather_upstream', arguments: { city: 'London' } });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent, undefined);
    assert.equal(r.content[0].text,
      "Error executing tool get_weather_upstream: 1 validation error for WeatherData\nhumidity\n" +
      "  Field required [type=missing, input_value={'temperature': 16.2, 'conditions': 'Overcast'}, input_type=dict]");
  });

  test('an unknown tool is a JSON-RPC error -32602', async () => {
    await assert.rejects(client.callTool({ name: 'nope', arguments: {} }),
      (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
  });

  test('DELETE ends the session; SIGTERM ends the server with status 0', async () => {
    await transport.terminateSession();
    await client.close();
    const code = await new Promise((resolve) => {
      child.on('exit', (c, sig) => resolve(sig ?? c));
      child.kill('SIGTERM');
    });
    assert.equal(code, 0, `exit ${code}; stderr:\n${stderr}`);
  });

  test('every message the server sent is valid by the MCP 2025-11-25 schema', async () => {
    await spec.settle({ all: true });
    spec.assertClean();
    // initialize, tools/list, 5 tools/call results and the unknown tool's error.
    assert.deepEqual(spec.counts, { InitializeResult: 1, ListToolsResult: 1, CallToolResult: 5, JSONRPCErrorResponse: 1 });
    assert.equal(spec.pending.size, 0, 'every request was answered');
  });
});
