// Reads the Go side's golden files (internal/protocol/testdata), the single
// source of truth for the wire format.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PROTOCOL_TESTDATA = resolve(dirname(fileURLToPath(import.meta.url)), "../../internal/protocol/testdata");

export function liveGoldenFiles(): { type: string; text: string }[] {
  const dir = join(PROTOCOL_TESTDATA, "live");
  const files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
  if (files.length === 0) throw new Error(`no golden files in ${dir}`);
  return files.map((f) => ({ type: f.replace(/\.json$/, ""), text: readFileSync(join(dir, f), "utf8") }));
}

export function golden(type: string): string {
  return readFileSync(join(PROTOCOL_TESTDATA, "live", `${type}.json`), "utf8");
}

export function closeCodesGolden(): { code: number; name: string; retry: boolean }[] {
  return JSON.parse(readFileSync(join(PROTOCOL_TESTDATA, "close_codes.json"), "utf8"));
}
