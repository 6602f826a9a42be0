// Ajv's verdicts for the differential test (tests/diff/run.py).
//
//   node ajv.mjs NODE_MODULES SCHEMAS.json INSTANCES.tsv [FORMATS.json]
//
// FORMATS.json, {"date-time": [text, ...], ...}: the formats to assert, each
// by membership in its list (those of the IDL's string-format types; the
// others stay annotations).
// NODE_MODULES is the folder holding ajv (tests/e2e/node_modules). SCHEMAS.json
// is an object {"INDEX": schema, ...}; INSTANCES.tsv has lines INDEX<TAB>JSON.
// Each schema is compiled once with Ajv's JSON Schema 2020-12 build (formats
// not asserted); one line per instance is written: 1 (valid), 0 (invalid), or
// "E message" (a schema Ajv cannot compile, an unknown index).
import { readFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [modules, schemasFile, instancesFile, formatsFile] = process.argv.slice(2);
if (!instancesFile) {
  process.stderr.write("usage: node ajv.mjs NODE_MODULES SCHEMAS.json INSTANCES.tsv\n");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(modules), "noop.js"));
const mod = require("ajv/dist/2020");
const Ajv2020 = mod.default || mod.Ajv2020 || mod;
const pools = formatsFile ? JSON.parse(readFileSync(formatsFile, "utf8")) : {};
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true, logger: false });
for (const [name, values] of Object.entries(pools)) {
  const set = new Set(values);
  ajv.addFormat(name, { type: "string", validate: (v) => set.has(v) });
}
for (const name of ["binary", "email", "uri-reference", "ipv4", "ipv6", "hostname", "regex"])
  if (!(name in pools)) ajv.addFormat(name, true);

const schemas = JSON.parse(readFileSync(schemasFile, "utf8"));
const validators = new Map();
for (const [index, schema] of Object.entries(schemas)) {
  try {
    validators.set(index, ajv.compile(schema));
  } catch (e) {
    validators.set(index, String(e && e.message ? e.message : e).replace(/\s+/g, " "));
  }
}

const out = [];
const text = readFileSync(instancesFile, "utf8");
for (const line of text.split("\n")) {
  if (line === "") continue;
  const tab = line.indexOf("\t");
  const v = validators.get(line.slice(0, tab));
  if (v === undefined) out.push("E unknown schema index");
  else if (typeof v === "string") out.push("E ajv cannot compile the schema: " + v);
  else out.push(v(JSON.parse(line.slice(tab + 1))) ? "1" : "0");
}
const data = out.join("\n") + (out.length ? "\n" : "");
let off = 0;
const buf = Buffer.from(data, "utf8");
while (off < buf.length) off += writeSync(1, buf, off);
