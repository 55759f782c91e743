// The API client's types are generated from docs/openapi.json (which the Go
// router test holds to the routes): src/api/openapi.gen.ts must be what
// the generator makes of the spec now, and the generator must refuse what
// it cannot type rather than type it loosely.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generate, generateFile, OUT } from "../scripts/gen-api-types.mjs";

const spec = (schemas: Record<string, unknown>, paths: Record<string, unknown> = {}) => ({ openapi: "3.1.0", paths, components: { schemas } });

describe("src/api/openapi.gen.ts", () => {
  it("is up to date with docs/openapi.json (else: cd frontend && npm run gen:api)", () => {
    expect(readFileSync(OUT, "utf8") === generateFile(), "src/api/openapi.gen.ts is stale: run `npm run gen:api` in frontend/ and commit it").toBe(true);
  });

  it("types schemas: required and optional fields, null, enums, refs, arrays, maps, allOf", () => {
    const out = generate(
      spec({
        A: {
          type: "object",
          description: "An A.",
          required: ["id", "kind"],
          additionalProperties: false,
          properties: {
            id: { type: "integer" },
            kind: { type: "string", enum: ["x", "y"] },
            at: { type: ["string", "null"], format: "date-time", description: "When." },
            tags: { type: "array", items: { type: ["string", "null"] } },
            by: { type: "object", additionalProperties: { $ref: "#/components/schemas/B" } },
            "odd-name": { const: "k" },
          },
        },
        B: { allOf: [{ $ref: "#/components/schemas/A" }, { type: "object", required: ["n"], properties: { n: { type: "number" } } }] },
      }),
    );
    expect(out).toContain("/** An A. */\nexport interface A {\n  id: number;\n  kind: \"x\" | \"y\";\n  /** When. */\n  at?: string | null;\n  tags?: (string | null)[];\n  by?: Record<string, B>;\n  \"odd-name\"?: \"k\";\n}\n");
    expect(out).toContain("export type B = A & {\n  n: number;\n};\n");
  });

  it("types operations: path and query parameters, JSON and multipart bodies, 2xx answers", () => {
    const out = generate(
      spec(
        { R: { type: "object", properties: { ok: { type: "boolean" } } } },
        {
          "/api/r/{slug}": {
            parameters: [{ name: "slug", in: "path", required: true, schema: { type: "string" } }],
            put: {
              operationId: "putR",
              parameters: [{ name: "dry", in: "query", schema: { type: "boolean" } }, { name: "X-Key", in: "header", schema: { type: "string" } }],
              requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/R" } }, "multipart/form-data": { schema: { type: "object" } } } },
              responses: { "200": { description: "", content: { "application/json": { schema: { $ref: "#/components/schemas/R" } } } }, "204": { description: "" }, "404": { description: "" } },
            },
          },
        },
      ),
    );
    expect(out).toContain(
      '  putR: {\n    method: "PUT";\n    path: "/api/r/{slug}";\n    params: { path: { slug: string }; query: { dry?: boolean } };\n    body: R | FormData;\n    response: R | void;\n  };\n',
    );
  });

  it.each([
    ["an unknown keyword", { X: { type: "object", patternProperties: {} } }, /unsupported schema keyword "patternProperties"/],
    ["a schema without a type", { X: { description: "?" } }, /without a type/],
    ["a required field that is not a property", { X: { type: "object", required: ["a"], properties: { b: { type: "string" } } } }, /required "a"/],
    ["a $ref outside the schemas", { X: { $ref: "other.json#/X" } }, /unsupported \$ref/],
  ])("refuses %s", (_what, schemas, err) => {
    expect(() => generate(spec(schemas))).toThrow(err);
  });
});
