import { useEffect, useRef } from 'preact/hooks';

const ACTIVITY = ['keydown', 'pointerdown', 'wheel'] as const;

/** Calls onIdle once after `seconds` without a key, click or scroll; null turns it off. */
export function useIdleSignOut(seconds: number | null, onIdle: () => void): void {
  const callback = useRef(onIdle);
  callback.current = onIdle;
  useEffect(() => {
    if (seconds === null) return;
    let timer = window.setTimeout(() => callback.current(), seconds * 1000);
    const reset = () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => callback.current(), seconds * 1000);
    };
    ACTIVITY.forEach((name) => window.addEventListener(name, reset, { passive: true }));
    return () => {
      window.clearTimeout(timer);
      ACTIVITY.forEach((name) => window.removeEventListener(name, reset));
    };
  }, [seconds]);
}
