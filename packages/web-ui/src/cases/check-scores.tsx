import { formatNumber } from '../format.js';
import { useLanguage, useMessages } from '../i18n.js';
import { meterPercent } from './case-logic.js';
import type { FaceMatch, Liveness } from './case-types.js';
import { caseMessages } from './messages.js';

/** Face match and liveness, each score drawn against the threshold the service applied to it. */
export function CheckScores({ faceMatch, liveness }: { faceMatch: FaceMatch | null; liveness: Liveness | null }) {
  const t = useMessages(caseMessages);
  return (
    <section class="card" aria-labelledby="checks-title">
      <h2 id="checks-title">{t('checks')}</h2>
      {!faceMatch && !liveness ? <p class="muted">{t('noChecks')}</p> : null}
      <div class="score-list">
        {faceMatch ? (
          <ScoreMeter
            testId="face-match"
            title={t('faceMatch')}
            score={faceMatch.similarityScore}
            threshold={faceMatch.threshold}
            passed={faceMatch.isMatch}
            verdict={faceMatch.isMatch ? t('isMatch') : t('isNotMatch')}
            model={`${faceMatch.modelName} ${faceMatch.modelVersion}`}
          />
        ) : null}
        {liveness ? (
          <ScoreMeter
            testId="liveness"
            title={t('liveness')}
            score={liveness.livenessScore}
            threshold={liveness.threshold}
            passed={liveness.isLive}
            verdict={liveness.isLive ? t('isLive') : t('isNotLive')}
            model={`${liveness.modelName} ${liveness.modelVersion}`}
            note={liveness.presentationAttackDetected ? t('attackDetected', { type: liveness.attackType ?? t('unknownAttack') }) : undefined}
          />
        ) : null}
      </div>
    </section>
  );
}

interface MeterProps {
  testId: string;
  title: string;
  score: number;
  threshold: number;
  passed: boolean;
  verdict: string;
  model: string;
  note?: string | undefined;
}

/**
 * A bar with a mark at the threshold. Widths and the mark's position are CSSOM properties
 * (Preact's style object), which the portal's CSP allows, unlike style attributes in markup.
 */
function ScoreMeter({ testId, title, score, threshold, passed, verdict, model, note }: MeterProps) {
  const t = useMessages(caseMessages);
  const { language } = useLanguage();
  const scoreText = formatNumber(score, language, 2);
  const thresholdText = formatNumber(threshold, language, 2);
  return (
    <div class={`score ${passed ? 'passed' : 'failed'}`} data-testid={testId}>
      <div class="score-heading">
        <h3>{title}</h3>
        <span class={`verdict ${passed ? 'good' : 'bad'}`}>{verdict}</span>
      </div>
      <div
        class="score-track"
        role="meter"
        aria-label={t('scoreAgainstThreshold', { title, score: scoreText, threshold: thresholdText })}
        aria-valuemin={0}
        aria-valuemax={1}
        aria-valuenow={score}
      >
        <div class="score-fill" style={{ width: `${meterPercent(score)}%` }} />
        <div class="score-threshold" style={{ insetInlineStart: `${meterPercent(threshold)}%` }} />
      </div>
      <p class="score-numbers">
        <span>{t('score', { score: scoreText })}</span>
        <span class="muted">{t('threshold', { threshold: thresholdText })}</span>
      </p>
      <p class="muted">
        {t('model')}: <bdi>{model}</bdi>
      </p>
      {note ? <p class="bad">{note}</p> : null}
    </div>
  );
}
