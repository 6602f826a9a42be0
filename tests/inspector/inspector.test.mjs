// The MCP Inspector's command-line mode against the weather example server, as a user runs it:
//
//   npx @modelcontextprotocol/inspector --cli ./weather-server --method tools/list
//   npx @modelcontextprotocol/inspector --cli ./weather-server --method tools/call \
//       --tool-name get_weather --tool-arg city=London
//
// The Inspector is the one pinned in tests/e2e/package.json (installed there by scripts/setup.sh);
// npx finds it there and runs it, like the test itself, on the pinned Node 22.
//
// Environment:
//   WEATHER_SERVER  the weather-server executable (required)
//   MCPIDLC         the mcpidlc executable: the listed schemas must be its --print-tools (required)
//   WEATHER_IDL     the IDL (default: examples/weather/weather.mcp.yaml beside this checkout)
//   NPX             the npx command (default: npx)
//
// Run: tests/e2e/node_modules/.bin/node --test tests/inspector/inspector.test.mjs (ctest does).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const E2E = path.resolve(HERE, '../e2e');
const SERVER = process.env.WEATHER_SERVER;
const MCPIDLC = process.env.MCPIDLC;
const IDL = process.env.WEATHER_IDL ?? path.resolve(HERE, '../../examples/weather/weather.mcp.yaml');
const NPX = process.env.NPX ?? 'npx';

const LONDON = { temperature: 16.2, humidity: 0.83, conditions: 'Overcast' };

let scratch;
let env;

/** npx @modelcontextprotocol/inspector --cli SERVER ARGS...: { status, json, stdout, stderr }. */
function inspector(...args) {
  const p = spawnSync(NPX, ['--no-install', '@modelcontextprotocol/inspector', '--cli', SERVER, ...args], {
    cwd: E2E,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (p.error) throw p.error;
  let json;
  try {
    json = JSON.parse(p.stdout);
  } catch {
    json = undefined;
  }
  return { status: p.status, json, stdout: p.stdout, stderr: p.stderr };
}

function explain(r) {
  return `exit status ${r.status}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
}

describe('the MCP Inspector CLI and the weather server', () => {
  before(() => {
    assert.ok(SERVER, 'WEATHER_SERVER must name the weather-server executable');
    assert.ok(MCPIDLC, 'MCPIDLC must name the mcpidlc executable');
    assert.ok(
      fs.existsSync(path.join(E2E, 'node_modules/@modelcontextprotocol/inspector/package.json')),
      'the Inspector is not installed in tests/e2e: run scripts/setup.sh',
    );
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpidl-inspector-'));
    env = {
      ...process.env,
      // npx, the Inspector and the server's launcher all run on this (the pinned) node.
      PATH: [path.dirname(process.execPath), path.join(E2E, 'node_modules/.bin'), process.env.PATH].join(path.delimiter),
      // No OS keychain on a build machine, and nothing written to the home directory.
      MCP_INSPECTOR_SECRET_STORE: 'memory',
      MCP_CATALOG_PATH: path.join(scratch, 'mcp.json'),
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    };
  });

  after(() => {
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  test('the Inspector is the pinned version', () => {
    const pinned = JSON.parse(fs.readFileSync(path.join(E2E, 'package.json'), 'utf8')).devDependencies[
      '@modelcontextprotocol/inspector'
    ];
    const installed = JSON.parse(
      fs.readFileSync(path.join(E2E, 'node_modules/@modelcontextprotocol/inspector/package.json'), 'utf8'),
    ).version;
    assert.equal(installed, pinned, 'tests/e2e/node_modules is stale: run scripts/setup.sh');
  });

  test('scripts/inspector runs the pinned Inspector and Node without npx or a node on PATH', () => {
    const script = path.resolve(HERE, '../../scripts/inspector');
    const bare = { ...process.env, PATH: '/usr/bin:/bin', MCP_CATALOG_PATH: env.MCP_CATALOG_PATH };
    const r = spawnSync(script, ['--cli', SERVER, '--method', 'tools/call', '--tool-name', 'get_temperature',
      '--tool-arg', 'city=London'], { env: bare, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).structuredContent, { result: 17 });
    const v = spawnSync(script, ['node', '--version'], { env: bare, encoding: 'utf8' });
    const pinned = JSON.parse(fs.readFileSync(path.join(E2E, 'package.json'), 'utf8')).devDependencies.node;
    assert.equal(v.stdout.trim(), `v${pinned}`);
  });

  test('--method tools/list lists every tool with the schemas mcpidlc prints', () => {
    const r = inspector('--method', 'tools/list');
    assert.equal(r.status, 0, explain(r));
    assert.ok(r.json, explain(r));
    const expected = JSON.parse(execFileSync(MCPIDLC, ['--print-tools', IDL], { encoding: 'utf8' }));
    const listed = r.json.tools;
    assert.deepEqual(
      listed.map((t) => t.name),
      expected.map((t) => t.name),
    );
    for (const want of expected) {
      const got = listed.find((t) => t.name === want.name);
      assert.equal(got.description, want.description, want.name);
      assert.deepEqual(got.inputSchema, want.inputSchema, `${want.name}: inputSchema`);
      assert.deepEqual(got.outputSchema, want.outputSchema, `${want.name}: outputSchema`);
    }
  });

  test('--method tools/call --tool-name get_weather --tool-arg city=London', () => {
    const r = inspector('--method', 'tools/call', '--tool-name', 'get_weather', '--tool-arg', 'city=London');
    assert.equal(r.status, 0, explain(r));
    assert.ok(r.json, explain(r));
    assert.equal(r.json.isError, false);
    assert.deepEqual(r.json.structuredContent, LONDON);
    assert.equal(r.json.content.length, 1);
    assert.equal(r.json.content[0].type, 'text');
    assert.deepEqual(JSON.parse(r.json.content[0].text), LONDON);
  });

  test('a list result, with an integer argument given as key=value', () => {
    const r = inspector(
      '--method', 'tools/call', '--tool-name', 'get_forecast',
      '--tool-arg', 'city=London', '--tool-arg', 'days=2',
    );
    assert.equal(r.status, 0, explain(r));
    assert.deepEqual(r.json.structuredContent, {
      result: [LONDON, { ...LONDON, temperature: 17.2 }],
    });
    assert.equal(r.json.content.length, 2);
  });

  test('upstream data that fails validation comes back as an isError result', () => {
    const r = inspector('--method', 'tools/call', '--tool-name', 'get_weather_upstream', '--tool-arg', 'city=London');
    assert.notEqual(r.status, 0, 'the Inspector CLI exits non-zero for an isError result');
    assert.ok(r.json, explain(r));
    assert.equal(r.json.isError, true);
    assert.equal(r.json.structuredContent, undefined);
    assert.equal(
      r.json.content[0].text,
      'Error executing tool get_weather_upstream: 1 validation error for WeatherData\n' +
        'humidity\n' +
        "  Field required [type=missing, input_value={'temperature': 16.2, 'conditions': 'Overcast'}, input_type=dict]",
    );
  });
});
