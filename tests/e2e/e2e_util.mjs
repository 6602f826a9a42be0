// What the end-to-end tests share besides the schema check: a server started over Streamable
// HTTP on a free port, and a spy on a client's JSON Schema validator.
import { spawn } from 'node:child_process';

/**
 * Spawns `command args` (which should include `--http 127.0.0.1:0`) and resolves once the server
 * prints the URL it listens on: { child, url, exited, stderr() }. Rejects if it exits first or
 * prints nothing within timeoutMs (a hang guard).
 */
export async function startHttpServer(command, args, timeoutMs) {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not listen within ${timeoutMs} ms:\n${stderr}`)), timeoutMs);
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /listening on (https?:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before listening:\n${stderr}`));
    });
  });
  return { child, url, exited, stderr: () => stderr };
}

/** A TCP port free on 127.0.0.1 now (for a server whose URL must be known before it starts). */
export async function freePort() {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** The --tls-cert and --tls-key arguments when the test runs under with_tls.sh, else none. */
export function tlsArgs() {
  const cert = process.env.MCP_TLS_CERT, key = process.env.MCP_TLS_KEY;
  return cert && key ? ['--tls-cert', cert, '--tls-key', key] : [];
}

/**
 * A client's JSON Schema validator (getValidator(schema) -> (input) -> {valid, errorMessage}),
 * recording every validation in calls: [{schema, input, valid, errorMessage}].
 */
export class SpyValidator {
  constructor(inner) {
    this.inner = inner;
    this.calls = [];
  }
  getValidator(schema) {
    const validate = this.inner.getValidator(schema);
    return (input) => {
      const result = validate(input);
      this.calls.push({ schema, input, valid: result.valid, errorMessage: result.errorMessage });
      return result;
    };
  }
}

/**
 * Resolves when cond() holds: now, or at one of the checks the caller runs from
 * session.waiters (each a function that returns true once done) as messages arrive. Rejects
 * after timeoutMs (a hang guard).
 */
export function waitFor(session, cond, what, timeoutMs) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${what} within ${timeoutMs} ms`)), timeoutMs);
    const check = () => {
      if (!cond()) return false;
      clearTimeout(timer);
      resolve();
      return true;
    };
    if (!check()) session.waiters.push(check);
  });
}

/** The child process of a started stdio transport, and a promise of its exit: {child, exited}. */
export function stdioChild(transport) {
  const child = transport._process;
  if (!child) throw new Error('StdioClientTransport no longer keeps its child in _process: update the end-to-end tests');
  const exited = new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, exited };
}
