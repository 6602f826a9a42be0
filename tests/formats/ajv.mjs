// Ajv's verdicts on the string formats, with ajv-formats (full mode), for
// tests/formats/run.py.
//
//   node ajv.mjs NODE_MODULES INSTANCES.tsv
//
// INSTANCES.tsv has lines FORMAT<TAB>JSON (FORMAT an IDL type name); one line
// per instance is written: 1 (valid) or 0 (invalid) against the schema that
// the type publishes.
import { readFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [modules, instancesFile] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), "noop.js"));
const mod = require("ajv/dist/2020");
const Ajv2020 = mod.default || mod.Ajv2020 || mod;
const fmod = require("ajv-formats");
const addFormats = fmod.default || fmod;
const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv, { mode: "full" });
const PATTERN = "^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$";
const SCHEMAS = {
  datetime: { format: "date-time", type: "string" },
  date: { format: "date", type: "string" },
  time: { format: "time", type: "string" },
  timedelta: { format: "duration", type: "string" },
  uuid: { format: "uuid", type: "string" },
  url: { format: "uri", minLength: 1, type: "string" },
  decimal: { anyOf: [{ type: "number" }, { pattern: PATTERN, type: "string" }] },
};
const validators = {};
for (const [k, s] of Object.entries(SCHEMAS)) validators[k] = ajv.compile(s);
const out = [];
for (const line of readFileSync(instancesFile, "utf8").split("\n")) {
  if (line === "") continue;
  const tab = line.indexOf("\t");
  out.push(validators[line.slice(0, tab)](JSON.parse(line.slice(tab + 1))) ? "1" : "0");
}
writeSync(1, out.join("\n") + "\n");
