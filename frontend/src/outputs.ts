// Output-only submissions (docs/problems.md): their source is the outputs
// document (protocol.Outputs, {"files":[{"case":1,"data":"<base64>"}]}).

import { t } from "./i18n";

/** outputsText shows an output-only submission's source (the outputs
 *  document, protocol.Outputs) as its outputs, case by case, each cut at
 *  4 KiB; anything else is shown as it is. */
export function outputsText(source: string): string {
  let doc: { files?: { case?: number; data?: string }[] };
  try {
    doc = JSON.parse(source) as typeof doc;
  } catch {
    return source;
  }
  if (!doc || !Array.isArray(doc.files)) return source;
  const parts = doc.files.map((f) => {
    let text = "";
    let size = 0;
    try {
      const bin = atob(f.data ?? "");
      size = bin.length;
      const bytes = Uint8Array.from(bin.slice(0, 4096), (c) => c.charCodeAt(0));
      text = new TextDecoder().decode(bytes) + (size > 4096 ? "\n…" : "");
    } catch {
      text = "?";
    }
    return `== ${t("outputs.case", { n: f.case ?? 0, bytes: size })} ==\n${text}`;
  });
  return parts.join("\n");
}
