import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Runs the call again, keeping the shown data until the new answer arrives. */
  reload: () => void;
}

/**
 * Runs `load` when `deps` change; an answer that arrives after newer deps is dropped, so a
 * slow first search cannot overwrite the result of a later one.
 */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);
  const loader = useRef(load);
  loader.current = load;

  useEffect(() => {
    const run = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    loader.current().then(
      (data) => run === latest.current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => run === latest.current && setState((previous) => ({ data: previous.data, error, loading: false })),
    );
    // The caller's deps decide when to load again, as with useEffect itself.
  }, [...deps, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}
