// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in tests/e2e)
// against the everything example over Streamable HTTP.
//
// run.mjs --server EVERYTHING_SERVER --out DIR
//
// Starts `everything-server --http 127.0.0.1:0` (the server picks a free port and prints its
// URL), runs `conformance server --url http://localhost:PORT/mcp --suite all -o DIR/results`,
// then reads every DIR/results/*/checks.json itself rather than trusting the suite's exit
// status: all 32 scenarios must have run, and their checks must be 47 SUCCESS, no FAILURE and
// no WARNING (INFO is allowed). Every check that is not a SUCCESS is listed with its scenario.
// Finally the server, stopped with SIGTERM, must exit with status 0.
//
// Runs on the Node 22 of tests/e2e/node_modules (the suite does not load on older ones).
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { run, scenarioOf, startServer } from './harness.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SUITE = path.resolve(HERE, '../e2e/node_modules/@modelcontextprotocol/conformance/dist/index.js');

// What version 0.1.16 of the suite runs with --suite all (the names `conformance list` prints),
// and how many SUCCESS checks each scenario makes when the server passes it: 47 in all.
const EXPECTED = {
  'server-initialize': 1, 'logging-set-level': 1, ping: 1, 'completion-complete': 1, 'tools-list': 1,
  'tools-call-simple-text': 1, 'tools-call-image': 1, 'tools-call-audio': 1, 'tools-call-embedded-resource': 1,
  'tools-call-mixed-content': 1, 'tools-call-with-logging': 1, 'tools-call-error': 1,
  'tools-call-with-progress': 1, 'tools-call-sampling': 1, 'tools-call-elicitation': 1,
  'json-schema-2020-12': 4, 'elicitation-sep1034-defaults': 5,
  // priming event, retry field, and the result after the client resumed the closed stream
  'server-sse-polling': 3,
  'server-sse-multiple-streams': 2, 'elicitation-sep1330-enums': 5, 'resources-list': 1,
  'resources-read-text': 1, 'resources-read-binary': 1, 'resources-templates-read': 1,
  'resources-subscribe': 1, 'resources-unsubscribe': 1, 'prompts-list': 1, 'prompts-get-simple': 1,
  'prompts-get-with-args': 1, 'prompts-get-embedded-resource': 1, 'prompts-get-with-image': 1,
  'dns-rebinding-protection': 2,
};
const SCENARIOS = Object.keys(EXPECTED);
const EXPECTED_SUCCESSES = Object.values(EXPECTED).reduce((a, b) => a + b, 0);
const SUITE_VERSION = '0.1.16';
// A hang guard only: the suite takes seconds when the server answers.
const SUITE_TIMEOUT_MS = 240_000;

async function main() {
  const { values } = parseArgs({ options: { server: { type: 'string' }, out: { type: 'string' } } });
  assert.ok(values.server && values.out, 'usage: run.mjs --server EVERYTHING_SERVER --out DIR');
  const version = JSON.parse(readFileSync(path.resolve(SUITE, '../../package.json'), 'utf8')).version;
  assert.equal(version, SUITE_VERSION, 'the conformance suite installed in tests/e2e is not the pinned one: run scripts/setup.sh');

  const results = path.join(values.out, 'results');
  rmSync(results, { recursive: true, force: true });
  mkdirSync(results, { recursive: true });

  const server = await startServer(values.server);
  const failures = [];
  let finished = false; // the checks ran to their end
  try {
    const { url } = server;
    console.log(`conformance ${version} --suite all against ${url}`);
    const suite = await run(process.execPath, [SUITE, 'server', '--url', url, '--suite', 'all', '-o', results], SUITE_TIMEOUT_MS);
    console.log(suite.output.trimEnd());

    const dirs = readdirSync(results).sort();
    const ran = dirs.map(scenarioOf);
    const counts = { SUCCESS: 0, FAILURE: 0, WARNING: 0, INFO: 0 };
    for (const dir of dirs) {
      const scenario = scenarioOf(dir);
      const successes = [];
      const checks = JSON.parse(readFileSync(path.join(results, dir, 'checks.json'), 'utf8'));
      assert.ok(Array.isArray(checks) && checks.length > 0, `${dir}/checks.json holds no checks`);
      for (const check of checks) {
        assert.ok(check.status in counts, `${dir}: a check of unknown status ${check.status}`);
        counts[check.status]++;
        if (check.status === 'SUCCESS') successes.push(check.name);
        const line = `${check.status} ${scenario} / ${check.name}: ${check.errorMessage ?? check.description ?? ''}`;
        if (check.status === 'INFO') console.log(line);
        else if (check.status !== 'SUCCESS')
          failures.push(check.details ? `${line}\n    ${JSON.stringify(check.details).slice(0, 600)}` : line);
      }
      if (scenario in EXPECTED && successes.length !== EXPECTED[scenario])
        failures.push(`${scenario}: ${successes.length} SUCCESS (${successes.join(', ')}), ${EXPECTED[scenario]} expected`);
    }
    console.log(`checks: ${counts.SUCCESS} SUCCESS, ${counts.FAILURE} FAILURE, ${counts.WARNING} WARNING, ${counts.INFO} INFO in ${dirs.length} scenarios`);
    const missing = SCENARIOS.filter((s) => !ran.includes(s));
    const extra = ran.filter((s) => !SCENARIOS.includes(s));
    if (missing.length || extra.length || ran.length !== SCENARIOS.length)
      failures.push(`scenarios: ${ran.length} ran, ${SCENARIOS.length} expected; missing [${missing}], unexpected [${extra}]`);
    if (counts.SUCCESS !== EXPECTED_SUCCESSES) failures.push(`${counts.SUCCESS} checks succeeded, ${EXPECTED_SUCCESSES} expected`);
    if (suite.code !== 0) failures.push(`the suite exited with ${suite.code ?? suite.signal}`);
    if (!server.alive()) failures.push('the server died during the suite');
    finished = true;
  } finally {
    const stopped = await server.stop();
    if (stopped) failures.push(stopped);
    if (failures.length) {
      console.log(`\nFAILED:\n${failures.join('\n')}\n--- server stderr ---\n${server.stderr()}`);
      process.exitCode = 1;
    } else if (finished) {
      console.log('conformance: all passed');
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
