// @vitest-environment jsdom
// The editor's keys: Ctrl+Enter submits (and inserts nothing), Tab indents.
import { afterAll, describe, expect, it, vi } from "vitest";
import { createEditor } from "../src/editor";

describe("editor keys", () => {
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 250));
  });

  const key = (el: Element, init: KeyboardEventInit) => el.dispatchEvent(new KeyboardEvent("keydown", { bubbles: true, cancelable: true, ...init }));

  it("Ctrl+Enter submits without inserting a line", () => {
    const host = document.createElement("div");
    document.body.appendChild(host);
    const onSubmit = vi.fn();
    const ed = createEditor(host, { doc: "int main() {}", language: "cpp17", label: "Source code", describedBy: "keys", onSubmit });
    const content = host.querySelector(".cm-content")!;
    expect(content.getAttribute("aria-label")).toBe("Source code");
    expect(content.getAttribute("aria-describedby")).toBe("keys");
    key(content, { key: "Enter", code: "Enter", keyCode: 13, ctrlKey: true });
    expect(onSubmit).toHaveBeenCalledTimes(1);
    expect(ed.getValue()).toBe("int main() {}");
    ed.destroy();
    host.remove();
  });

  it("Tab indents instead of leaving the editor", () => {
    const host = document.createElement("div");
    document.body.appendChild(host);
    const ed = createEditor(host, { doc: "x", language: "py3", label: "Source code" });
    const content = host.querySelector(".cm-content")!;
    const notCancelled = key(content, { key: "Tab", code: "Tab", keyCode: 9 });
    expect(notCancelled).toBe(false); // handled: the browser does not move focus
    expect(ed.getValue()).toBe("    x");
    ed.destroy();
    host.remove();
  });
});
