import { LanguageSelect } from '@svc/web-ui';
import { useEffect, useState } from 'preact/hooks';
import type { CaptureStepName } from '@svc/capture-embed';
import {
  CaptureError,
  captureStatus,
  forgetCaptureToken,
  previewSession,
  recordConsent,
  startSession,
  storedCaptureToken,
  submitCapture,
  uploadEvidence,
  type CaptureStatus,
  type EvidenceType,
  type Preview,
} from './capture-api.js';
import { cameraSupported } from './camera.js';
import { embedded, tellEmbedder } from './embedding.js';
import { currentLanguage, LANGUAGE_NAMES, LANGUAGES, setLanguage, useLanguage } from './languages.js';
import { useMessages } from './messages.js';
import { DeadLink, Declined, Done, type DeadReason } from './outcome-screens.js';
import { StillStep } from './still-step.js';
import { VideoStep } from './video-step.js';
import { Welcome } from './welcome.js';

type Screen =
  | { kind: 'loading' }
  | { kind: 'dead'; reason: DeadReason; tenant: string | null }
  | { kind: 'welcome'; preview: Preview }
  | { kind: 'declined'; tenant: string }
  | { kind: 'capture'; captureToken: string; status: CaptureStatus }
  | { kind: 'done'; tenant: string; caseId: string; redirecting: boolean };

const SESSION_TOKEN = /^svc_st_[0-9a-f]{64}$/;

/** The problem code an embedding page hears for each kind of dead link. */
const DEAD_CODES: Record<DeadReason, string> = { used: 'SESSION_ALREADY_USED', expired: 'SESSION_EXPIRED', closed: 'CASE_CLOSED', unknown: 'UNAUTHENTICATED' };

function deadReason(error: unknown): DeadReason | null {
  if (!(error instanceof CaptureError)) return null;
  if (error.code === 'SESSION_ALREADY_USED') return 'used';
  if (error.code === 'SESSION_EXPIRED') return 'expired';
  if (error.code === 'CASE_CLOSED') return 'closed';
  if (error.status === 401) return 'unknown';
  return null;
}

function LanguageSwitcher() {
  const t = useMessages();
  const language = useLanguage();
  return <LanguageSelect label={t('languageLabel')} value={language} languages={LANGUAGES} names={LANGUAGE_NAMES} onChange={setLanguage} testId="language" />;
}

export function App() {
  const t = useMessages();
  const [screen, setScreen] = useState<Screen>({ kind: 'loading' });
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const sessionToken = window.location.hash.slice(1);

  function fail(error: unknown, tenant: string | null) {
    const reason = deadReason(error);
    if (reason) return setScreen({ kind: 'dead', reason, tenant });
    setFailure(t('failed', { detail: error instanceof Error ? error.message : String(error) }));
    tellEmbedder({ type: 'error', code: error instanceof CaptureError ? (error.code ?? 'UNEXPECTED_ERROR') : 'NETWORK_ERROR' });
  }

  async function resume(captureToken: string) {
    const status = await captureStatus(captureToken);
    if (status.status !== 'CaptureStarted') {
      forgetCaptureToken();
      setScreen({ kind: 'done', tenant: status.tenantName, caseId: status.caseId, redirecting: false });
      return;
    }
    setScreen({ kind: 'capture', captureToken, status });
  }

  useEffect(() => {
    document.title = t('pageTitle');
  });

  useEffect(() => {
    if (!SESSION_TOKEN.test(sessionToken)) {
      tellEmbedder({ type: 'ready' });
      return setScreen({ kind: 'dead', reason: 'unknown', tenant: null });
    }
    const stored = storedCaptureToken(sessionToken);
    void (async () => {
      try {
        if (stored) return await resume(stored);
        setScreen({ kind: 'welcome', preview: await previewSession(sessionToken) });
      } catch (error) {
        fail(error, null);
      } finally {
        // Before the first screen's own event: its effects run after this render.
        tellEmbedder({ type: 'ready' });
      }
    })();
  }, []);

  useEffect(() => {
    if (screen.kind === 'dead') tellEmbedder({ type: 'error', code: DEAD_CODES[screen.reason] });
    else if (screen.kind === 'welcome') tellEmbedder({ type: 'step', name: 'consent' });
    else if (screen.kind === 'declined') tellEmbedder({ type: 'cancelled' });
    else if (screen.kind === 'done') tellEmbedder({ type: 'submitted', caseId: screen.caseId });
  }, [screen.kind]);

  async function start(preview: Preview) {
    setBusy(true);
    try {
      const captureToken = await startSession(sessionToken);
      await recordConsent(captureToken, currentLanguage());
      await resume(captureToken);
    } catch (error) {
      fail(error, preview.tenantName);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <header class="top">
        <span class="brand">{t('pageTitle')}</span>
        <LanguageSwitcher />
      </header>
      {failure ? (
        <p class="notice notice-error" role="alert">
          {failure}{' '}
          <button type="button" class="button button-small" onClick={() => window.location.reload()}>
            {t('tryAgain')}
          </button>
        </p>
      ) : null}
      {screen.kind === 'loading' ? <p class="loading">{t('loading')}</p> : null}
      {screen.kind === 'dead' ? <DeadLink reason={screen.reason} tenant={screen.tenant} /> : null}
      {screen.kind === 'welcome' ? (
        <Welcome preview={screen.preview} busy={busy} onStart={() => void start(screen.preview)} onDecline={() => setScreen({ kind: 'declined', tenant: screen.preview.tenantName })} />
      ) : null}
      {screen.kind === 'declined' ? <Declined tenant={screen.tenant} /> : null}
      {screen.kind === 'capture' ? (
        <CaptureFlow
          captureToken={screen.captureToken}
          initial={screen.status}
          onDone={(redirecting) => setScreen({ kind: 'done', tenant: screen.status.tenantName, caseId: screen.status.caseId, redirecting })}
          onFail={(error) => fail(error, screen.status.tenantName)}
        />
      ) : null}
      {screen.kind === 'done' ? <Done tenant={screen.tenant} redirecting={screen.redirecting} /> : null}
    </>
  );
}

const STEP_TITLES: Record<EvidenceType, 'documentFrontTitle' | 'documentBackTitle' | 'selfieTitle' | 'videoTitle'> = {
  DocumentFront: 'documentFrontTitle',
  DocumentBack: 'documentBackTitle',
  Selfie: 'selfieTitle',
  LivenessVideo: 'videoTitle',
};

/** The side asked for is this case's own (drawn when capture started); older cases accept either side. */
function videoGuide(side: 'left' | 'right' | null): 'guideVideo' | 'guideVideoLeft' | 'guideVideoRight' {
  return side === 'left' ? 'guideVideoLeft' : side === 'right' ? 'guideVideoRight' : 'guideVideo';
}

function CaptureFlow({ captureToken, initial, onDone, onFail }: { captureToken: string; initial: CaptureStatus; onDone: (redirecting: boolean) => void; onFail: (error: unknown) => void }) {
  const t = useMessages();
  const steps = initial.requiredEvidence;
  const [missing, setMissing] = useState<EvidenceType[]>(initial.missing);
  const [camera, setCamera] = useState(cameraSupported());
  const [upload, setUpload] = useState<{ percent: number; retrying: boolean } | null>(null);
  const [serverProblem, setServerProblem] = useState<string | null>(null);
  const current = steps.find((step) => missing.includes(step)) ?? null;
  const passport = initial.documentType === 'SyrianPassport';
  const document = t(passport ? 'passport' : 'nationalId');

  async function send(type: EvidenceType, file: Blob, fileName: string) {
    setUpload({ percent: 0, retrying: false });
    setServerProblem(null);
    try {
      const answer = await uploadEvidence(captureToken, type, file, fileName, {
        onProgress: (fraction) => setUpload({ percent: Math.round(fraction * 100), retrying: false }),
        // The bytes the server holds stay held: the bar keeps them while it tries again.
        onRetrying: () => setUpload((before) => ({ percent: before?.percent ?? 0, retrying: true })),
      });
      if (answer.quality?.retake) {
        setServerProblem(t(type === 'Selfie' ? 'qualityFace' : 'qualityMrz'));
        return;
      }
      setMissing((before) => before.filter((item) => item !== type));
    } catch (error) {
      onFail(error);
    } finally {
      setUpload(null);
    }
  }

  async function submit() {
    setUpload({ percent: 100, retrying: false });
    try {
      await submitCapture(captureToken);
      forgetCaptureToken();
      // Embedded, the partner's page hears `submitted` and decides what comes next; the frame stays put.
      if (initial.returnUrl && !embedded) {
        const target = new URL(initial.returnUrl);
        target.searchParams.set('caseId', initial.caseId);
        target.searchParams.set('status', 'submitted');
        onDone(true);
        window.location.assign(target.toString());
      } else onDone(false);
    } catch (error) {
      if (error instanceof CaptureError && error.status === 409) onDone(false);
      else onFail(error);
    } finally {
      setUpload(null);
    }
  }

  useEffect(() => tellEmbedder({ type: 'step', name: (current ?? 'review') satisfies CaptureStepName }), [current]);

  const index = current ? steps.indexOf(current) + 1 : steps.length + 1;
  const guide = current === 'DocumentFront' ? (passport ? 'guidePassport' : 'guideIdFront') : current === 'DocumentBack' ? 'guideIdBack' : current === 'Selfie' ? 'guideSelfie' : videoGuide(initial.livenessChallenge.headTurnSide);
  return (
    <section class="card" data-testid="step" data-step={current ?? 'submit'}>
      <p class="step-count">{t('stepOf', { n: index, total: steps.length + 1 })}</p>
      <h1>{current ? t(STEP_TITLES[current], { document }) : t('reviewTitle')}</h1>
      {current ? <p>{t(guide)}</p> : <p>{t('reviewText', { tenant: initial.tenantName })}</p>}
      {current === 'DocumentFront' || current === 'DocumentBack' ? (
        <StillStep key={current} facing="environment" maxSide={1600} guide="document" useCamera={camera} serverProblem={serverProblem} busy={upload !== null} onConfirm={(photo) => void send(current, photo, `${current}.jpg`)} onNoCamera={() => setCamera(false)} />
      ) : null}
      {current === 'Selfie' ? (
        <StillStep key={current} facing="user" maxSide={1024} guide="face" useCamera={camera} serverProblem={serverProblem} busy={upload !== null} onConfirm={(photo) => void send(current, photo, 'selfie.jpg')} onNoCamera={() => setCamera(false)} />
      ) : null}
      {current === 'LivenessVideo' ? <VideoStep challenge={initial.livenessChallenge} useCamera={camera} busy={upload !== null} onConfirm={(video, name) => void send(current, video, name)} onNoCamera={() => setCamera(false)} /> : null}
      {upload ? (
        <div class="upload" role="status" data-testid="upload" data-state={upload.retrying ? 'retrying' : 'sending'} data-percent={upload.percent}>
          <progress max={100} value={upload.percent} aria-label={t('uploading', { percent: upload.percent })} />
          <span>{upload.retrying ? t('uploadRetrying') : t('uploading', { percent: upload.percent })}</span>
        </div>
      ) : null}
      {current === null ? (
        <div class="actions">
          <button type="button" class="button button-primary" onClick={() => void submit()} disabled={upload !== null} data-testid="submit">
            {t('submit')}
          </button>
        </div>
      ) : null}
    </section>
  );
}
