import { statusLabel } from '../components/index.js';
import { formatDateTime } from '../format.js';
import { useLanguage, useMessages } from '../i18n.js';
import type { FraudSignal, ReviewDecision } from './case-types.js';
import { caseMessages } from './messages.js';

export function FraudSignals({ signals }: { signals: FraudSignal[] }) {
  const t = useMessages(caseMessages);
  const { language } = useLanguage();
  return (
    <section class="card" aria-labelledby="fraud-title">
      <h2 id="fraud-title">{t('fraudSignals')}</h2>
      {signals.length === 0 ? (
        <p class="muted">{t('noFraudSignals')}</p>
      ) : (
        <ul class="finding-list" data-testid="fraud-signals">
          {signals.map((signal, index) => (
            <li key={`${signal.type}-${index}`}>
              <div class="finding-heading">
                <strong>
                  <bdi>{signal.type}</bdi>
                </strong>
                <span class={`severity ${signal.severity}`}>{t(`severity.${signal.severity}` as const)}</span>
              </div>
              <p dir="auto">{signal.detail}</p>
              <time class="muted" dateTime={signal.detectedAt}>
                {formatDateTime(signal.detectedAt, language)}
              </time>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function ReviewDecisions({ decisions }: { decisions: ReviewDecision[] }) {
  const t = useMessages(caseMessages);
  const { language } = useLanguage();
  return (
    <section class="card" aria-labelledby="reviews-title">
      <h2 id="reviews-title">{t('reviewDecisions')}</h2>
      {decisions.length === 0 ? (
        <p class="muted">{t('noReviewDecisions')}</p>
      ) : (
        <ul class="finding-list" data-testid="review-decisions">
          {decisions.map((decision) => (
            <li key={decision.id}>
              <div class="finding-heading">
                <strong class={decision.decision === 'Approved' ? 'good' : 'bad'}>{statusLabel(decision.decision, language)}</strong>
                <time class="muted" dateTime={decision.decidedAt}>
                  {formatDateTime(decision.decidedAt, language)}
                </time>
              </div>
              <p dir="auto">{decision.reason}</p>
              <p class="muted">{t('reviewer', { id: decision.reviewerId.slice(0, 8) })}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
