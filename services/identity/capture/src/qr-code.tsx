import { QrCanvas } from '@svc/web-ui/components/qr-canvas';
import { useMessages } from './messages.js';

/** The page's own link as a QR code, to continue on a phone. */
export function QrCode({ text }: { text: string }) {
  const t = useMessages();
  return (
    <section class="phone" aria-labelledby="phone-title">
      <h2 id="phone-title">{t('phoneTitle')}</h2>
      <p>{t('phoneText')}</p>
      <QrCanvas text={text} label={t('phoneCode')} testId="qr-code" />
    </section>
  );
}
