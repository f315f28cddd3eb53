import { useEffect, useState } from 'preact/hooks';
import type { Preview } from './capture-api.js';
import { useMessages } from './messages.js';
import { QrCode } from './qr-code.js';

/** Who asks, what will be captured, why and for how long; nothing starts before the user agrees. */
export function Welcome({ preview, busy, onStart, onDecline }: { preview: Preview; busy: boolean; onStart: () => void; onDecline: () => void }) {
  const t = useMessages();
  const [agreed, setAgreed] = useState(false);
  const [hasCamera, setHasCamera] = useState(true);
  useEffect(() => {
    // Before any permission prompt the kinds of devices are known: on a desktop without a camera,
    // offer the phone first (the link still unused, so the phone can start it).
    void navigator.mediaDevices
      ?.enumerateDevices()
      .then((devices) => setHasCamera(devices.some((device) => device.kind === 'videoinput')))
      .catch(() => undefined);
    if (!navigator.mediaDevices) setHasCamera(false);
  }, []);
  const tenant = preview.tenantName;
  const document = t(preview.documentType === 'SyrianPassport' ? 'passport' : 'nationalId');
  return (
    <section class="card" data-testid="welcome">
      <h1>{t('welcomeTitle', { tenant })}</h1>
      <ul class="facts">
        <li>{t('welcomeWhat', { document })}</li>
        <li>{t('welcomeWhy', { tenant })}</li>
        <li>{t('welcomeKept', { tenant })}</li>
        <li>{t('welcomeTime')}</li>
      </ul>
      <label class="consent">
        <input type="checkbox" checked={agreed} onChange={(event) => setAgreed((event.currentTarget).checked)} data-testid="consent-check" />
        <span>{t('consentCheck', { tenant })}</span>
      </label>
      <div class="actions">
        <button type="button" class="button" onClick={onDecline} disabled={busy} data-testid="decline">
          {t('decline')}
        </button>
        <button type="button" class="button button-primary" onClick={onStart} disabled={!agreed || busy} data-testid="start">
          {t('start')}
        </button>
      </div>
      {hasCamera ? null : <QrCode text={window.location.href} />}
    </section>
  );
}
