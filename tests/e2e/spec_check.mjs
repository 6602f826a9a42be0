// Every message a server sends, checked against the MCP specification's own JSON Schema, of the
// revision in force for that message (2025-11-25 or 2026-07-28).
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
// The revision of a request is the one its `_meta` claims (io.modelcontextprotocol/protocolVersion,
// as every 2026-07-28 request carries it), else 2025-11-25 (initialize and the requests of a
// session it opened carry no claim). A response is checked by the revision of its request; a
// notification or a server request by the revision of the POST whose stream carries it (HTTP) or
// of the client's latest request (stdio, one channel); the standalone GET stream exists in
// 2025-11-25 only. Under 2026-07-28 a 2026 response is checked whole (the <Method>ResultResponse
// of the schema, which for tools/call, prompts/get and resources/read also admits an
// InputRequiredResult), and a server request is a problem: the revision has none.
//
// The schemas are the checked-in copies of the specification's schema.json
// (tests/spec/mcp-schema-REVISION.json). Their $schema is draft 2020-12, hence Ajv2020; their
// formats (uri, uri-template, byte) come from ajv-formats.
//
// Use:
//   const spec = new SpecChecker();
//   tapStdio(transport, spec);                                  // before client.connect()
//   new StreamableHTTPClientTransport(url, { fetch: spec.fetch() });
//   afterEach(() => spec.assertClean());                        // fails the test that caused it
//   ... at the end: await spec.settle(); spec.assertClean(); spec.counts (2025-11-25),
//   spec.countsOf('2026-07-28')
// For a client that spawns stdio transports of its own (the v2 client probes on a sibling
// process), tapStdioClass(StdioClientTransport) taps every instance whose env carries
// spec.stdioEnv().
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const LEGACY = '2025-11-25';
export const MODERN = '2026-07-28';
export const SPEC_SCHEMA_PATHS = {
  [LEGACY]: path.resolve(HERE, '../spec/mcp-schema-2025-11-25.json'),
  [MODERN]: path.resolve(HERE, '../spec/mcp-schema-2026-07-28.json'),
};
export const SPEC_SCHEMA_PATH = SPEC_SCHEMA_PATHS[LEGACY];
/** The _meta key of a 2026-07-28 request that names its revision. */
export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/**
 * What each revision has: the schema type of the answer to each request a client sends (`whole`:
 * the type is of the whole JSON-RPC response, not of its result), the requests a server may send
 * a client, and the notifications it may send.
 */
const REVISIONS = {
  [LEGACY]: {
    whole: false,
    result: {
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
      // A request with params.task (2025-11-25's experimental tasks) is answered with its task.
      'tools/call+task': 'CreateTaskResult',
    },
    request: {
      ping: 'PingRequest',
      'sampling/createMessage': 'CreateMessageRequest',
      'elicitation/create': 'ElicitRequest',
      'roots/list': 'ListRootsRequest',
    },
    notification: {
      'notifications/message': 'LoggingMessageNotification',
      'notifications/progress': 'ProgressNotification',
      'notifications/cancelled': 'CancelledNotification',
      'notifications/resources/updated': 'ResourceUpdatedNotification',
      'notifications/resources/list_changed': 'ResourceListChangedNotification',
      'notifications/tools/list_changed': 'ToolListChangedNotification',
      'notifications/prompts/list_changed': 'PromptListChangedNotification',
      'notifications/elicitation/complete': 'ElicitationCompleteNotification',
      'notifications/tasks/status': 'TaskStatusNotification',
    },
  },
  [MODERN]: {
    whole: true,
    result: {
      'server/discover': 'DiscoverResultResponse',
      'tools/list': 'ListToolsResultResponse',
      'tools/call': 'CallToolResultResponse',
      'resources/list': 'ListResourcesResultResponse',
      'resources/templates/list': 'ListResourceTemplatesResultResponse',
      'resources/read': 'ReadResourceResultResponse',
      'subscriptions/listen': 'SubscriptionsListenResultResponse',
      'prompts/list': 'ListPromptsResultResponse',
      'prompts/get': 'GetPromptResultResponse',
      'completion/complete': 'CompleteResultResponse',
    },
    request: {},
    // Those of 2025-11-25 but elicitation/complete and tasks/status (the tasks extension is no part
    // of the schema), and the acknowledgement of subscriptions/listen.
    notification: null,
  },
};

{
  const { 'notifications/elicitation/complete': _e, 'notifications/tasks/status': _t, ...common } = REVISIONS[LEGACY].notification;
  REVISIONS[MODERN].notification = { ...common, 'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotification' };
}

const compiled = new Map(); // revision -> validate(name, instance); compiling a schema takes a while

/** validate(name, instance) -> the errors, for the schema of one revision. */
function specAjv(revision) {
  if (compiled.has(revision)) return compiled.get(revision);
  const schema = JSON.parse(readFileSync(SPEC_SCHEMA_PATHS[revision], 'utf8'));
  assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema', `the ${revision} schema changed its draft`);
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addSchema(schema, 'mcp');
  const validators = new Map();
  const { result, request, notification } = REVISIONS[revision];
  const names = [
    ...Object.values(result),
    ...Object.values(request),
    ...Object.values(notification),
    'JSONRPCResultResponse',
    'JSONRPCErrorResponse',
  ];
  for (const name of names) {
    assert.ok(schema.$defs[name], `the ${revision} schema has no ${name}`);
    if (!validators.has(name)) validators.set(name, ajv.compile({ $ref: `mcp#/$defs/${name}` }));
  }
  const validate = (name, instance) => {
    const v = validators.get(name);
    if (v(instance)) return [];
    return v.errors.map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`);
  };
  compiled.set(revision, validate);
  return validate;
}

/** The revision a request claims in its _meta, or 2025-11-25 without a claim. */
export function revisionOf(message) {
  const claimed = message?.params?._meta?.[PROTOCOL_VERSION_KEY];
  return typeof claimed === 'string' ? claimed : LEGACY;
}

/** A JSON-RPC id as a map key that keeps 1 and "1" apart. */
const idKey = (id) => JSON.stringify(id);

const clip = (text) => (text.length > 400 ? `${text.slice(0, 400)}...` : text);

let tapIds = 0;
const tapped = new Map(); // spec.stdioEnv() value -> SpecChecker
const TAP_ENV = 'MCPIDL_E2E_SPEC_TAP';

export class SpecChecker {
  constructor() {
    this.pending = new Map(); // idKey -> method, the client's requests not yet answered
    this.cancelled = new Map(); // idKey -> method, requests the client cancelled that may still get one answer
    this.revisions = new Map(); // idKey -> revision, of the same requests
    this.latest = LEGACY; // the revision of the client's latest request
    this.problems = []; // strings
    this.reported = 0; // problems already thrown by assertClean()
    this.byRevision = { [LEGACY]: {}, [MODERN]: {} }; // revision -> schema type -> messages checked
    this.checked = 0;
    this.sent = []; // every message the client sent, in order
    this.seen = []; // every message from the server that parsed, in order: {message, where, revision}
    this.readers = new Map(); // tapped response bodies still being read -> the request's method
  }

  /** The messages checked by the 2025-11-25 schema, by type. */
  get counts() {
    return this.byRevision[LEGACY];
  }

  /** The messages checked by the schema of a revision, by type. */
  countsOf(revision) {
    return this.byRevision[revision];
  }

  /** The environment that makes tapStdioClass tap a transport (and its siblings) for this checker. */
  stdioEnv() {
    if (!this.tapId) {
      this.tapId = String(++tapIds);
      tapped.set(this.tapId, this);
    }
    return { [TAP_ENV]: this.tapId };
  }

  /**
   * A message the client sends: a request's method and revision are remembered for its
   * response. Returns the revision of the (last) request in it.
   */
  noteSent(message) {
    let revision = this.latest;
    for (const m of Array.isArray(message) ? message : [message]) {
      this.sent.push(m);
      if (m && typeof m.method === 'string' && m.id !== undefined) {
        revision = revisionOf(m);
        const augmented = revision === LEGACY && m.method === 'tools/call' && m.params?.task !== undefined;
        this.pending.set(idKey(m.id), augmented ? `${m.method}+task` : m.method);
        this.revisions.set(idKey(m.id), revision);
        this.latest = revision;
      } else if (m && m.method === 'notifications/cancelled' && m.params?.requestId !== undefined) {
        // A request the client cancelled gets no answer (a subscriptions/listen it closes, too),
        // unless the server answered before the cancellation reached it, which the specification
        // allows: one answer may still come, never two.
        const key = idKey(m.params.requestId);
        if (this.pending.has(key)) this.cancelled.set(key, this.pending.get(key));
        this.pending.delete(key);
      }
    }
    return revision;
  }

  /** A message's text as the server wrote it, under a revision (by default the latest request's). */
  checkText(text, where, revision) {
    let message;
    try {
      message = JSON.parse(text);
    } catch (err) {
      this.problems.push(`${where}: not JSON (${err.message}): ${clip(text)}`);
      return;
    }
    this.check(message, where, revision);
  }

  /**
   * A parsed message from the server. A response is checked under the revision of its request;
   * anything else under `revision`, by default the revision of the client's latest request.
   */
  check(message, where, revision = this.latest) {
    const text = clip(JSON.stringify(message));
    const problem = (what) => this.problems.push(`${where}: ${what}\n    ${text}`);
    if (message !== null && typeof message === 'object' && !('method' in message) && message.id !== undefined)
      revision = this.revisions.get(idKey(message.id)) ?? revision;
    this.seen.push({ message, where, revision });
    const spec = REVISIONS[revision];
    if (!spec) return problem(`a message under revision ${revision}, which this checker does not know`);
    const validate = specAjv(revision);
    if (Array.isArray(message)) return problem(`a batch (JSON-RPC batches are not part of MCP ${revision})`);
    if (message === null || typeof message !== 'object') return problem('not a JSON-RPC message');
    let name;
    let errors = [];
    if ('method' in message) {
      const isRequest = 'id' in message;
      name = (isRequest ? spec.request : spec.notification)[message.method];
      if (!name) return problem(`a ${isRequest ? 'request' : 'notification'} of unknown method ${message.method} in ${revision}`);
      errors = validate(name, message);
    } else if ('result' in message && 'error' in message) {
      return problem('both result and error');
    } else if ('error' in message) {
      name = 'JSONRPCErrorResponse';
      errors = validate(name, message);
      // An error without an id answers a request the server could not read; with one, it
      // answers that request.
      if (message.id !== undefined && message.id !== null) {
        this.pending.delete(idKey(message.id));
        this.cancelled.delete(idKey(message.id));
        this.revisions.delete(idKey(message.id));
      }
    } else if ('result' in message) {
      const method = this.pending.get(idKey(message.id)) ?? this.cancelled.get(idKey(message.id));
      if (!method) return problem(`a response to id ${idKey(message.id)}, which no pending request has`);
      this.pending.delete(idKey(message.id));
      this.cancelled.delete(idKey(message.id));
      this.revisions.delete(idKey(message.id));
      name = spec.result[method];
      if (!name) return problem(`a response to ${method}, whose Result type in ${revision} this checker does not know`);
      errors = spec.whole
        ? validate(name, message)
        : [...validate('JSONRPCResultResponse', message), ...validate(name, message.result)];
    } else {
      return problem('neither a request, a notification nor a response');
    }
    const counts = this.byRevision[revision];
    counts[name] = (counts[name] ?? 0) + 1;
    this.checked++;
    for (const e of errors) problem(`${revision}: not a valid ${name}: ${e}`);
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
      // The revision of what the response carries: that of the request POSTed, or for a GET
      // (the standalone stream of 2025-11-25) the one its header names.
      let revision = new Headers(init.headers).get('mcp-protocol-version') ?? LEGACY;
      if (!REVISIONS[revision]) revision = LEGACY;
      if (typeof init.body === 'string') {
        try {
          revision = this.noteSent(JSON.parse(init.body));
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
      const read = type === 'text/event-stream' ? this.#readEvents(mine, where, revision) : this.#readJson(mine, where, revision);
      const reader = read
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

  async #readJson(body, where, revision) {
    const text = await new Response(body).text();
    if (text.trim() === '') return this.problems.push(`${where}: an empty JSON body`);
    this.checkText(text, where, revision);
  }

  /** Server-sent events (the WHATWG event stream format): each event's data is a message. */
  async #readEvents(body, where, revision) {
    const decoder = new TextDecoder();
    let buffer = '';
    let data = null; // the data lines of the event being read, joined by \n
    const line = (l) => {
      if (l === '') {
        // An event with empty data is a priming event (an id and a retry time only).
        if (data !== null && data !== '') this.checkText(data, `${where} event`, revision);
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
    readLines(transport, checker, 'stdout');
  };
}

/**
 * Taps every transport of a stdio transport class (on its prototype) whose spawn env carries a
 * checker's stdioEnv(): so also the sibling process a v2 client spawns from the same parameters
 * to probe on (its messages are checked as `probe stdout`). Idempotent.
 */
export function tapStdioClass(TransportClass) {
  const proto = TransportClass.prototype;
  if (proto[TAP_ENV]) return;
  proto[TAP_ENV] = true;
  const checkerOf = (transport) => tapped.get(transport._serverParams?.env?.[TAP_ENV]);
  const { send, start } = proto;
  proto.send = function (message, options) {
    checkerOf(this)?.noteSent(message);
    return send.call(this, message, options);
  };
  proto.start = async function () {
    await start.call(this);
    const checker = checkerOf(this);
    // The v2 client's probe sibling is spawned with its stderr ignored; the session's is not.
    if (checker) readLines(this, checker, this._serverParams.stderr === 'ignore' ? 'probe stdout' : 'stdout');
  };
}

/** The child's standard output read a second time, one message a line. */
function readLines(transport, checker, where) {
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
      if (text.trim() !== '') checker.checkText(text, where);
    }
  });
}
