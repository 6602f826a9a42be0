// The official MCP TypeScript client against a server whose tool list changes while it serves.
//
// The server (tests/e2e/display/display_server.c, from tests/unit/display/display.mcp.yaml) puts
// icons, _meta, annotations and titles on what it lists and a description, icons and a websiteUrl
// in its serverInfo; its tool `toggle` withdraws or offers the tool `greet` through
// mcp_runtime_tool_enable. One client session over stdio: the client reads what is published,
// then greet is withdrawn (notifications/tools/list_changed arrives, tools/list lacks it, a call
// of it fails as an unknown tool's does) and offered again. Every message the server writes is
// checked against the MCP specification's schema (spec_check.mjs).
//
// Environment:
//   DISPLAY_SERVER  the display-server executable (required)
//
// Run: node_modules/.bin/node --test display.test.mjs (from tests/e2e; ctest does it too).
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { SpecChecker, tapStdio } from './spec_check.mjs';

const SERVER = process.env.DISPLAY_SERVER;

let transport;
let client;
let spec;
// Each notifications/tools/list_changed resolves the promise waiting for it.
let changes = 0;
let waiting = null;

/** The next notifications/tools/list_changed (the test's own timeout guards a hang). */
function nextChange() {
  return new Promise((resolve) => {
    waiting = resolve;
  });
}

async function toolNames() {
  const { tools } = await client.listTools();
  return tools.map((t) => t.name);
}

/** The error a tools/call of `name` gets. */
async function callError(name, args) {
  try {
    await client.callTool({ name, arguments: args });
  } catch (err) {
    return err;
  }
  assert.fail(`tools/call of ${name} succeeded`);
}

describe('display server: icons, _meta, serverInfo and a changing tool list', { concurrency: 1 }, () => {
  before(async () => {
    assert.ok(SERVER, 'set DISPLAY_SERVER to the display-server executable');
    transport = new StdioClientTransport({ command: SERVER, args: [], stderr: 'pipe' });
    spec = new SpecChecker();
    tapStdio(transport, spec);
    client = new Client({ name: 'mcpidl-e2e', version: '1.0.0' });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
      const resolve = waiting;
      waiting = null;
      resolve?.();
    });
    await client.connect(transport);
  });

  afterEach(() => spec.assertClean());

  after(async () => {
    await client?.close();
  });

  test('serverInfo: title, description, icons, websiteUrl', () => {
    assert.deepEqual(client.getServerVersion(), {
      name: 'display',
      title: 'Display',
      version: '1.0.0',
      description: 'Shows what clients may show.',
      icons: [{ src: 'https://example.com/display.png', mimeType: 'image/png', sizes: ['48x48', '96x96'], theme: 'light' }],
      websiteUrl: 'https://example.com/display',
    });
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
  });

  test('tools/list: title, annotations, icons and _meta as the IDL writes them', async () => {
    const { tools } = await client.listTools();
    const greet = tools.find((t) => t.name === 'greet');
    assert.equal(greet.title, 'Greeter');
    assert.deepEqual(greet.annotations, {
      title: 'Greet',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    assert.deepEqual(greet.icons, [
      { src: 'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=', mimeType: 'image/svg+xml', sizes: ['any'], theme: 'dark' },
    ]);
    assert.deepEqual(greet._meta, { 'com.example/ui': { color: 'blue', order: [2, 1] }, plain: true });
  });

  test('resources, templates and prompts carry their icons and _meta', async () => {
    const { resources } = await client.listResources();
    assert.deepEqual(resources[0].icons, [{ src: 'https://example.com/readme.png' }]);
    assert.deepEqual(resources[0]._meta, { 'com.example/kind': 'doc' });
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates[0].icons, []);
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts[0].icons, [{ src: 'https://example.com/hello.png', sizes: ['16x16'] }]);
    assert.deepEqual(prompts[0]._meta, { 'com.example/kind': 'prompt' });
  });

  test('greet withdrawn: list_changed, gone from tools/list, called as an unknown tool', async () => {
    const before = changes;
    const changed = nextChange();
    const result = await client.callTool({ name: 'toggle', arguments: { enabled: false } });
    assert.deepEqual(result.structuredContent, { result: true });
    await changed;
    assert.equal(changes, before + 1);
    assert.deepEqual(await toolNames(), ['toggle']);
    const err = await callError('greet', { name: 'Ada' });
    const unknown = await callError('no_such_tool', {});
    assert.ok(err instanceof McpError, String(err));
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.equal(err.code, unknown.code);
    assert.equal(err.message.replace('greet', 'X'), unknown.message.replace('no_such_tool', 'X'));
  });

  test('greet offered again: list_changed, listed, called', async () => {
    const changed = nextChange();
    await client.callTool({ name: 'toggle', arguments: { enabled: true } });
    await changed;
    assert.deepEqual(await toolNames(), ['greet', 'toggle']);
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    assert.deepEqual(result.structuredContent, { result: 'Hello, Ada!' });
  });
});
