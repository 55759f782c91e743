// @vitest-environment jsdom
// The CSP nonce the edge writes into the app shell reaches CodeMirror.
import { afterEach, describe, expect, it } from "vitest";
import { createEditor, cspNonce } from "../src/editor";

afterEach(() => {
  document.head.innerHTML = "";
  document.body.innerHTML = "";
});

const meta = (content: string) => {
  document.head.innerHTML = `<meta name="csp-nonce" content="${content}">`;
};

describe("cspNonce", () => {
  it("reads the nonce the edge wrote", () => {
    meta("1968cf741c9ace80605ba71407b35f6d");
    expect(cspNonce()).toBe("1968cf741c9ace80605ba71407b35f6d");
  });
  it.each([["VERDICT_CSP_NONCE"], [""], ["short"], ['x" onload="']])("ignores %j", (v) => {
    meta(v);
    expect(cspNonce()).toBe("");
  });
  it("no meta, no nonce", () => {
    expect(cspNonce()).toBe("");
  });
  it("the editor's <style> carries it", () => {
    meta("0abe0ab16430abe970b94a772dc66d4a");
    const host = document.createElement("div");
    document.body.append(host);
    const ed = createEditor(host, { doc: "int main() {}", language: "cpp17", label: "Source" });
    const styles = Array.from(document.querySelectorAll("style"));
    expect(styles.length).toBeGreaterThan(0);
    for (const s of styles) expect(s.nonce || s.getAttribute("nonce")).toBe("0abe0ab16430abe970b94a772dc66d4a");
    ed.destroy();
  });
});
