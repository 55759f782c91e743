// Helpers of the DOM tests: mount, wait for a condition, fire input events
// as a browser does.
import { render, type ComponentChild } from "preact";
import { act } from "preact/test-utils";

const mounted = new Set<HTMLElement>();

export async function mount(node: ComponentChild): Promise<{ host: HTMLElement; unmount: () => void }> {
  const host = document.createElement("div");
  document.body.appendChild(host);
  mounted.add(host);
  await act(() => render(node, host));
  const unmount = () => {
    if (!mounted.delete(host)) return;
    render(null, host);
    host.remove();
  };
  return { host, unmount };
}

/** cleanup unmounts what a failed test left behind (call in afterEach), so
 *  one failure does not leak duplicate ids into the next test. */
export function cleanup(): void {
  for (const host of [...mounted]) {
    mounted.delete(host);
    render(null, host);
    host.remove();
  }
}

/** flush lets pending promises and Preact's effects run. */
export async function flush(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await act(async () => await new Promise((r) => setTimeout(r, 0)));
}

/** waitFor flushes until fn returns a truthy value (or fails after tries). */
export async function waitFor<T>(fn: () => T, what: string, tries = 50): Promise<NonNullable<T>> {
  for (let i = 0; i < tries; i++) {
    const v = fn();
    if (v) return v as NonNullable<T>;
    await flush(1);
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function type(el: Element | null, value: string): Promise<void> {
  if (!el) throw new Error("type: no element");
  await act(() => {
    (el as HTMLInputElement).value = value;
    el.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

export async function choose(el: Element | null, value: string): Promise<void> {
  if (!el) throw new Error("choose: no element");
  await act(() => {
    (el as HTMLSelectElement).value = value;
    el.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

export async function click(el: Element | null): Promise<void> {
  if (!el) throw new Error("click: no element");
  await act(() => (el as HTMLElement).click());
}

export async function submit(form: Element | null): Promise<void> {
  if (!form) throw new Error("submit: no form");
  await act(() => {
    form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
  });
}

export const $ = (root: ParentNode, sel: string) => root.querySelector(sel);
export const $$ = (root: ParentNode, sel: string) => Array.from(root.querySelectorAll(sel));
export const text = (root: ParentNode | null) => (root as HTMLElement | null)?.textContent ?? "";
