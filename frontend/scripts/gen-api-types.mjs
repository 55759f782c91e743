// gen-api-types: the TypeScript types of the web API, generated from
// docs/openapi.json (which webapp/internal/server's TestOpenAPIMatchesRouter
// holds to the router), so the client's types cannot drift from it.
//
//   node scripts/gen-api-types.mjs          write src/api/openapi.gen.ts
//   node scripts/gen-api-types.mjs --check  fail if that file is stale
//
// test/openapi-types.test.ts runs the same check in `npm test`.
//
// Output: one `export interface` (or `type`) per components.schemas entry,
// with the descriptions as doc comments, and `Operations`: per operationId
// its method, path, path/query parameters, JSON request body and 2xx
// answer. The subset of JSON Schema the spec uses is covered: $ref, type
// (with "null" in a type list), enum, const, properties/required,
// additionalProperties, items, allOf, oneOf/anyOf; anything else fails the
// generator rather than being typed loosely by accident.

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const SPEC = join(here, "..", "..", "docs", "openapi.json");
export const OUT = join(here, "..", "src", "api", "openapi.gen.ts");

/** Keywords that only document or validate: they do not change the type. */
const IGNORED = new Set([
  "description", "format", "default", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern",
  "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "example", "examples", "title", "readOnly", "writeOnly", "deprecated",
]);
const KNOWN = new Set([...IGNORED, "$ref", "type", "enum", "const", "properties", "required", "additionalProperties", "items", "allOf", "oneOf", "anyOf"]);

const ident = (k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));
const refName = (ref) => {
  const m = /^#\/components\/schemas\/([A-Za-z_][\w]*)$/.exec(ref);
  if (!m) throw new Error(`unsupported $ref ${ref}`);
  return m[1];
};
const comment = (text, pad) => {
  if (!text) return "";
  const lines = String(text).replaceAll("*/", "*\\/").split("\n");
  return lines.length === 1 ? `${pad}/** ${lines[0]} */\n` : `${pad}/**\n${lines.map((l) => `${pad} * ${l}`.trimEnd()).join("\n")}\n${pad} */\n`;
};
const paren = (t) => (/[|&]/.test(t) && !/^\{[\s\S]*\}$/.test(t) ? `(${t})` : t);

/** typeOf is the TypeScript type of one schema, indented at depth. */
function typeOf(s, depth, where) {
  if (s === true || s === undefined) return "unknown";
  if (s === false) return "never";
  for (const k of Object.keys(s)) if (!KNOWN.has(k)) throw new Error(`${where}: unsupported schema keyword "${k}"`);
  if (s.$ref) return refName(s.$ref);
  if (s.allOf) return s.allOf.map((x, i) => paren(typeOf(x, depth, `${where}.allOf[${i}]`))).join(" & ");
  const alts = s.oneOf ?? s.anyOf;
  if (alts) return alts.map((x, i) => typeOf(x, depth, `${where}.oneOf[${i}]`)).join(" | ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.length === 0 && (s.properties || s.additionalProperties !== undefined)) types.push("object");
  if (types.length === 0) throw new Error(`${where}: a schema without a type`);
  const out = types.map((t) => {
    switch (t) {
      case "null":
        return "null";
      case "boolean":
        return "boolean";
      case "integer":
      case "number":
        return s.enum ? s.enum.filter((v) => v !== null).map((v) => JSON.stringify(v)).join(" | ") : "number";
      case "string":
        if (s.format === "binary") return "Blob";
        return s.enum ? s.enum.filter((v) => v !== null).map((v) => JSON.stringify(v)).join(" | ") : "string";
      case "array":
        return `${paren(typeOf(s.items, depth, `${where}.items`))}[]`;
      case "object":
        return objectType(s, depth, where);
      default:
        throw new Error(`${where}: unsupported type ${t}`);
    }
  });
  return [...new Set(out)].join(" | ");
}

function objectType(s, depth, where) {
  const props = s.properties ?? {};
  const names = Object.keys(props);
  const extra = s.additionalProperties;
  if (names.length === 0) {
    if (extra === false) return "Record<string, never>";
    // A bare object: what the spec does not describe is not typed (object,
    // so a client type of its own can stand for it).
    if (extra === undefined || extra === true) return "object";
    return `Record<string, ${typeOf(extra, depth, `${where}.additionalProperties`)}>`;
  }
  const required = new Set(s.required ?? []);
  for (const r of required) if (!(r in props)) throw new Error(`${where}: required "${r}" is not a property`);
  const pad = "  ".repeat(depth + 1);
  let body = "";
  for (const k of names) {
    const p = props[k];
    body += comment(p && p.description, pad);
    body += `${pad}${ident(k)}${required.has(k) ? "" : "?"}: ${typeOf(p, depth + 1, `${where}.${k}`)};\n`;
  }
  // Named properties plus others: the others can only be typed loosely.
  if (extra && extra !== false) body += `${pad}[key: string]: unknown;\n`;
  return `{\n${body}${"  ".repeat(depth)}}`;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

function deref(spec, x, kind) {
  if (x && x.$ref) {
    const m = new RegExp(`^#/components/${kind}/(.+)$`).exec(x.$ref);
    if (!m || !spec.components?.[kind]?.[m[1]]) throw new Error(`unresolved ${x.$ref}`);
    return spec.components[kind][m[1]];
  }
  return x;
}

function paramsType(spec, params, where) {
  const by = { path: [], query: [] };
  for (const raw of params) {
    const p = deref(spec, raw, "parameters");
    if (!(p.in in by)) continue; // headers and cookies: the client sets them itself
    by[p.in].push(`${ident(p.name)}${p.required ? "" : "?"}: ${typeOf(p.schema, 0, `${where}.${p.name}`)}`);
  }
  const part = (l) => (l.length ? `{ ${l.join("; ")} }` : "{}");
  return `{ path: ${part(by.path)}; query: ${part(by.query)} }`;
}

function bodyType(spec, rb, depth, where) {
  if (!rb) return "never";
  const b = deref(spec, rb, "requestBodies");
  const c = b.content ?? {};
  const t = [];
  if (c["application/json"]) t.push(typeOf(c["application/json"].schema, depth, `${where}.json`));
  if (c["multipart/form-data"]) t.push("FormData");
  if (t.length === 0) throw new Error(`${where}: request body of types ${Object.keys(c).join(", ")}`);
  return t.join(" | ");
}

function responseType(spec, responses, depth, where) {
  const t = [];
  for (const [code, raw] of Object.entries(responses ?? {})) {
    if (!/^2\d\d$/.test(code)) continue;
    const r = deref(spec, raw, "responses");
    const json = r.content?.["application/json"];
    if (json) t.push(typeOf(json.schema, depth, `${where}.${code}`));
    else if (!r.content) t.push("void");
    else t.push("Blob"); // a download (CSV, zip)
  }
  return t.length ? [...new Set(t)].join(" | ") : "void";
}

/** generate is the text of src/api/openapi.gen.ts for a parsed spec. */
export function generate(spec) {
  let out = `// Code generated by scripts/gen-api-types.mjs from docs/openapi.json (OpenAPI ${spec.openapi}). DO NOT EDIT.\n`;
  out += "// Change docs/openapi.json, then run `npm run gen:api`; `npm test` fails while this file is stale.\n";
  out += "/* eslint-disable */\n";
  for (const [name, s] of Object.entries(spec.components?.schemas ?? {})) {
    out += `\n${comment(s.description, "")}`;
    const t = typeOf(s, 0, name);
    out += t.startsWith("{\n") ? `export interface ${name} ${t}\n` : `export type ${name} = ${t};\n`;
  }
  const ops = [];
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      if (!op.operationId) throw new Error(`${m.toUpperCase()} ${path}: no operationId`);
      ops.push({ path, method: m, op, params: [...(item.parameters ?? []), ...(op.parameters ?? [])] });
    }
  }
  ops.sort((a, b) => a.op.operationId.localeCompare(b.op.operationId));
  out += "\n/** Every operation of the API, by operationId. */\nexport interface Operations {\n";
  for (const { path, method, op, params } of ops) {
    const id = op.operationId;
    out += comment(`${method.toUpperCase()} ${path}${op.summary ? `: ${op.summary}` : ""}`, "  ");
    out += `  ${ident(id)}: {\n`;
    out += `    method: ${JSON.stringify(method.toUpperCase())};\n`;
    out += `    path: ${JSON.stringify(path)};\n`;
    out += `    params: ${paramsType(spec, params, id)};\n`;
    out += `    body: ${bodyType(spec, op.requestBody, 2, `${id}.body`)};\n`;
    out += `    response: ${responseType(spec, op.responses, 2, `${id}.response`)};\n`;
    out += "  };\n";
  }
  out += "}\n\nexport type OperationId = keyof Operations;\n";
  out += "/** The JSON answer of an operation (2xx). */\nexport type ResponseOf<K extends OperationId> = Operations[K][\"response\"];\n";
  out += "/** The request body of an operation. */\nexport type BodyOf<K extends OperationId> = Operations[K][\"body\"];\n";
  return out;
}

/** generateFile reads the spec from disk. */
export function generateFile(spec = SPEC) {
  return generate(JSON.parse(readFileSync(spec, "utf8")));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = generateFile();
  if (process.argv.includes("--check")) {
    let old = "";
    try {
      old = readFileSync(OUT, "utf8");
    } catch {
      /* missing: stale */
    }
    if (old !== text) {
      console.error("src/api/openapi.gen.ts is stale: run `npm run gen:api` (cd frontend) and commit it");
      process.exit(1);
    }
  } else {
    writeFileSync(OUT, text);
    console.log(`wrote ${OUT}`);
  }
}
