// The official MCP TypeScript client against the weather example server, end to end.
//
// One client session over stdio: initialize, tools/list, a call of every tool, and the failures
// (invalid arguments, an unknown city, an unknown tool, upstream data that fails validation).
// Results are checked as the client's own output-schema validation sees them: callTool validates
// structuredContent against the listed outputSchema, and a spy on the client's validator proves it
// ran and passed. Every message the server writes is checked against the MCP specification's
// schema (spec_check.mjs); an invalid one fails the test during which it arrived.
//
// Environment:
//   WEATHER_SERVER  the weather-server executable (required)
//   MCPIDLC         the mcpidlc executable, for the outputSchema comparison (required)
//   WEATHER_IDL     the IDL (default: examples/weather/weather.mcp.yaml beside this checkout)
//   WRAP            a command line to run the server under, e.g.
//                   "valgrind --error-exitcode=99 --leak-check=full -q"; the server must still
//                   exit with status 0 once the client closes.
//
// Run: node_modules/.bin/node --test weather.test.mjs (from tests/e2e; ctest does it too).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

import { SpyValidator } from './e2e_util.mjs';
import { SpecChecker, tapStdio } from './spec_check.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SERVER = process.env.WEATHER_SERVER;
const MCPIDLC = process.env.MCPIDLC;
const IDL = process.env.WEATHER_IDL ?? path.resolve(HERE, '../../examples/weather/weather.mcp.yaml');
const WRAP = (process.env.WRAP ?? '').trim().split(/\s+/).filter(Boolean);
// How long the server may take to exit once its input ends (valgrind's leak check included),
// before the SDK's own close() would send SIGTERM after 2 s.
const EXIT_TIMEOUT_MS = 120_000;

const LONDON = { temperature: 16.2, humidity: 0.83, conditions: 'Overcast' };
const EXPECTED_TOOLS = [
  'get_temperature',
  'get_weather',
  'get_weather_record',
  'get_forecast',
  'get_temperatures',
  'get_weather_upstream',
  'weather_report',
];

/** StdioClientTransport that records the wire exchange, collects stderr, and reports the exit. */
class WatchedStdioTransport extends StdioClientTransport {
  constructor(params) {
    super({ ...params, stderr: 'pipe' });
    this.wire = []; // [{dir: '->' | '<-', message}]
    this.stderrText = '';
    this.stderr.on('data', (chunk) => {
      this.stderrText += chunk;
    });
    // Protocol.connect() chains a handler set before it, so this sees every incoming message.
    this.onmessage = (message) => this.wire.push({ dir: '<-', message });
  }

  async start() {
    await super.start();
    // The child is private to the SDK (the version is pinned); its exit status is the one fact
    // the SDK does not report, and the valgrind run rests on it.
    const child = this._process;
    assert.ok(child, 'StdioClientTransport no longer keeps its child in _process: update this test');
    this.child = child;
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null)
        resolve({ code: child.exitCode, signal: child.signalCode });
      else child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  }

  async send(message) {
    this.wire.push({ dir: '->', message });
    return super.send(message);
  }

  /** End the server's input and wait for it to exit by itself, then let the SDK clean up. */
  async close() {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.stdin.end();
      let timer;
      await Promise.race([
        this.exited,
        new Promise((resolve) => {
          timer = setTimeout(resolve, EXIT_TIMEOUT_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    return super.close();
  }
}

let transport;
let client;
let spec;
let validator;
let printedTools;
let listedTools;

/** The wire messages of the exchange that fn causes, for failure messages. */
async function withExchange(fn) {
  const from = transport.wire.length;
  const validationsFrom = validator.calls.length;
  try {
    return await fn({ validations: () => validator.calls.slice(validationsFrom) });
  } catch (err) {
    const exchange = transport.wire
      .slice(from)
      .map(({ dir, message }) => `${dir} ${JSON.stringify(message)}`)
      .join('\n');
    err.message += `\n--- exchange ---\n${exchange}`;
    throw err;
  }
}

/**
 * Calls a tool that has an outputSchema and succeeds; asserts that the client's own validation
 * ran on the structuredContent and accepted it.
 */
async function callStructured(name, args) {
  return withExchange(async ({ validations }) => {
    const result = await client.callTool({ name, arguments: args });
    assert.equal(result.isError, false, `isError: ${JSON.stringify(result)}`);
    const ran = validations();
    assert.equal(ran.length, 1, 'the client validated structuredContent once');
    assert.deepEqual(ran[0].input, result.structuredContent);
    assert.deepEqual(ran[0].schema, printedTools.get(name).outputSchema);
    assert.equal(ran[0].valid, true, ran[0].errorMessage);
    return result;
  });
}

/** Calls a tool expecting an isError result with one text block and no structuredContent. */
async function callFailing(name, args) {
  return withExchange(async ({ validations }) => {
    const result = await client.callTool({ name, arguments: args });
    assert.equal(result.isError, true, `isError: ${JSON.stringify(result)}`);
    assert.equal('structuredContent' in result, false, 'no structuredContent on an error');
    assert.equal(result.content.length, 1, 'one content block');
    assert.equal(result.content[0].type, 'text');
    assert.equal(validations().length, 0, 'nothing for the client to validate');
    return result.content[0].text;
  });
}

const json2 = (value) => JSON.stringify(value, null, 2);
const text = (t) => ({ type: 'text', text: t });

describe('weather server with the official TypeScript client', { concurrency: 1 }, () => {
  before(async () => {
    assert.ok(SERVER, 'set WEATHER_SERVER to the weather-server executable');
    assert.ok(MCPIDLC, 'set MCPIDLC to the mcpidlc executable');
    printedTools = new Map(
      JSON.parse(execFileSync(MCPIDLC, ['--print-tools', IDL], { encoding: 'utf8' })).map((t) => [t.name, t]),
    );
    const [command, ...args] = WRAP.length ? [...WRAP, SERVER] : [SERVER];
    transport = new WatchedStdioTransport({ command, args });
    spec = new SpecChecker();
    tapStdio(transport, spec);
    validator = new SpyValidator(new AjvJsonSchemaValidator()); // the client's default, as callTool uses it
    client = new Client({ name: 'mcpidl-e2e', version: '1.0.0' }, { jsonSchemaValidator: validator });
    await client.connect(transport);
  });

  afterEach(() => spec.assertClean());

  after(async () => {
    // Normally closed by the last test; this covers a run that failed before it.
    if (transport?.child && transport.child.exitCode === null) await client.close();
  });

  test('initialize: protocol version, server info, instructions, capabilities', () => {
    const request = transport.wire.find(({ dir, message }) => dir === '->' && message.method === 'initialize');
    const response = transport.wire.find(({ dir, message }) => dir === '<-' && message.id === request.message.id);
    assert.ok(response, 'the initialize response was seen on the wire');
    assert.equal(response.message.result.protocolVersion, '2025-11-25');
    assert.deepEqual(client.getServerVersion(), { name: 'weather', title: 'Weather', version: '1.0.0' });
    assert.equal(
      client.getInstructions(),
      'Ask for current conditions, a forecast, or temperatures of several cities.',
    );
    assert.ok(client.getServerCapabilities()?.tools, 'the server offers tools');
  });

  test('tools/list: the 7 tools, exactly as mcpidlc --print-tools describes them', async () => {
    await withExchange(async () => {
      const from = transport.wire.length;
      const { tools } = await client.listTools();
      listedTools = tools;
      assert.deepEqual(
        tools.map((t) => t.name),
        EXPECTED_TOOLS,
      );
      // The wire form equals the compiler's, byte for byte in content.
      const wire = transport.wire.slice(from).find(({ dir, message }) => dir === '<-' && message.result);
      assert.deepEqual(wire.message.result.tools, [...printedTools.values()]);
      // And the client, after its own parsing, keeps the schemas whole.
      for (const tool of tools) {
        const printed = printedTools.get(tool.name);
        assert.deepEqual(tool.inputSchema, printed.inputSchema, `${tool.name} inputSchema`);
        assert.deepEqual(tool.outputSchema, printed.outputSchema, `${tool.name} outputSchema`);
      }
      assert.equal(tools.find((t) => t.name === 'weather_report').outputSchema, undefined);
    });
  });

  test('get_temperature London: {result: 17}, content "17"', async () => {
    const result = await callStructured('get_temperature', { city: 'London' });
    assert.deepEqual(result.structuredContent, { result: 17 });
    assert.deepEqual(result.content, [text('17')]);
  });

  test('get_weather London: the model, content as 2-space-indented JSON', async () => {
    const result = await callStructured('get_weather', { city: 'London' });
    assert.deepEqual(result.structuredContent, LONDON);
    assert.deepEqual(result.content, [text(json2(LONDON))]);
    assert.equal(
      result.content[0].text,
      '{\n  "temperature": 16.2,\n  "humidity": 0.83,\n  "conditions": "Overcast"\n}',
    );
  });

  test('get_weather_record Cairo: the record', async () => {
    const cairo = { temperature: 34.1, humidity: 0.21, conditions: 'Sunny' };
    const result = await callStructured('get_weather_record', { city: 'Cairo' });
    assert.deepEqual(result.structuredContent, cairo);
    assert.deepEqual(result.content, [text(json2(cairo))]);
  });

  test('get_forecast London, 3 days: 3 items, 3 content blocks', async () => {
    const days = [0, 1, 2].map((d) => ({ ...LONDON, temperature: LONDON.temperature + d }));
    const result = await callStructured('get_forecast', { city: 'London', days: 3 });
    assert.deepEqual(result.structuredContent, { result: days });
    assert.deepEqual(result.content, days.map((d) => text(json2(d))));
  });

  test('get_forecast without days: the default, 3', async () => {
    const result = await callStructured('get_forecast', { city: 'Reykjavik' });
    assert.equal(result.structuredContent.result.length, 3);
    assert.equal(result.content.length, 3);
    assert.deepEqual(result.structuredContent.result[2], {
      temperature: 4.4 + 2,
      humidity: 0.76,
      conditions: 'Windy',
    });
  });

  test('get_forecast, 14 days: the maximum', async () => {
    const result = await callStructured('get_forecast', { city: 'Cairo', days: 14 });
    assert.equal(result.structuredContent.result.length, 14);
    assert.equal(result.content.length, 14);
  });

  test('get_temperatures: a dict, not wrapped', async () => {
    const temps = { London: 16.2, Cairo: 34.1, Reykjavik: 4.4 };
    const result = await callStructured('get_temperatures', { cities: ['London', 'Cairo', 'Reykjavik'] });
    assert.deepEqual(result.structuredContent, temps);
    assert.deepEqual(Object.keys(result.structuredContent), ['London', 'Cairo', 'Reykjavik']);
    assert.deepEqual(result.content, [text(json2(temps))]);
  });

  test('get_temperatures of no city: {}', async () => {
    const result = await callStructured('get_temperatures', { cities: [] });
    assert.deepEqual(result.structuredContent, {});
    assert.deepEqual(result.content, [text('{}')]);
  });

  test('get_weather_upstream: the upstream data fails WeatherData', async () => {
    const message = await callFailing('get_weather_upstream', { city: 'London' });
    assert.equal(
      message,
      'Error executing tool get_weather_upstream: 1 validation error for WeatherData\n' +
        'humidity\n' +
        "  Field required [type=missing, input_value={'temperature': 16.2, 'conditions': 'Overcast'}, input_type=dict]",
    );
  });

  test('weather_report: text only, no structuredContent', async () => {
    await withExchange(async ({ validations }) => {
      const result = await client.callTool({ name: 'weather_report', arguments: { city: 'London' } });
      assert.equal(result.isError, false);
      assert.equal('structuredContent' in result, false);
      assert.deepEqual(result.content, [text('London: 16.2 degrees Celsius, Overcast, humidity 83%')]);
      assert.equal(validations().length, 0, 'no outputSchema, nothing validated');
    });
  });

  test('an unknown city: the handler fails', async () => {
    assert.equal(
      await callFailing('get_weather', { city: 'Atlantis' }),
      "Error executing tool get_weather: no reading for 'Atlantis' (known cities: London, Cairo, Reykjavik)",
    );
    assert.equal(
      await callFailing('get_temperatures', { cities: ['London', 'Atlantis'] }),
      "Error executing tool get_temperatures: no reading for 'Atlantis' (known cities: London, Cairo, Reykjavik)",
    );
  });

  test('invalid arguments: days out of range', async () => {
    assert.equal(
      await callFailing('get_forecast', { city: 'London', days: 99 }),
      'Error executing tool get_forecast: 1 validation error for get_forecastArguments\n' +
        'days\n' +
        '  Input should be less than or equal to 14 [type=less_than_equal, input_value=99, input_type=int]',
    );
    assert.equal(
      await callFailing('get_forecast', { city: 'London', days: 0 }),
      'Error executing tool get_forecast: 1 validation error for get_forecastArguments\n' +
        'days\n' +
        '  Input should be greater than or equal to 1 [type=greater_than_equal, input_value=0, input_type=int]',
    );
  });

  test('invalid arguments: a number for the city', async () => {
    assert.equal(
      await callFailing('get_forecast', { city: 5 }),
      'Error executing tool get_forecast: 1 validation error for get_forecastArguments\n' +
        'city\n' +
        '  Input should be a valid string [type=string_type, input_value=5, input_type=int]',
    );
  });

  test('invalid arguments: two errors, in field order', async () => {
    assert.equal(
      await callFailing('get_forecast', { city: 5, days: 99 }),
      'Error executing tool get_forecast: 2 validation errors for get_forecastArguments\n' +
        'city\n' +
        '  Input should be a valid string [type=string_type, input_value=5, input_type=int]\n' +
        'days\n' +
        '  Input should be less than or equal to 14 [type=less_than_equal, input_value=99, input_type=int]',
    );
  });

  test('invalid arguments: a missing city', async () => {
    assert.equal(
      await callFailing('get_weather', {}),
      'Error executing tool get_weather: 1 validation error for get_weatherArguments\n' +
        'city\n' +
        '  Field required [type=missing, input_value={}, input_type=dict]',
    );
  });

  test('an unknown tool: the request fails with -32602', async () => {
    await withExchange(async () => {
      await assert.rejects(client.callTool({ name: 'get_humidity', arguments: { city: 'London' } }), (err) => {
        assert.ok(err instanceof McpError, `an McpError: ${err}`);
        assert.equal(err.code, ErrorCode.InvalidParams);
        assert.equal(err.code, -32602);
        assert.match(err.message, /get_humidity/);
        return true;
      });
    });
  });

  test('the session still works after the failures', async () => {
    const result = await callStructured('get_temperature', { city: 'Reykjavik' });
    assert.deepEqual(result.structuredContent, { result: 4 });
  });

  test('closing the client ends the server with exit status 0', async () => {
    await client.close();
    const { code, signal } = await transport.exited;
    assert.deepEqual(
      { code, signal },
      { code: 0, signal: null },
      `the server${WRAP.length ? ` under "${WRAP.join(' ')}"` : ''} exited badly; its stderr:\n${transport.stderrText}`,
    );
  });

  test('every message the server sent is valid by the MCP 2025-11-25 schema', () => {
    spec.assertClean();
    // initialize, tools/list, the 18 tools/call results (isError ones too) and the unknown tool.
    assert.deepEqual(spec.counts, { InitializeResult: 1, ListToolsResult: 1, CallToolResult: 18, JSONRPCErrorResponse: 1 });
    assert.equal(spec.pending.size, 0, 'every request was answered');
  });
});
