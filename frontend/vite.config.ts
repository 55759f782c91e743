// Vite configuration of the Verdict browser app.
//
//   npm run dev    dev server on 127.0.0.1:5173; /api and /ws are proxied to
//                  the local stack's nginx (VERDICT_DEV_BACKEND, default
//                  http://127.0.0.1:8080), so cookies stay same-origin.
//   npm run build  production bundle in dist/ (hashed names under assets/,
//                  which nginx caches for a year; index.html is not cached).
//   npm test       vitest, pure logic only (jsdom for the DOM-sanitising tests).
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";

/** Writes .gz siblings of compressible assets, for nginx's gzip_static. */
function gzipStatic(): Plugin {
  let outDir = "dist";
  return {
    name: "verdict-gzip-static",
    apply: "build",
    configResolved(c) {
      outDir = c.build.outDir;
    },
    closeBundle() {
      const walk = (dir: string) => {
        for (const name of readdirSync(dir)) {
          const p = join(dir, name);
          if (statSync(p).isDirectory()) walk(p);
          else if (/\.(js|css|svg|json|html|ttf)$/.test(name) && statSync(p).size > 1024) {
            writeFileSync(`${p}.gz`, gzipSync(readFileSync(p), { level: 9 }));
          }
        }
      };
      walk(outDir);
    },
  };
}

const backend = process.env.VERDICT_DEV_BACKEND ?? "http://127.0.0.1:8080";

export default defineConfig({
  plugins: [gzipStatic()],
  oxc: {
    jsx: { runtime: "automatic", importSource: "preact" },
  },
  server: {
    host: "127.0.0.1",
    port: 5173,
    strictPort: true,
    proxy: {
      "/api": { target: backend, changeOrigin: false },
      "/ws": { target: backend, ws: true, changeOrigin: false },
    },
  },
  build: {
    outDir: "dist",
    assetsDir: "assets",
    emptyOutDir: true,
    sourcemap: true,
    // CodeMirror and KaTeX are large; keep them in their own chunks so the
    // app code can change without invalidating them in browsers' caches.
    chunkSizeWarningLimit: 800,
    rolldownOptions: {
      output: {
        advancedChunks: {
          groups: [
            { name: "codemirror", test: /node_modules[\\/](@codemirror|@lezer|codemirror|crelt|style-mod|w3c-keyname)/ },
            { name: "katex", test: /node_modules[\\/]katex/ },
          ],
        },
      },
    },
  },
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    environment: "node",
    setupFiles: ["./test/setup.ts"],
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
