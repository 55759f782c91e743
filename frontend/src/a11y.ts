// Accessibility checks shared by the DOM tests: every form control must
// have an accessible name. (The browser test in deploy/internal/stack runs
// the same rule, written again in JavaScript, on the real pages.)

/** accessibleName is a simplified accessible-name computation: aria-label,
 *  aria-labelledby, <label>, title; for buttons also their text. */
export function accessibleName(el: Element): string {
  const aria = el.getAttribute("aria-label")?.trim();
  if (aria) return aria;
  const by = el.getAttribute("aria-labelledby");
  if (by) {
    const text = by
      .split(/\s+/)
      .map((id) => el.ownerDocument.getElementById(id)?.textContent?.trim() ?? "")
      .filter(Boolean)
      .join(" ");
    if (text) return text;
  }
  const labels = (el as HTMLInputElement).labels;
  if (labels && labels.length) {
    const text = Array.from(labels)
      .map((l) => l.textContent?.trim() ?? "")
      .filter(Boolean)
      .join(" ");
    if (text) return text;
  }
  if (el.tagName === "BUTTON") {
    const text = el.textContent?.trim();
    if (text) return text;
  }
  if (el.tagName === "INPUT" && ["submit", "button", "reset"].includes((el as HTMLInputElement).type)) {
    const v = (el as HTMLInputElement).value.trim();
    if (v) return v;
  }
  return el.getAttribute("title")?.trim() ?? "";
}

/** unlabelledControls lists the controls under root without a name, as
 *  short descriptions ("input#x", "button.btn"). */
export function unlabelledControls(root: ParentNode): string[] {
  const out: string[] = [];
  for (const el of Array.from(root.querySelectorAll("input, select, textarea, button"))) {
    if (el.tagName === "INPUT" && (el as HTMLInputElement).type === "hidden") continue;
    if (!accessibleName(el)) {
      const id = el.id ? `#${el.id}` : "";
      const cls = el.getAttribute("class") ? `.${el.getAttribute("class")!.split(/\s+/)[0]}` : "";
      out.push(`${el.tagName.toLowerCase()}${id}${cls}`);
    }
  }
  return out;
}
