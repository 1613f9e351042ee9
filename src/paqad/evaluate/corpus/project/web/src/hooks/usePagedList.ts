import { useCallback, useEffect, useRef, useState } from "react";
import type { Page } from "../api/types";

export interface PagedList<T> {
  items: T[];
  loading: boolean;
  error: Error | null;
  hasMore: boolean;
  loadMore: () => void;
  reload: () => void;
}

export function usePagedList<T>(fetchPage: (cursor?: string) => Promise<Page<T>>): PagedList<T> {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const generation = useRef(0);

  const load = useCallback(
    async (from: string | undefined, replace: boolean) => {
      const mine = ++generation.current;
      setLoading(true);
      setError(null);
      try {
        const page = await fetchPage(from);
        if (mine !== generation.current) return; // a reload started meanwhile; drop stale results
        setItems((previous) => (replace ? page.data : [...previous, ...page.data]));
        setCursor(page.next_cursor);
      } catch (err) {
        if (mine === generation.current) setError(err as Error);
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [fetchPage],
  );

  useEffect(() => {
    void load(undefined, true);
  }, [load]);

  const loadMore = useCallback(() => {
    if (!loading && cursor) void load(cursor, false);
  }, [cursor, load, loading]);

  const reload = useCallback(() => {
    void load(undefined, true);
  }, [load]);

  return { items, loading, error, hasMore: cursor !== null, loadMore, reload };
}
