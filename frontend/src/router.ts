// A tiny history-API router: patterns like "/problems/:slug", links are
// plain <a href> (a document-level click handler turns same-origin clicks
// into pushState), so everything stays keyboard- and middle-click-friendly.

export interface Match {
  name: string;
  params: Record<string, string>;
  query: URLSearchParams;
}

export interface Route {
  name: string;
  pattern: string;
}

export function matchPath(routes: readonly Route[], pathname: string, search = ""): Match | null {
  const parts = pathname.replace(/\/+$/, "").split("/").filter(Boolean);
  for (const r of routes) {
    const pp = r.pattern.split("/").filter(Boolean);
    if (pp.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pp.length; i++) {
      const p = pp[i]!;
      let part: string;
      try {
        part = decodeURIComponent(parts[i]!);
      } catch {
        ok = false;
        break;
      }
      if (p.startsWith(":")) params[p.slice(1)] = part;
      else if (p !== part) {
        ok = false;
        break;
      }
    }
    if (ok) return { name: r.name, params, query: new URLSearchParams(search) };
  }
  return null;
}

type Listener = () => void;
const listeners = new Set<Listener>();

export function onNavigate(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function notify(): void {
  for (const fn of listeners) fn();
}

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  notify();
  if (!replace) window.scrollTo(0, 0);
}

/** installLinkHandler makes same-origin <a> clicks client-side navigations. */
export function installLinkHandler(): void {
  window.addEventListener("popstate", notify);
  document.addEventListener("click", (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element | null)?.closest?.("a");
    if (!a || a.target || a.hasAttribute("download") || a.getAttribute("rel")?.includes("external")) return;
    const href = a.getAttribute("href");
    if (!href || href.startsWith("#")) return;
    const url = new URL(href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith("/api/") || url.pathname === "/ws") return;
    e.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
}
