import { encode } from 'uqr';
import { useEffect, useRef } from 'preact/hooks';
import { useMessages } from './messages.js';

/** The page's own link as a QR code drawn on a canvas here: no image service ever sees the token. */
export function QrCode({ text }: { text: string }) {
  const t = useMessages();
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const target = canvas.current;
    const context = target?.getContext('2d');
    if (!target || !context) return;
    const { data, size } = encode(text, { ecc: 'M', border: 2 });
    const cell = Math.max(3, Math.floor(240 / size));
    target.width = target.height = size * cell;
    context.fillStyle = '#fff';
    context.fillRect(0, 0, target.width, target.height);
    context.fillStyle = '#000';
    data.forEach((row, y) => row.forEach((dark, x) => dark && context.fillRect(x * cell, y * cell, cell, cell)));
  }, [text]);
  return (
    <section class="phone" aria-labelledby="phone-title">
      <h2 id="phone-title">{t('phoneTitle')}</h2>
      <p>{t('phoneText')}</p>
      <canvas ref={canvas} role="img" aria-label={t('phoneCode')} data-testid="qr-code" />
    </section>
  );
}
