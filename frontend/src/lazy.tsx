// lazyPage: a routed page whose code is a chunk of its own, fetched with a
// dynamic import() the first time the page is shown (the admin pages and
// the other staff-only pages), so a student's first load does not carry it.

import type { ComponentType, VNode } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ErrorBox, Loading } from "./ui";

export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): (props: P) => VNode {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  const get = () =>
    (pending ??= load().then(
      (c) => (loaded = c),
      (e: unknown) => {
        pending = null; // a later visit tries again
        throw e;
      },
    ));
  return function LazyPage(props: P) {
    const [C, setC] = useState<ComponentType<P> | null>(() => loaded);
    const [error, setError] = useState<unknown>(null);
    useEffect(() => {
      if (C) return;
      let live = true;
      get().then(
        (c) => live && setC(() => c),
        (e) => live && setError(e),
      );
      return () => {
        live = false;
      };
    }, []);
    if (C) return <C {...props} />;
    // A chunk that cannot be fetched is usually one a new deploy replaced:
    // the page's reload gets the current index.html.
    if (error) return <div class="page"><ErrorBox error={error} onRetry={() => location.reload()} /></div>;
    return <Loading />;
  };
}
