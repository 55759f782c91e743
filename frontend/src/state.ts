// App-wide state: the session, the live client, the queue notice. A small
// observable store plus a Preact hook; no state library needed at this size.

import { useEffect, useState } from "preact/hooks";
import { api, ApiError, setCsrfToken, type User } from "./api";
import { LiveClient, liveURL, type ConnState, type SocketLike } from "./live/client";
import type { QueueNotice } from "./live/protocol";

export class Store<T> {
  private fns = new Set<(v: T) => void>();
  constructor(private v: T) {}
  get(): T {
    return this.v;
  }
  set(v: T): void {
    this.v = v;
    for (const fn of this.fns) fn(v);
  }
  subscribe(fn: (v: T) => void): () => void {
    this.fns.add(fn);
    return () => this.fns.delete(fn);
  }
}

export function useStore<T>(s: Store<T>): T {
  const [v, setV] = useState(s.get());
  useEffect(() => {
    setV(s.get());
    return s.subscribe(setV);
  }, [s]);
  return v;
}

export interface Session {
  loaded: boolean;
  user: User | null;
}

export const session = new Store<Session>({ loaded: false, user: null });

export function setSession(user: User | null, csrf: string): void {
  setCsrfToken(csrf);
  session.set({ loaded: true, user });
}

export async function loadSession(): Promise<void> {
  try {
    const s = await api.me();
    setSession(s.user, s.csrf_token);
  } catch (e) {
    // 401: logged out. Anything else: act logged out but keep the app usable.
    if (!(e instanceof ApiError && e.status === 401)) console.warn("verdict: /api/me failed", e);
    setSession(null, "");
  }
}

export function isStaff(u: User | null): boolean {
  return !!u && (u.role === "admin" || u.role === "setter");
}

// ---- live -------------------------------------------------------------------

let liveClient: LiveClient | null = null;

export function live(): LiveClient {
  if (!liveClient) {
    liveClient = new LiveClient({
      url: liveURL(location),
      socket: (url, protocols) => new WebSocket(url, protocols) as unknown as SocketLike,
      log: (msg, attrs) => console.debug(msg, attrs ?? ""),
    });
    window.addEventListener("online", () => liveClient?.nudge());
    liveClient.onQueue((q) => queueNotice.set({ ...q, at: Date.now() }));
    liveClient.onState((s) => liveState.set(s));
  }
  return liveClient;
}

export const liveState = new Store<ConnState>({ kind: "idle" });
export const queueNotice = new Store<(QueueNotice & { at: number }) | null>(null);
