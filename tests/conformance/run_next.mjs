// The conformance suite's next line (@modelcontextprotocol/conformance 0.2.0-alpha.12, installed
// in tests/e2e as conformance-next) against the everything example over Streamable HTTP, with
// the scenarios one revision of the specification requires.
//
// run_next.mjs --server EVERYTHING_SERVER --out DIR --requirements 2026-07-28|2025-11-25 [--only REASON]
//
// --only REASON counts only the scenarios the set runs without scoring for that reason (`extension`:
// the tasks extension's), the suite still running them all.
//
// Starts `everything-server --http 127.0.0.1:0`, runs
// `conformance server --url http://localhost:PORT/mcp --requirements REV -o DIR/results-REV`
// and reads the result files itself: the suite's exit status counts only the scenarios it scores,
// while this test counts them all, the ones the suite runs without scoring too (the tasks
// extension, the pending scenarios, those added after the revision). Every scenario of the set
// must have run and written its checks; a check passes when it is SUCCESS or INFO. A FAILURE, a
// WARNING or a SKIPPED check fails the test (a skipped check is a requirement nobody verified),
// except the one check the suite skips whatever the server does (SKIPPED_BY_THE_SUITE). Each
// check that does not pass is listed as `STATUS scenario / check-id: message`, with its details.
// Finally the server, stopped with SIGTERM, must exit with status 0.
//
// Runs on the Node 22 of tests/e2e/node_modules (the suite does not load on older ones).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { run, scenarioOf, startServer } from './harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PACKAGE = path.resolve(HERE, '../e2e/node_modules/conformance-next');
const SUITE = path.join(PACKAGE, 'dist/index.js');
const SUITE_VERSION = '0.2.0-alpha.12';

// The server scenarios of each requirement set (requirements/REV.yaml in the package, frozen by
// the suite): those it scores, then those it runs without scoring, with the reason it gives.
const REQUIRED = {
  '2026-07-28': {
    scored: [
      'server-stateless', 'completion-complete', 'tools-list', 'tools-call-simple-text', 'tools-call-image',
      'tools-call-audio', 'tools-call-embedded-resource', 'tools-call-mixed-content', 'tools-call-error',
      'tools-call-with-progress', 'server-sse-multiple-streams', 'resources-list', 'resources-read-text',
      'resources-read-binary', 'resources-templates-read', 'sep-2164-resource-not-found', 'prompts-list',
      'prompts-get-simple', 'prompts-get-with-args', 'prompts-get-embedded-resource', 'prompts-get-with-image',
      'dns-rebinding-protection', 'caching', 'input-required-result-basic-elicitation',
      'input-required-result-basic-sampling', 'input-required-result-basic-list-roots',
      'input-required-result-request-state', 'input-required-result-multiple-input-requests',
      'input-required-result-multi-round', 'input-required-result-missing-input-response',
      'input-required-result-non-tool-request', 'input-required-result-result-type',
      'input-required-result-unsupported-methods', 'input-required-result-tampered-state',
      'input-required-result-capability-check', 'input-required-result-ignore-extra-params',
      'input-required-result-validate-input',
    ],
    notScored: {
      'tasks-lifecycle': 'extension', 'tasks-capability-negotiation': 'extension', 'tasks-wire-fields': 'extension',
      'tasks-request-state-removal': 'extension', 'tasks-mrtr-input': 'extension', 'tasks-request-headers': 'extension',
      'tasks-dispatch-and-envelope': 'extension', 'tasks-status-notifications': 'extension',
      'tasks-required-task-error': 'extension', 'tasks-mrtr-composition': 'extension',
      'json-schema-2020-12': 'pending', 'http-header-validation': 'pending',
      'http-custom-header-server-validation': 'pending',
    },
  },
  '2025-11-25': {
    scored: [
      'server-initialize', 'logging-set-level', 'ping', 'completion-complete', 'tools-list', 'tools-call-simple-text',
      'tools-call-image', 'tools-call-audio', 'tools-call-embedded-resource', 'tools-call-mixed-content',
      'tools-call-with-logging', 'tools-call-error', 'tools-call-with-progress', 'tools-call-sampling',
      'tools-call-elicitation', 'elicitation-sep1034-defaults', 'server-sse-multiple-streams',
      'elicitation-sep1330-enums', 'resources-list', 'resources-read-text', 'resources-read-binary',
      'resources-templates-read', 'resources-subscribe', 'resources-unsubscribe', 'prompts-list',
      'prompts-get-simple', 'prompts-get-with-args', 'prompts-get-embedded-resource', 'prompts-get-with-image',
      'dns-rebinding-protection',
    ],
    notScored: {
      'server-session-lifecycle': 'added-after-release', 'json-schema-2020-12': 'pending', 'server-sse-polling': 'pending',
    },
  },
};

// scenario / check id of the checks this version of the suite skips whatever the server does:
// its tasks-status-notifications scenario awaits a rewrite for subscriptions/listen.
const SKIPPED_BY_THE_SUITE = new Set(['tasks-status-notifications / tasks-status-notifications']);

const PASSING = new Set(['SUCCESS', 'INFO']);
const STATUSES = new Set([...PASSING, 'FAILURE', 'WARNING', 'SKIPPED']);
// A hang guard only: the suite takes seconds when the server answers (each scenario has its
// own 30 s timeout in the suite).
const SUITE_TIMEOUT_MS = 480_000;
const DETAILS_CLIP = 800;

const clip = (text, n) => (text.length > n ? `${text.slice(0, n)}...` : text);

/** The message of a scenario that threw: the suite prints it and writes no checks.json. */
function thrownIn(output, scenario) {
  const at = output.indexOf(`Failed to run scenario ${scenario}: `);
  if (at < 0) return null;
  return output.slice(at).split('\n').slice(0, 3).join(' | ');
}

async function main() {
  const { values } = parseArgs({
    options: {
      server: { type: 'string' }, out: { type: 'string' }, requirements: { type: 'string' }, only: { type: 'string' },
    },
  });
  assert.ok(values.server && values.out && values.requirements,
    'usage: run_next.mjs --server EVERYTHING_SERVER --out DIR --requirements REVISION');
  const set = REQUIRED[values.requirements];
  assert.ok(set, `no requirement set ${values.requirements} here: ${Object.keys(REQUIRED).join(', ')}`);
  const version = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')).version;
  assert.equal(version, SUITE_VERSION, 'the conformance suite installed in tests/e2e is not the pinned one: run scripts/setup.sh');
  const all = [...set.scored, ...Object.keys(set.notScored)];
  const expected = values.only ? all.filter((s) => set.notScored[s] === values.only) : all;
  assert.ok(expected.length > 0, `no scenario of ${values.requirements} is run unscored for ${values.only}`);

  const results = path.join(values.out, `results-${values.requirements}`);
  rmSync(results, { recursive: true, force: true });
  mkdirSync(results, { recursive: true });

  const server = await startServer(values.server);
  const failures = []; // what fails the test besides the checks
  const failing = []; // the checks that do not pass, one entry each
  let finished = false; // the checks ran to their end
  try {
    const { url } = server;
    console.log(`conformance ${version} --requirements ${values.requirements} against ${url}`);
    const suite = await run(process.execPath,
      [SUITE, 'server', '--url', url, '--requirements', values.requirements, '-o', results], SUITE_TIMEOUT_MS);
    console.log(suite.output.trimEnd());
    if (suite.signal) failures.push(`the suite was killed (${suite.signal}) after ${SUITE_TIMEOUT_MS} ms`);

    const dirs = new Map(readdirSync(results).map((dir) => [scenarioOf(dir), dir]));
    const counts = { SUCCESS: 0, INFO: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0 };
    const summary = [];
    for (const scenario of expected) {
      const tag = set.notScored[scenario] ? ` (not scored: ${set.notScored[scenario]})` : '';
      const dir = dirs.get(scenario);
      const file = dir && path.join(results, dir, 'checks.json');
      if (!file || !existsSync(file)) {
        // A scenario that threw is one failure, with the message the suite printed.
        counts.FAILURE++;
        const thrown = thrownIn(suite.output, scenario);
        failing.push(`FAILURE ${scenario} / (the scenario): ${thrown ?? 'no checks.json was written'}`);
        summary.push(`  x ${scenario}${tag}: did not finish`);
        continue;
      }
      const checks = JSON.parse(readFileSync(file, 'utf8'));
      assert.ok(Array.isArray(checks) && checks.length > 0, `${dir}/checks.json holds no checks`);
      let good = 0;
      let bad = 0;
      for (const check of checks) {
        assert.ok(STATUSES.has(check.status), `${dir}: a check of unknown status ${check.status}`);
        counts[check.status]++;
        const id = `${scenario} / ${check.id}`;
        if (PASSING.has(check.status) || (check.status === 'SKIPPED' && SKIPPED_BY_THE_SUITE.has(id))) {
          good++;
          continue;
        }
        bad++;
        const message = (check.errorMessage ?? check.description ?? '').replace(/\s*\n\s*/g, ' ');
        const details = check.details ? `\n    details: ${clip(JSON.stringify(check.details), DETAILS_CLIP)}` : '';
        failing.push(`${check.status} ${id}: ${message}${details}`);
      }
      summary.push(`  ${bad ? 'x' : 'ok'} ${scenario}${tag}: ${good} passed, ${bad} not`);
    }
    const unexpected = [...dirs.keys()].filter((s) => !all.includes(s));
    if (unexpected.length) failures.push(`scenarios the set does not name ran: ${unexpected.join(', ')}`);
    if (!server.alive()) failures.push('the server died during the suite');

    console.log(`\nscenarios of --requirements ${values.requirements}, scored and not:\n${summary.join('\n')}`);
    console.log(`checks: ${counts.SUCCESS} SUCCESS, ${counts.INFO} INFO, ${counts.FAILURE} FAILURE, ` +
      `${counts.WARNING} WARNING, ${counts.SKIPPED} SKIPPED in ${expected.length} scenarios`);
    finished = true;
  } finally {
    const stopped = await server.stop();
    if (stopped) failures.push(stopped);
    if (failing.length)
      console.log(`\nchecks that do not pass (${failing.length}):\n${failing.join('\n')}`);
    if (failing.length || failures.length) {
      if (failures.length) console.log(`\nFAILED:\n${failures.join('\n')}`);
      console.log(`--- server stderr ---\n${server.stderr()}`);
      process.exitCode = 1;
    } else if (finished) {
      console.log(`conformance --requirements ${values.requirements}: all passed`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
