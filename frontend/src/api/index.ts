// The web node's HTTP API: the transport (./http), the documents (./types,
// from the spec's generated ./openapi.gen.ts) and the calls (./calls).
// docs/frontend.md lists the routes assumed.

export * from "./http";
export * from "./types";
export * from "./calls";
