import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '@svc/web-ui/api';
import { ErrorNotice, PageHeader, StatusBadge, statusLabel, useAsync } from '@svc/web-ui/components';
import { FraudSignals, ReviewDecisions } from '@svc/web-ui/cases/case-findings';
import { CaseTimeline } from '@svc/web-ui/cases/case-timeline';
import { CheckScores } from '@svc/web-ui/cases/check-scores';
import { caseMessages } from '@svc/web-ui/cases/messages';
import { formatDateTime } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { navigate } from '@svc/web-ui/router';
import { consoleMessages } from '../messages.js';
import type { StaffSession } from '../session.js';
import type { CaseClaim, ReviewQueuePage, ReviewVerdict, StaffCaseView } from '@svc/identity-client/staff-types';
import { DecisionPanel, MrzComparison } from './decision-panel.js';
import { DocumentViewer, FacesPanel, INITIAL_VIEW, LivenessPanel, rotated, zoomed } from './evidence-panels.js';
import { CaseDetailFrame } from '@svc/web-ui/cases/case-detail-frame';

/** Renewed well before its 15 minutes end, while the case is open on screen. */
const RENEW_CLAIM_MS = 5 * 60_000;

/** The first waiting case nobody else holds, other than this one. */
async function nextCaseId(currentId: string, staffEmail: string): Promise<string | null> {
  const page = await api<ReviewQueuePage>('GET', '/review-queue', { query: { pageSize: 50 } });
  return page.items.find((item) => item.id !== currentId && (!item.claim || item.claim.email === staffEmail))?.id ?? null;
}

const isTyping = (target: EventTarget | null) => target instanceof HTMLElement && (['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.isContentEditable);

export function CaseReview({ caseId, session }: { caseId: string; session: StaffSession }) {
  const t = useMessages(consoleMessages);
  const tc = useMessages(caseMessages);
  const { language } = useLanguage();
  const view = useAsync(() => api<StaffCaseView>('GET', `/cases/${caseId}`), [caseId]);
  const [claim, setClaim] = useState<{ mine: boolean; holder: CaseClaim } | null>(null);
  const [claimError, setClaimError] = useState<unknown>();
  const [viewState, setViewState] = useState(INITIAL_VIEW);
  const [decision, setDecision] = useState<ReviewVerdict | null>(null);
  const [corrections, setCorrections] = useState<Record<string, string>>({});
  const [decided, setDecided] = useState<string | null>(null);
  const [noNext, setNoNext] = useState(false);
  const reasonRef = useRef<HTMLSelectElement>(null);
  const waiting = view.data?.case.status === 'PendingManualReview';

  const takeClaim = async () => {
    try {
      const holder = await api<CaseClaim>('POST', `/cases/${caseId}/claim`);
      setClaim({ mine: true, holder });
      setClaimError(undefined);
    } catch (error) {
      const holder = error instanceof ApiError && error.code === 'CASE_CLAIMED' ? ((error.extensions.claimedBy as CaseClaim | undefined) ?? null) : null;
      if (holder) setClaim({ mine: false, holder });
      else if (!(error instanceof ApiError && error.code === 'INVALID_CASE_STATE')) setClaimError(error);
    }
  };

  useEffect(() => {
    if (!waiting || decided) return;
    void takeClaim();
    const renew = window.setInterval(() => void takeClaim(), RENEW_CLAIM_MS);
    return () => window.clearInterval(renew);
  }, [waiting, decided, caseId]);

  // Leaving an undecided case gives it back to the queue at once instead of after 15 minutes.
  // A decision ends the claim on the server, so nothing is left to release after one.
  const decidedRef = useRef(false);
  const holdsClaim = claim?.mine === true && !decided;
  useEffect(() => {
    if (!holdsClaim) return;
    return () => {
      if (!decidedRef.current) void api('DELETE', `/cases/${caseId}/claim`).catch(() => undefined);
    };
  }, [holdsClaim, caseId]);

  const goNext = async () => {
    const next = await nextCaseId(caseId, session.staff.email).catch(() => null);
    if (next) navigate(`/cases/${next}`);
    else setNoNext(true);
  };

  const canDecide = waiting && claim?.mine === true && !decided;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      const key = event.key.toLowerCase();
      if ((key === 'a' || key === 'r') && canDecide) {
        setDecision(key === 'a' ? 'Approved' : 'Rejected');
        reasonRef.current?.focus();
      } else if (key === 'n') void goNext();
      else if (key === '+' || key === '=') setViewState((current) => zoomed(current, 0.25));
      else if (key === '-') setViewState((current) => zoomed(current, -0.25));
      else if (key === 'o') setViewState((current) => rotated(current));
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [canDecide, caseId]);

  const data = view.data;
  const rows = data?.mrzComparison ?? [];
  const changed = Object.fromEntries(Object.entries(corrections).filter(([field, value]) => (rows.find((row) => row.field === field)?.ocr ?? '') !== value));
  return (
    <CaseDetailFrame class="case-review case-detail" backHref="/queue" backLabel={t('backToQueue')} error={view.error} loading={!data && view.loading}>
      {data ? (
        <>
          <PageHeader
            title={
              <span id="case-title" data-testid="case-title">
                <bdi>{data.tenant.name}</bdi> · {data.case.externalReference ?? data.case.id}
              </span>
            }
            actions={
              <button type="button" class="button" onClick={() => void goNext()}>
                {t('nextCase')} <kbd>N</kbd>
              </button>
            }
          >
            <p class="shortcut-help" data-testid="shortcut-help">
              <span class="visually-hidden">{t('shortcuts')}: </span>
              {t('shortcutList')}
            </p>
          </PageHeader>
          {noNext ? <p class="notice">{t('noNextCase')}</p> : null}
          {claimError ? <ErrorNotice error={claimError} /> : null}
          {decided ? (
            <p class="notice notice-success" role="status" data-testid="decided">
              {t('decided', { status: statusLabel(decided, language) })}
            </p>
          ) : !waiting ? (
            <p class="notice" data-testid="not-waiting">
              {t('notWaiting', { status: statusLabel(data.case.status, language) })}
            </p>
          ) : claim ? (
            <p class={`notice ${claim.mine ? 'notice-success' : 'notice-warning'}`} role="status" data-testid="claim-banner">
              {claim.mine ? t('claimHeld', { time: formatDateTime(claim.holder.expiresAt, language) }) : t('claimOther', { email: claim.holder.email, time: formatDateTime(claim.holder.expiresAt, language) })}
              {!claim.mine && session.staff.role === 'ReviewLead' ? (
                <button type="button" class="button button-small" onClick={() => void api('DELETE', `/cases/${caseId}/claim`).then(takeClaim)}>
                  {t('releaseOther')}
                </button>
              ) : null}
            </p>
          ) : null}
          <div class="review-grid">
            <div class="review-evidence">
              <DocumentViewer verification={data.case} view={viewState} onView={setViewState} />
              <FacesPanel verification={data.case} />
              <LivenessPanel verification={data.case} />
            </div>
            <div class="review-findings">
              <section class="card" aria-labelledby="facts-title">
                <h2 id="facts-title">{t('caseFacts')}</h2>
                <dl class="facts">
                  <div>
                    <dt>{t('caseId')}</dt>
                    <dd>
                      <code data-testid="case-id">{data.case.id}</code>
                    </dd>
                  </div>
                  <div>
                    <dt>{tc('status')}</dt>
                    <dd>
                      <StatusBadge status={decided ?? data.case.status} />
                    </dd>
                  </div>
                  <div>
                    <dt>{tc('documentType')}</dt>
                    <dd>{tc(`documentType.${data.case.documentType}`)}</dd>
                  </div>
                  <div class="wide">
                    <dt>{t('waitingReason')}</dt>
                    {/* While the case waits, the reason is the checks' (in English); after a decision it is a reviewer's, in any language. */}
                    <dd dir="auto" lang={waiting ? 'en' : undefined} data-testid="review-reason">
                      {data.case.decisionReason ?? '—'}
                    </dd>
                  </div>
                </dl>
              </section>
              <CheckScores faceMatch={data.case.faceMatch} liveness={data.case.liveness} />
              <FraudSignals signals={data.case.fraudSignals} />
              <MrzComparison verification={data.case} rows={rows} corrections={corrections} onCorrect={(field, value) => setCorrections((current) => ({ ...current, [field]: value }))} disabled={!canDecide} />
              {canDecide ? (
                <DecisionPanel
                  caseId={caseId}
                  decision={decision}
                  onDecision={setDecision}
                  corrections={changed}
                  reasonRef={reasonRef}
                  onDecided={(status) => {
                    decidedRef.current = true;
                    setDecided(status);
                    view.reload();
                  }}
                />
              ) : null}
              <ReviewDecisions decisions={data.case.reviewDecisions} />
              <section class="card" aria-labelledby="timeline-title">
                <h2 id="timeline-title">{tc('timeline')}</h2>
                <CaseTimeline entries={data.timeline} />
              </section>
            </div>
          </div>
        </>
      ) : null}
    </CaseDetailFrame>
  );
}
