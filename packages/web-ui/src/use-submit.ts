import { useState } from 'preact/hooks';

/**
 * A form's one submit action with its busy flag and its error. `handled` takes failures the form
 * shows otherwise; `ready` says whether the form may be sent now (a second submit while one is
 * under way, or an incomplete form, does nothing).
 */
export function useSubmit(action: () => Promise<void>, options: { handled?: (failure: unknown) => boolean; ready?: () => boolean } = {}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event?: Event) => {
    event?.preventDefault();
    if (busy || (options.ready && !options.ready())) return;
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      if (!options.handled?.(failure)) setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}
