// The JavaScript peer of the validation benchmark: JSON.parse, then an Ajv 2020 validator
// compiled once (the options of the MCP TypeScript SDK's AjvJsonSchemaValidator: allErrors,
// strict off), for each case of bench/validate/cases, against the schema mcpidlc publishes
// for the same type. Output: one line of JSON per case, as bench-validate writes them.
//
// usage: node ajv.mjs [--cpu] TOOLS_JSON CASES_DIR
//   TOOLS_JSON: the output of mcpidlc --print-tools bench/validate/bench.mcp.yaml
//   CASES_DIR:  bench/validate/cases
//   --cpu:      time rounds by the process's CPU time (user + system, every thread of
//               Node's, microseconds) instead of the clock, as bench-validate --cpu does:
//               on a busy machine the clock counts other programs' turns
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';

const ROUNDS = 7;
const MIN_NS = 2.5e8;
const argv = process.argv.slice(2);
const cpu = argv[0] === '--cpu';
const [toolsFile, casesDir] = cpu ? argv.slice(1) : argv;
// Nanoseconds: of CPU time with --cpu, else of the monotonic clock.
const now = cpu
  ? () => { const u = process.cpuUsage(); return (u.user + u.system) * 1000; }
  : () => Number(process.hrtime.bigint());
const tools = Object.fromEntries(JSON.parse(readFileSync(toolsFile, 'utf8')).map((t) => [t.name, t]));

// The schema of a tool's result as a value (unwrapped from {"result": ...}), or of its arguments.
function schemaOf(tool, args) {
  const t = tools[tool];
  if (args) return t.inputSchema;
  const out = t.outputSchema;
  if (out.title === `${tool}Output`) return { ...out.properties.result, $defs: out.$defs };
  return out;
}

const CASES = [
  ['weather', 'get_weather', false, true],
  ['list100', 'get_forecast', false, true],
  ['invalid', 'get_weather', false, false],
  ['search_books', 'search_books', true, true],
  ['order', 'get_order', false, true],
];

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
let sink = 0;
for (const [name, tool, args, valid] of CASES) {
  const text = readFileSync(path.join(casesDir, `${name}.json`), 'utf8').replace(/[\r\n]+$/, '');
  const validate = ajv.compile(schemaOf(tool, args));
  const once = () => {
    const v = JSON.parse(text);
    const ok = validate(v);
    sink += ok ? 1 : validate.errors.length;
    return ok;
  };
  if (once() !== valid) throw new Error(`${name}: Ajv says ${!valid ? 'valid' : 'invalid'}`);
  let iters = 1;
  for (;;) {
    const t0 = now();
    for (let i = 0; i < iters; i++) once();
    if (now() - t0 > MIN_NS / 10) break;
    iters *= 2;
  }
  iters *= 10;
  const r = [];
  for (let round = 0; round < ROUNDS; round++) {
    const t0 = now();
    for (let i = 0; i < iters; i++) once();
    r.push((now() - t0) / iters);
  }
  r.sort((a, b) => a - b);
  console.log(JSON.stringify({ case: name, impl: 'JSON.parse+Ajv', bytes: Buffer.byteLength(text),
    ns: +r[ROUNDS >> 1].toFixed(1), min_ns: +r[0].toFixed(1), max_ns: +r[ROUNDS - 1].toFixed(1) }));
}
if (sink < 0) console.log(sink);
