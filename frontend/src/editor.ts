// The CodeMirror 6 editor, loaded lazily (its own chunk) by the problem page.

import { cpp } from "@codemirror/lang-cpp";
import { go } from "@codemirror/lang-go";
import { java } from "@codemirror/lang-java";
import { python } from "@codemirror/lang-python";
import { indentUnit, type LanguageSupport } from "@codemirror/language";
import { Compartment, EditorState, Prec } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { indentWithTab } from "@codemirror/commands";
import { basicSetup } from "codemirror";

/** languageSupport picks the highlighting of a judge language id. */
export function languageSupport(id: string): LanguageSupport | null {
  const l = id.toLowerCase();
  if (/^(c|cpp|c\+\+|gnu|clang)/.test(l)) return cpp();
  if (l.startsWith("py")) return python();
  if (l.startsWith("java") || l.startsWith("kotlin")) return java();
  if (l.startsWith("go")) return go();
  return null;
}

/** The placeholder of index.html's csp-nonce meta, when no edge replaced it (vite dev). */
const NONCE_PLACEHOLDER = "VERDICT_CSP_NONCE";

/**
 * cspNonce is the nonce the edge wrote into the page for this load
 * (<meta name="csp-nonce">): the page's Content-Security-Policy admits
 * <style> elements only with it, and CodeMirror keeps its styles in one.
 */
export function cspNonce(doc: Document = document): string {
  const v = doc.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? "";
  return /^[A-Za-z0-9+/=_-]{16,}$/.test(v) && v !== NONCE_PLACEHOLDER ? v : "";
}

export interface Editor {
  getValue(): string;
  setValue(s: string): void;
  setLanguage(id: string): void;
  focus(): void;
  destroy(): void;
}

export function createEditor(
  parent: HTMLElement,
  opts: { doc: string; language: string; label: string; describedBy?: string; onChange?: (s: string) => void; onSubmit?: () => void },
): Editor {
  const lang = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: opts.doc,
      extensions: [
        basicSetup,
        // Tab indents; Escape then Tab leaves the editor (CodeMirror's
        // documented escape hatch), so the page stays keyboard-usable.
        keymap.of([indentWithTab]),
        // Ctrl/Cmd+Enter submits. Highest precedence: basicSetup's default
        // keymap binds Mod-Enter to insertBlankLine, which would win.
        Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => (opts.onSubmit?.(), true) }])),
        indentUnit.of("    "),
        ...(cspNonce() ? [EditorView.cspNonce.of(cspNonce())] : []),
        lang.of(languageSupport(opts.language) ?? []),
        EditorView.contentAttributes.of({
          "aria-label": opts.label,
          "aria-multiline": "true",
          ...(opts.describedBy ? { "aria-describedby": opts.describedBy } : {}),
        }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) opts.onChange?.(u.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    getValue: () => view.state.doc.toString(),
    setValue: (s) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: s } }),
    setLanguage: (id) => view.dispatch({ effects: lang.reconfigure(languageSupport(id) ?? []) }),
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}
