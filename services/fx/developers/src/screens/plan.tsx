import { useEffect, useState } from 'preact/hooks';
import { api, type Me, type Pricing } from '../api.js';
import type { Formatters } from '../format.js';
import type { Messages } from '../i18n/messages.js';
import { problemText } from '../problems.js';

/** The plans the limiter enforces (/api/v1/pricing), the account's marked; changing plan stays with the operator. */
export function PlanScreen({ t, format, me }: { t: Messages; format: Formatters; me: Me }) {
  const [pricing, setPricing] = useState<Pricing | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.pricing().then(setPricing, (problem: unknown) => setError(problemText(problem, t)));
  }, []);
  return (
    <section class="card wide" aria-labelledby="plan-title">
      <h2 id="plan-title">{t.plan}</h2>
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
      {!pricing && !error && <p class="loading">…</p>}
      {pricing && (
        // Five columns scroll sideways on a phone: a region a keyboard can focus and scroll (axe: scrollable-region-focusable).
        <div class="table-scroll" tabIndex={0} role="region" aria-labelledby="plan-title">
          <table class="plans" data-testid="plans">
            <thead>
              <tr>
                <th scope="col">{t.plan}</th>
                <th scope="col">{t.monthlyQuota}</th>
                <th scope="col">{t.perMinute}</th>
                <th scope="col">{t.webhooks}</th>
                <th scope="col">{t.streams}</th>
              </tr>
            </thead>
            <tbody>
              {pricing.plans.map((plan) => {
                const current = plan.name === me.plan;
                return (
                  <tr key={plan.name} class={current ? 'current' : undefined} aria-current={current ? 'true' : undefined} data-plan={plan.name}>
                    <th scope="row">
                      {plan.name}
                      {current && <span class="badge">{t.current}</span>}
                    </th>
                    <td class="number">{plan.monthlyQuota === null ? '∞' : format.whole(plan.monthlyQuota)}</td>
                    <td class="number">{format.whole(plan.perMinute)}</td>
                    <td class="number">{format.whole(plan.webhookAllowance)}</td>
                    <td class="number">{format.whole(plan.maxStreams)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <p class="note" data-testid="change-plan">
        {t.changePlan}
      </p>
    </section>
  );
}
