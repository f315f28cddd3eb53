import { useEffect, useState } from 'preact/hooks';
import { api } from '@svc/web-ui/api';
import { ErrorNotice, Loading, useAsync } from '@svc/web-ui/components';
import { useMessages, type Messages } from '@svc/web-ui/i18n';
import { useSession } from '../../session.js';

type Key = 'heading' | 'intro' | 'label' | 'hint' | 'save' | 'saving' | 'saved' | 'none';

const messages: Messages<Key> = {
  en: {
    heading: 'Embedding the capture page',
    intro: 'Pages on these origins may show the capture page inside an iframe (with @svc/capture-embed) and use the camera there. Any other page gets a refused frame.',
    label: 'Allowed origins, one per line',
    hint: 'https://host or https://host:port, without a path. Leave empty to allow none.',
    save: 'Save origins',
    saving: 'Saving…',
    saved: 'Saved. The capture page follows the new list at its next load.',
    none: 'No page may embed the capture page.',
  },
  ar: {
    heading: 'تضمين صفحة الالتقاط',
    intro: 'يمكن للصفحات على هذه الأصول عرض صفحة الالتقاط داخل إطار (باستخدام ‎@svc/capture-embed) واستخدام الكاميرا فيها. أي صفحة أخرى يُرفض إطارها.',
    label: 'الأصول المسموح بها، أصل في كل سطر',
    hint: 'https://host أو https://host:port بلا مسار. اتركه فارغًا لعدم السماح لأي صفحة.',
    save: 'حفظ الأصول',
    saving: 'جارٍ الحفظ…',
    saved: 'تم الحفظ. تتبع صفحة الالتقاط القائمة الجديدة عند تحميلها التالي.',
    none: 'لا يمكن لأي صفحة تضمين صفحة الالتقاط.',
  },
};

type CaptureSettings = { captureEmbedOrigins: string[] };

/** The tenant's captureEmbedOrigins (PUT /capture-settings): PartnerAdmin edits, other roles read. */
export function CaptureEmbedSettings() {
  const t = useMessages(messages);
  const { canWrite } = useSession();
  const settings = useAsync(() => api<CaptureSettings>('GET', '/capture-settings'), []);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (settings.data) setText(settings.data.captureEmbedOrigins.join('\n'));
  }, [settings.data]);

  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setSaved(false);
    try {
      const captureEmbedOrigins = text.split('\n').map((line) => line.trim()).filter((line) => line.length > 0);
      const answer = await api<CaptureSettings>('PUT', '/capture-settings', { body: { captureEmbedOrigins } });
      setText(answer.captureEmbedOrigins.join('\n'));
      setSaved(true);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" aria-labelledby="capture-embed-heading" data-testid="capture-embed" onSubmit={(event) => void save(event)}>
      <h2 id="capture-embed-heading">{t('heading')}</h2>
      <p class="muted">{t('intro')}</p>
      {settings.error !== undefined && <ErrorNotice error={settings.error} onRetry={settings.reload} />}
      {!settings.data && settings.error === undefined && <Loading />}
      {saved && (
        <div class="notice notice-success" role="status">
          <p>{t('saved')}</p>
        </div>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      {settings.data && canWrite && (
        <>
          <div class="field">
            <label for="capture-embed-origins">{t('label')}</label>
            <textarea id="capture-embed-origins" rows={3} dir="ltr" spellcheck={false} aria-describedby="capture-embed-hint" value={text} onInput={(event) => setText(event.currentTarget.value)} />
            <p id="capture-embed-hint" class="muted">
              {t('hint')}
            </p>
          </div>
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? t('saving') : t('save')}
          </button>
        </>
      )}
      {settings.data && !canWrite && (settings.data.captureEmbedOrigins.length === 0 ? <p>{t('none')}</p> : <ul dir="ltr">{settings.data.captureEmbedOrigins.map((origin) => <li key={origin}>{origin}</li>)}</ul>)}
    </form>
  );
}
