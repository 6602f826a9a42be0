// What the conformance runners (run.mjs, run_next.mjs) share: the everything server started over
// Streamable HTTP on a free port and stopped with SIGTERM, a child run to its end with a hang
// guard, and the result directories the suite writes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';

// Hang guards only: the suite takes seconds when the server answers.
const LISTEN_TIMEOUT_MS = 60_000;
const EXIT_TIMEOUT_MS = 60_000;

/** Resolves with the first match of re in what the child writes on stderr so far. */
function waitForStderr(child, re, timeoutMs, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${what} within ${timeoutMs} ms:\n${child.stderrText}`)), timeoutMs);
    const look = () => {
      const m = re.exec(child.stderrText);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stderr.on('data', look);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before its ${what}:\n${child.stderrText}`));
    });
    look();
  });
}

/** Runs a child to its end (or kills it after timeoutMs); resolves with its status and output. */
export function run(command, args, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

/** The scenario of a result directory: server-<scenario>-<ISO time with : and . as ->. */
export function scenarioOf(dir) {
  const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir);
  assert.ok(m, `a result directory of an unknown form: ${dir}`);
  return m[1];
}

/**
 * Starts `server --http 127.0.0.1:0` (the server picks a free port and prints its URL on stderr).
 * Resolves with { url, stderr(), alive(), stop() }: the URL names localhost, which the suite's
 * DNS-rebinding scenario needs and which Node reaches 127.0.0.1 through; stop() sends SIGTERM
 * and resolves with a problem (a string) or null when the server exited with status 0.
 */
export async function startServer(server) {
  const child = spawn(server, ['--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderrText = '';
  child.stderr.on('data', (d) => (child.stderrText += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (alive()) child.kill('SIGTERM');
    let timer;
    const end = await Promise.race([
      exited,
      new Promise((resolve) => (timer = setTimeout(() => resolve(null), EXIT_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
    if (!end) {
      child.kill('SIGKILL');
      return `the server did not exit within ${EXIT_TIMEOUT_MS} ms of SIGTERM`;
    }
    return end.code === 0 ? null : `the server exited with ${end.code ?? end.signal} after SIGTERM`;
  };
  try {
    const [, port] = await waitForStderr(child, /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/, LISTEN_TIMEOUT_MS, 'URL');
    return { url: `http://localhost:${port}/mcp`, stderr: () => child.stderrText, alive, stop };
  } catch (err) {
    if (alive()) child.kill('SIGKILL');
    throw err;
  }
}
