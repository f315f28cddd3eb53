import { encode } from 'uqr';
import { useEffect, useRef } from 'preact/hooks';

/** A QR code drawn on a canvas in the page: no image service ever sees what it encodes (a capture link, a TOTP secret). */
export function QrCanvas(props: { text: string; label: string; testId?: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const target = canvas.current;
    const context = target?.getContext('2d');
    if (!target || !context) return;
    const { data, size } = encode(props.text, { ecc: 'M', border: 2 });
    const cell = Math.max(3, Math.floor(240 / size));
    target.width = target.height = size * cell;
    context.fillStyle = '#fff';
    context.fillRect(0, 0, target.width, target.height);
    context.fillStyle = '#000';
    data.forEach((row, y) => row.forEach((dark, x) => dark && context.fillRect(x * cell, y * cell, cell, cell)));
  }, [props.text]);
  return <canvas ref={canvas} role="img" aria-label={props.label} data-testid={props.testId} />;
}
