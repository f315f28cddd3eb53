import { api } from '@svc/web-ui/api';
import { CopyButton, ErrorNotice, Loading, PageHeader, StatusBadge, useAsync } from '@svc/web-ui/components';
import { formatDateTime, formatNumber } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { useSession } from '../../session.js';
import { CancelCase } from './cancel-case.js';
import { RedactCase } from './redact-case.js';
import { CaseEvidence } from '@svc/web-ui/cases/case-evidence';
import { FraudSignals, ReviewDecisions } from '@svc/web-ui/cases/case-findings';
import { canCancel, isTerminalStatus } from '@svc/web-ui/cases/case-logic';
import { CaseTimeline } from '@svc/web-ui/cases/case-timeline';
import type { CaseDetail as CaseDetailData, CaseHistoryEntry } from '@svc/web-ui/cases/case-types';
import { CheckScores } from '@svc/web-ui/cases/check-scores';
import { caseMessages, CASES_HREF } from '@svc/web-ui/cases/messages';
import { OcrFields } from './ocr-fields.js';
import '@svc/web-ui/cases/cases.css';
import { CaseDetailFrame } from '@svc/web-ui/cases/case-detail-frame';

export function CaseDetail({ caseId }: { caseId: string }) {
  const t = useMessages(caseMessages);
  const { canWrite } = useSession();
  const detail = useAsync(() => api<CaseDetailData>('GET', `/verifications/${encodeURIComponent(caseId)}`), [caseId]);
  const history = useAsync(() => api<{ data: CaseHistoryEntry[] }>('GET', `/verifications/${encodeURIComponent(caseId)}/history`), [caseId]);
  // A change (cancel, correction) moves the case and adds to its trail: both are read again.
  const reloadAll = () => {
    detail.reload();
    history.reload();
  };

  const verification = detail.data;
  return (
    <CaseDetailFrame class="case-detail" backHref={CASES_HREF} backLabel={t('backToCases')} error={detail.error} loading={!verification && detail.loading}>
      {verification ? (
        <>
          <PageHeader
            title={
              <span id="case-title" data-testid="case-title">
                {verification.externalReference ?? t('caseWithoutReference')}
              </span>
            }
            actions={
              !canWrite ? undefined : canCancel(verification.status) ? (
                <CancelCase caseId={verification.id} onCancelled={reloadAll} />
              ) : isTerminalStatus(verification.status) && verification.redactionRequestedAt === null ? (
                <RedactCase caseId={verification.id} onRequested={() => history.reload()} />
              ) : undefined
            }
          />
          <div class="case-grid">
            <div class="case-main">
              <CaseSummary verification={verification} />
              <CheckScores faceMatch={verification.faceMatch} liveness={verification.liveness} />
              <CaseEvidence verification={verification} />
              <OcrFields verification={verification} canWrite={canWrite} onCorrected={reloadAll} />
            </div>
            <div class="case-side">
              <section class="card" aria-labelledby="timeline-title">
                <h2 id="timeline-title">{t('timeline')}</h2>
                {history.error ? <ErrorNotice error={history.error} /> : null}
                {history.data ? <CaseTimeline entries={history.data.data} /> : history.loading ? <Loading /> : null}
              </section>
              <FraudSignals signals={verification.fraudSignals} />
              <ReviewDecisions decisions={verification.reviewDecisions} />
            </div>
          </div>
        </>
      ) : null}
    </CaseDetailFrame>
  );
}

function CaseSummary({ verification }: { verification: CaseDetailData }) {
  const t = useMessages(caseMessages);
  const { language } = useLanguage();
  const when = (iso: string | null) => (iso ? formatDateTime(iso, language) : '—');
  return (
    <section class="card" aria-labelledby="summary-title">
      <h2 id="summary-title">{t('summary')}</h2>
      <dl class="facts">
        <div class="case-id-fact">
          <dt>{t('caseId')}</dt>
          <dd class="with-copy">
            <code data-testid="case-id">{verification.id}</code>
            <CopyButton text={verification.id} label={t('copyCaseId')} />
          </dd>
        </div>
        <div>
          <dt>{t('status')}</dt>
          <dd data-testid="case-status">
            <StatusBadge status={verification.status} />
          </dd>
        </div>
        <div>
          <dt>{t('documentType')}</dt>
          <dd>{t(`documentType.${verification.documentType}` as const)}</dd>
        </div>
        <div>
          <dt>{t('riskScore')}</dt>
          <dd>{verification.compositeRiskScore === null ? t('notScored') : t('riskOutOf100', { score: formatNumber(verification.compositeRiskScore, language) })}</dd>
        </div>
        <div class="wide">
          <dt>{t('decisionReason')}</dt>
          {/* Reasons come from the API in English: a block of their own direction reads right inside Arabic too. */}
          <dd data-testid="decision-reason" dir="auto">
            {verification.decisionReason ?? '—'}
          </dd>
        </div>
        <div>
          <dt>{t('created')}</dt>
          <dd>{when(verification.createdAt)}</dd>
        </div>
        <div>
          <dt>{t('updated')}</dt>
          <dd>{when(verification.updatedAt)}</dd>
        </div>
        <div>
          <dt>{t('completed')}</dt>
          <dd>{when(verification.completedAt)}</dd>
        </div>
        {verification.redactedAt ? (
          <div>
            <dt>{t('redacted')}</dt>
            <dd data-testid="redacted-at">{when(verification.redactedAt)}</dd>
          </div>
        ) : null}
        {verification.session ? (
          <div>
            <dt>{t('session')}</dt>
            <dd>{verification.session.isUsed ? t('sessionUsed', { at: when(verification.session.usedAt) }) : t('sessionExpires', { at: when(verification.session.expiresAt) })}</dd>
          </div>
        ) : null}
        <div>
          <dt>{t('consent')}</dt>
          <dd data-testid="consent" title={verification.consent?.userAgent ?? undefined}>
            {verification.consent ? t('consentGiven', { at: when(verification.consent.givenAt), language: verification.consent.language }) : t('consentMissing')}
          </dd>
        </div>
        {verification.returnUrl ? (
          <div>
            <dt>{t('returnUrl')}</dt>
            <dd class="break">{verification.returnUrl}</dd>
          </div>
        ) : null}
      </dl>
    </section>
  );
}
