// Reads the Go side's golden files (internal/protocol/testdata), the single
// source of truth for the wire format.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PROTOCOL_TESTDATA = resolve(dirname(fileURLToPath(import.meta.url)), "../../internal/protocol/testdata");

// A file is named by its message type, or, for a second canonical message
// of a type, type_what (event_custom_run.json is an event).
export function liveGoldenFiles(): { name: string; type: string; text: string }[] {
  const dir = join(PROTOCOL_TESTDATA, "live");
  const files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
  if (files.length === 0) throw new Error(`no golden files in ${dir}`);
  return files.map((f) => {
    const text = readFileSync(join(dir, f), "utf8");
    return { name: f.replace(/\.json$/, ""), type: String(JSON.parse(text).type), text };
  });
}

export function golden(type: string): string {
  return readFileSync(join(PROTOCOL_TESTDATA, "live", `${type}.json`), "utf8");
}

export function closeCodesGolden(): { code: number; name: string; retry: boolean }[] {
  return JSON.parse(readFileSync(join(PROTOCOL_TESTDATA, "close_codes.json"), "utf8"));
}
