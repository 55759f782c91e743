// Types of gen-api-types.mjs, for test/openapi-types.test.ts.
export const SPEC: string;
export const OUT: string;
export function generate(spec: unknown): string;
export function generateFile(spec?: string): string;
