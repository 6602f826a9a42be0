// The official MCP TypeScript client against a server of every string-format type (datetime,
// date, time, timedelta, uuid, url, decimal), end to end over stdio.
//
// The server (formats/fx.mcp.yaml, formats/fx.c) takes each type as a parameter, a field of a
// model, a list item and an optional, returns each one wrapped, and answers with what it was
// given. Valid values must come back in structuredContent in their canonical form (the form the
// MCP Python SDK writes), accepted by the client's own validation of the outputSchema; invalid
// values must be refused with an isError result whose text names each field and why. Every
// message the server writes is checked against the MCP specification's schema (spec_check.mjs).
//
// Environment:
//   FORMATS_SERVER  the formats-echo-server executable (required)
//   MCPIDLC         the mcpidlc executable, for the tool list comparison (required)
//
// Run: node_modules/.bin/node --test formats.test.mjs (from tests/e2e; ctest does it too).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

import { SpyValidator, stdioChild } from './e2e_util.mjs';
import { SpecChecker, tapStdio } from './spec_check.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SERVER = process.env.FORMATS_SERVER;
const MCPIDLC = process.env.MCPIDLC;
const IDL = path.resolve(HERE, 'formats/fx.mcp.yaml');

// One valid value of each type as a client may send it, and the canonical form the server
// answers with: offsets kept, fractions cut to microseconds, a lowercase T and UUID, a URL's
// scheme and host lowercased with the default port dropped, leading zeros of a decimal dropped.
const VALID = {
  when: ['2026-12-03t07:00:00.1234567+01:00', '2026-12-03T07:00:00.123456+01:00'],
  day: ['2028-02-29', '2028-02-29'],
  at: ['07:30:00Z', '07:30:00Z'],
  length: ['P1DT2H', 'P1DT2H'],
  id: ['6FA459EA-EE8A-3CA4-894E-DB77E160355E', '6fa459ea-ee8a-3ca4-894e-db77e160355e'],
  link: ['HTTP://Example.COM:80', 'http://example.com/'],
  price: ['001.50', '1.50'],
};
const given = (pick) => Object.fromEntries(Object.entries(VALID).map(([k, v]) => [k, v[pick]]));
const SENT = given(0);
const CANONICAL = given(1);

// One invalid value of each type, and the reason the server gives for it.
const INVALID = {
  when: ['2026-12-03 07:00', 'Input should have timezone info [type=timezone_aware'],
  day: ['2026-02-30', 'Input should be a valid date in the format YYYY-MM-DD, day value is outside expected range'],
  at: ['25:00:00', 'Input should be in a valid time format, hour value is outside expected range of 0-23'],
  length: ['-P1D', 'Input should be a valid duration'],
  id: ['xyz', 'Input should be a valid UUID, invalid character: found `x` at 1'],
  link: ['not a url', 'Input should be a valid URL, relative URL without a base'],
  price: ['1e3x', 'Input should be a valid decimal [type=decimal_parsing'],
};
const RET_TOOL = {
  when: 'ret_datetime',
  day: 'ret_date',
  at: 'ret_time',
  length: 'ret_timedelta',
  id: 'ret_uuid',
  link: 'ret_url',
  price: 'ret_decimal',
};
const LIST_KEY = { when: 'whens', day: 'days', at: 'ats', length: 'lengths', id: 'ids', link: 'links', price: 'prices' };

let transport;
let client;
let spec;
let validator;
let printedTools;

/** Calls a tool that must succeed; the client's own validation of structuredContent ran and passed. */
async function callStructured(name, args) {
  const from = validator.calls.length;
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, false, `${name}: ${JSON.stringify(result)}`);
  const ran = validator.calls.slice(from);
  assert.equal(ran.length, 1, `${name}: the client validated structuredContent once`);
  assert.deepEqual(ran[0].input, result.structuredContent);
  assert.deepEqual(ran[0].schema, printedTools.get(name).outputSchema);
  assert.equal(ran[0].valid, true, `${name}: ${ran[0].errorMessage}`);
  return result.structuredContent;
}

/** Calls a tool that must fail; returns the text of its one content block. */
async function callFailing(name, args) {
  const from = validator.calls.length;
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, true, `${name}: ${JSON.stringify(result)}`);
  assert.equal('structuredContent' in result, false, 'no structuredContent on an error');
  assert.equal(result.content.length, 1, 'one content block');
  assert.equal(result.content[0].type, 'text');
  assert.equal(validator.calls.length, from, 'nothing for the client to validate');
  return result.content[0].text;
}

/** The reasons of a validation error text, by location: {"when": "Input should ...", ...}. */
function reasons(text) {
  const lines = text.split('\n');
  const out = {};
  for (let i = 1; i + 1 < lines.length; i += 2) out[lines[i]] = lines[i + 1].trim();
  return out;
}

describe('string-format types with the official TypeScript client', { concurrency: 1 }, () => {
  before(async () => {
    assert.ok(SERVER, 'set FORMATS_SERVER to the formats-echo-server executable');
    assert.ok(MCPIDLC, 'set MCPIDLC to the mcpidlc executable');
    printedTools = new Map(
      JSON.parse(execFileSync(MCPIDLC, ['--print-tools', IDL], { encoding: 'utf8' })).map((t) => [t.name, t]),
    );
    transport = new StdioClientTransport({ command: SERVER, args: [], stderr: 'pipe' });
    spec = new SpecChecker();
    tapStdio(transport, spec);
    validator = new SpyValidator(new AjvJsonSchemaValidator()); // the client's default, as callTool uses it
    client = new Client({ name: 'mcpidl-e2e', version: '1.0.0' }, { jsonSchemaValidator: validator });
    await client.connect(transport);
  });

  afterEach(() => spec.assertClean());

  after(async () => {
    if (!transport) return;
    const { child, exited } = stdioChild(transport);
    child.stdin.end();
    const { code } = await exited;
    await client.close();
    assert.equal(code, 0, 'the server exits with status 0 once its input ends');
  });

  test('tools/list: the tools as mcpidlc --print-tools describes them', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      [...printedTools.keys()],
    );
    for (const tool of tools) {
      assert.deepEqual(tool.inputSchema, printedTools.get(tool.name).inputSchema, `${tool.name} inputSchema`);
      assert.deepEqual(tool.outputSchema, printedTools.get(tool.name).outputSchema, `${tool.name} outputSchema`);
    }
  });

  test('parameters: each type comes back canonical in the fields of a model', async () => {
    assert.deepEqual(await callStructured('echo_params', SENT), CANONICAL);
  });

  test('fields: a model of each type, as a parameter, comes back canonical', async () => {
    assert.deepEqual(await callStructured('echo_stamp', { stamp: SENT }), CANONICAL);
  });

  test('list items: lists of each type (two values, and empty) come back canonical', async () => {
    const lists = Object.fromEntries(Object.entries(LIST_KEY).map(([k, list]) => [list, [SENT[k], SENT[k]]]));
    const want = Object.fromEntries(Object.entries(LIST_KEY).map(([k, list]) => [list, [CANONICAL[k], CANONICAL[k]]]));
    assert.deepEqual(await callStructured('echo_lists', { lists }), want);
    const empty = Object.fromEntries(Object.values(LIST_KEY).map((list) => [list, []]));
    assert.deepEqual(await callStructured('echo_lists', { lists: empty }), empty);
  });

  test('optionals: each type given, null, or left out (its default, null)', async () => {
    assert.deepEqual(await callStructured('echo_maybes', SENT), CANONICAL);
    const nulls = Object.fromEntries(Object.keys(VALID).map((k) => [k, null]));
    assert.deepEqual(await callStructured('echo_maybes', nulls), nulls);
    assert.deepEqual(await callStructured('echo_maybes', {}), nulls);
    assert.deepEqual(await callStructured('echo_maybes', { day: SENT.day }), { ...nulls, day: CANONICAL.day });
  });

  test('returns: each type wrapped in result, canonical, and its content the text', async () => {
    for (const [k, tool] of Object.entries(RET_TOOL)) {
      const result = await client.callTool({ name: tool, arguments: { v: SENT[k] } });
      assert.equal(result.isError, false, `${tool}: ${JSON.stringify(result)}`);
      assert.deepEqual(result.structuredContent, { result: CANONICAL[k] }, tool);
      assert.deepEqual(result.content, [{ type: 'text', text: CANONICAL[k] }], tool);
    }
    // A decimal may also be sent as a JSON number.
    assert.deepEqual(await callStructured('ret_decimal', { v: 1.5 }), { result: '1.5' });
  });

  test('invalid parameters: every one refused, each with its reason', async () => {
    const bad = Object.fromEntries(Object.entries(INVALID).map(([k, [v]]) => [k, v]));
    const text = await callFailing('echo_params', bad);
    assert.match(text, /^Error executing tool echo_params: 7 validation errors for echo_paramsArguments\n/);
    const got = reasons(text);
    assert.deepEqual(Object.keys(got), Object.keys(INVALID));
    for (const [k, [v, why]] of Object.entries(INVALID)) {
      assert.ok(got[k].startsWith(why), `${k}: ${got[k]}`);
      assert.ok(got[k].endsWith(`input_value='${v}', input_type=str]`), `${k}: ${got[k]}`);
    }
  });

  test('invalid fields, list items, optionals and returns: refused at their place', async () => {
    for (const [k, [v, why]] of Object.entries(INVALID)) {
      const stamp = await callFailing('echo_stamp', { stamp: { ...SENT, [k]: v } });
      assert.equal(reasons(stamp)[`stamp.${k}`]?.startsWith(why), true, `echo_stamp ${k}: ${stamp}`);

      const lists = Object.fromEntries(Object.values(LIST_KEY).map((list) => [list, []]));
      lists[LIST_KEY[k]] = [SENT[k], v];
      const list = await callFailing('echo_lists', { lists });
      assert.equal(reasons(list)[`lists.${LIST_KEY[k]}.1`]?.startsWith(why), true, `echo_lists ${k}: ${list}`);

      const maybe = await callFailing('echo_maybes', { [k]: v });
      assert.equal(reasons(maybe)[k]?.startsWith(why), true, `echo_maybes ${k}: ${maybe}`);

      const ret = await callFailing(RET_TOOL[k], { v });
      assert.equal(reasons(ret).v?.startsWith(why), true, `${RET_TOOL[k]} ${k}: ${ret}`);
    }
  });

  test('wrong JSON types: a number for a datetime, a string list for a date', async () => {
    const text = await callFailing('echo_params', { ...SENT, when: 17, day: ['2026-01-01'] });
    const got = reasons(text);
    assert.deepEqual(Object.keys(got), ['when', 'day']);
    assert.match(got.when, /^Input should be a valid datetime/);
    assert.match(got.day, /^Input should be a valid date/);
  });

  test('an invalid output: the server refuses to send it, and says why', async () => {
    const text = await callFailing('bad_datetime', {});
    assert.equal(
      text,
      'Error executing tool bad_datetime: 1 validation error for bad_datetimeOutput\nresult\n' +
        "  Input should be a valid datetime, input is too short [type=datetime_parsing, input_value='yesterday', input_type=str]",
    );
  });
});
