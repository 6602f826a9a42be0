// Every message a server sends, checked against the MCP specification's own JSON Schema.
//
// The end-to-end tests drive servers with the official client, which parses what it receives
// with its own (looser, and sometimes stripping) zod schemas. This module taps the wire below
// the client instead, so the bytes the server wrote are what gets checked:
//   - stdio: a second reader of the child's standard output, one JSON-RPC message a line;
//   - Streamable HTTP: a fetch for the client's transport that tees every response body
//     (application/json, or each `data:` of a text/event-stream) to the checker.
// The requests the client sends are noted too, so that a response is checked against the
// Result type of the method it answers (tools/list -> ListToolsResult, ...). Notifications and
// the server's own requests are checked by method. A message whose kind cannot be told (an
// unknown method, a response to no pending request, a batch, not JSON) is a problem as well.
//
// The schema is the checked-in copy of the specification's schema.json
// (tests/spec/mcp-schema-2025-11-25.json). Its $schema is draft 2020-12, hence Ajv2020; its
// formats (uri, uri-template, byte) come from ajv-formats.
//
// Use:
//   const spec = new SpecChecker();
//   tapStdio(transport, spec);                                  // before client.connect()
//   new StreamableHTTPClientTransport(url, { fetch: spec.fetch() });
//   afterEach(() => spec.assertClean());                        // fails the test that caused it
//   ... at the end: await spec.settle(); spec.assertClean(); spec.counts
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const SPEC_SCHEMA_PATH = path.resolve(HERE, '../spec/mcp-schema-2025-11-25.json');

/** The Result type of the answer to each request a client sends. */
const RESULT_OF = {
  initialize: 'InitializeResult',
  ping: 'EmptyResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
  'logging/setLevel': 'EmptyResult',
  'tasks/get': 'GetTaskResult',
  'tasks/list': 'ListTasksResult',
  'tasks/cancel': 'CancelTaskResult',
  'tasks/result': 'GetTaskPayloadResult',
};

/** The requests a server may send a client. */
const SERVER_REQUEST = {
  ping: 'PingRequest',
  'sampling/createMessage': 'CreateMessageRequest',
  'elicitation/create': 'ElicitRequest',
  'roots/list': 'ListRootsRequest',
};

/** The notifications a server may send a client. */
const SERVER_NOTIFICATION = {
  'notifications/message': 'LoggingMessageNotification',
  'notifications/progress': 'ProgressNotification',
  'notifications/cancelled': 'CancelledNotification',
  'notifications/resources/updated': 'ResourceUpdatedNotification',
  'notifications/resources/list_changed': 'ResourceListChangedNotification',
  'notifications/tools/list_changed': 'ToolListChangedNotification',
  'notifications/prompts/list_changed': 'PromptListChangedNotification',
  'notifications/elicitation/complete': 'ElicitationCompleteNotification',
  'notifications/tasks/status': 'TaskStatusNotification',
};

let compiled; // one Ajv for the process: compiling the spec takes a while

function specAjv() {
  if (compiled) return compiled;
  const schema = JSON.parse(readFileSync(SPEC_SCHEMA_PATH, 'utf8'));
  assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema', 'the spec schema changed its draft');
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addSchema(schema, 'mcp');
  const validators = new Map();
  const names = [
    ...Object.values(RESULT_OF),
    ...Object.values(SERVER_REQUEST),
    ...Object.values(SERVER_NOTIFICATION),
    'JSONRPCResultResponse',
    'JSONRPCErrorResponse',
  ];
  for (const name of names) {
    assert.ok(schema.$defs[name], `the spec schema has no ${name}`);
    if (!validators.has(name)) validators.set(name, ajv.compile({ $ref: `mcp#/$defs/${name}` }));
  }
  compiled = (name, instance) => {
    const validate = validators.get(name);
    if (validate(instance)) return [];
    return validate.errors.map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`);
  };
  return compiled;
}

/** A JSON-RPC id as a map key that keeps 1 and "1" apart. */
const idKey = (id) => JSON.stringify(id);

const clip = (text) => (text.length > 400 ? `${text.slice(0, 400)}...` : text);

export class SpecChecker {
  constructor() {
    this.validate = specAjv();
    this.pending = new Map(); // idKey -> method, the client's requests not yet answered
    this.problems = []; // strings
    this.reported = 0; // problems already thrown by assertClean()
    this.counts = {}; // schema type -> messages checked
    this.checked = 0;
    this.sent = []; // every message the client sent, in order
    this.seen = []; // every message from the server that parsed, in order: {message, where}
    this.readers = new Map(); // tapped response bodies still being read -> the request's method
  }

  /** A message the client sends: a request's method is remembered for its response. */
  noteSent(message) {
    for (const m of Array.isArray(message) ? message : [message]) {
      this.sent.push(m);
      if (m && typeof m.method === 'string' && m.id !== undefined) this.pending.set(idKey(m.id), m.method);
    }
  }

  /** A message's text as the server wrote it. */
  checkText(text, where) {
    let message;
    try {
      message = JSON.parse(text);
    } catch (err) {
      this.problems.push(`${where}: not JSON (${err.message}): ${clip(text)}`);
      return;
    }
    this.check(message, where);
  }

  /** A parsed message from the server. */
  check(message, where) {
    const text = clip(JSON.stringify(message));
    const problem = (what) => this.problems.push(`${where}: ${what}\n    ${text}`);
    this.seen.push({ message, where });
    if (Array.isArray(message)) return problem('a batch (JSON-RPC batches are not part of MCP 2025-11-25)');
    if (message === null || typeof message !== 'object') return problem('not a JSON-RPC message');
    let name;
    let errors = [];
    if ('method' in message) {
      const isRequest = 'id' in message;
      name = (isRequest ? SERVER_REQUEST : SERVER_NOTIFICATION)[message.method];
      if (!name) return problem(`a ${isRequest ? 'request' : 'notification'} of unknown method ${message.method}`);
      errors = this.validate(name, message);
    } else if ('result' in message && 'error' in message) {
      return problem('both result and error');
    } else if ('error' in message) {
      name = 'JSONRPCErrorResponse';
      errors = this.validate(name, message);
      // An error without an id answers a request the server could not read; with one, it
      // answers that request.
      if (message.id !== undefined && message.id !== null) this.pending.delete(idKey(message.id));
    } else if ('result' in message) {
      const method = this.pending.get(idKey(message.id));
      if (!method) return problem(`a response to id ${idKey(message.id)}, which no pending request has`);
      this.pending.delete(idKey(message.id));
      name = RESULT_OF[method];
      if (!name) return problem(`a response to ${method}, whose Result type this checker does not know`);
      errors = [
        ...this.validate('JSONRPCResultResponse', message),
        ...this.validate(name, message.result),
      ];
    } else {
      return problem('neither a request, a notification nor a response');
    }
    this.counts[name] = (this.counts[name] ?? 0) + 1;
    this.checked++;
    for (const e of errors) problem(`not a valid ${name}: ${e}`);
  }

  /** Throws with the problems found since the last call. */
  assertClean() {
    const fresh = this.problems.slice(this.reported);
    this.reported = this.problems.length;
    assert.equal(fresh.length, 0, `messages from the server that fail the MCP schema:\n${fresh.join('\n')}`);
  }

  /**
   * Waits until the tapped HTTP response bodies have been read to their end: those of POSTs,
   * which end with the answer, or with all also the standalone GET stream, which ends only when
   * the client closes.
   */
  async settle({ all = false } = {}) {
    const waited = () => [...this.readers].filter(([, method]) => all || method === 'POST').map(([r]) => r);
    for (let left = waited(); left.length; left = waited()) await Promise.allSettled(left);
  }

  /**
   * A fetch for StreamableHTTPClientTransport ({ fetch }): it notes the POSTed requests and hands
   * the client a copy of each response body, checking the other copy. Reading of the copy
   * follows the client's own, so an SSE stream that the client keeps open (the GET stream) is
   * checked as its events arrive.
   */
  fetch(inner = globalThis.fetch) {
    return async (url, init = {}) => {
      if (typeof init.body === 'string') {
        try {
          this.noteSent(JSON.parse(init.body));
        } catch {
          // Not JSON: the server's answer will say so, and that answer is checked.
        }
      }
      const response = await inner(url, init);
      if (!response.body) return response;
      const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
      if (type !== 'application/json' && type !== 'text/event-stream') return response;
      const [mine, theirs] = response.body.tee();
      const method = init.method ?? 'GET';
      const where = `${method} ${response.status} ${type}`;
      const reader = (type === 'text/event-stream' ? this.#readEvents(mine, where) : this.#readJson(mine, where))
        .catch((err) => {
          // The client aborting a stream (closing, or a test ending) ends the copy too.
          if (err?.name !== 'AbortError' && !/aborted|terminated/i.test(String(err?.message)))
            this.problems.push(`${where}: reading the response failed: ${err}`);
        })
        .finally(() => this.readers.delete(reader));
      this.readers.set(reader, method);
      return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
    };
  }

  async #readJson(body, where) {
    const text = await new Response(body).text();
    if (text.trim() === '') return this.problems.push(`${where}: an empty JSON body`);
    this.checkText(text, where);
  }

  /** Server-sent events (the WHATWG event stream format): each event's data is a message. */
  async #readEvents(body, where) {
    const decoder = new TextDecoder();
    let buffer = '';
    let data = null; // the data lines of the event being read, joined by \n
    const line = (l) => {
      if (l === '') {
        // An event with empty data is a priming event (an id and a retry time only).
        if (data !== null && data !== '') this.checkText(data, `${where} event`);
        data = null;
        return;
      }
      if (l.startsWith(':')) return;
      const colon = l.indexOf(':');
      const field = colon < 0 ? l : l.slice(0, colon);
      let value = colon < 0 ? '' : l.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data = data === null ? value : `${data}\n${value}`;
    };
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      // A \r at the very end may be the first half of a \r\n: it waits for the next chunk.
      const carry = buffer.endsWith('\r') ? '\r' : '';
      const lines = buffer.slice(0, buffer.length - carry.length).split(/\r\n|\r|\n/);
      buffer = lines.pop() + carry;
      lines.forEach(line);
    }
    buffer += decoder.decode();
    if (buffer !== '') buffer.split(/\r\n|\r|\n/).forEach(line);
    if (data !== null && data !== '') this.problems.push(`${where}: the stream ended inside an event: ${clip(data)}`);
  }
}

/**
 * Taps a StdioClientTransport (before connect()): what the client sends is noted, and the
 * child's standard output is read a second time, one message a line.
 */
export function tapStdio(transport, checker) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    checker.noteSent(message);
    return send(message, options);
  };
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    const stdout = transport._process?.stdout;
    assert.ok(stdout, 'StdioClientTransport no longer keeps its child in _process: update spec_check.mjs');
    const decoder = new StringDecoder('utf8'); // a character may straddle two chunks
    let buffer = '';
    stdout.on('data', (chunk) => {
      buffer += decoder.write(chunk);
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const text = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (text.trim() !== '') checker.checkText(text, 'stdout');
      }
    });
  };
}
