/** Browser-side session: the signed session value and its expiry, kept in localStorage and renewed ahead of time. */

import type { SessionResponse } from "../api/types";

const STORAGE_KEY = "ledgerly.session";

export interface StoredSession {
  token: string;
  expiresAt: number; // epoch milliseconds
}

export function fromResponse(response: SessionResponse): StoredSession {
  return { token: response.session, expiresAt: Date.parse(response.expires_at) };
}

export function loadSession(now: number = Date.now()): StoredSession | null {
  const raw = window.localStorage.getItem(STORAGE_KEY);
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as StoredSession;
    if (typeof parsed.token !== "string" || parsed.expiresAt <= now) {
      window.localStorage.removeItem(STORAGE_KEY);
      return null;
    }
    return parsed;
  } catch {
    window.localStorage.removeItem(STORAGE_KEY);
    return null;
  }
}

export function saveSession(session: StoredSession): void {
  window.localStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

export function clearSession(): void {
  window.localStorage.removeItem(STORAGE_KEY);
}

// Renew this long before the server-side expiry, so a slow request still lands in time.
export const REFRESH_LEAD_MS = 60_000;
const MIN_DELAY_MS = 5_000;

export function msUntilRefresh(session: StoredSession, now: number = Date.now()): number {
  return Math.max(MIN_DELAY_MS, session.expiresAt - now - REFRESH_LEAD_MS);
}

let refreshTimer: ReturnType<typeof setTimeout> | undefined;

export function scheduleRefresh(
  session: StoredSession,
  refresh: () => Promise<StoredSession>,
  onExpired: () => void,
): () => void {
  refreshTimer = setTimeout(async () => {
    try {
      const next = await refresh();
      saveSession(next);
      scheduleRefresh(next, refresh, onExpired);
    } catch {
      clearSession();
      onExpired();
    }
  }, msUntilRefresh(session));
  return () => clearTimeout(refreshTimer);
}
