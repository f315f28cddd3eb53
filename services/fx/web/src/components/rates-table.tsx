import type { LatestRates, RateEntry } from '../api.js';
import type { Formatters } from '../i18n/format.js';
import type { Messages } from '../i18n/messages.js';
import { ChangeMark } from './change-mark.js';

/** The currencies most readers look for first; the rest follow alphabetically. */
const FIRST = ['USD', 'EUR', 'TRY', 'SAR', 'AED', 'GBP'];

export function orderCurrencies(codes: Iterable<string>): string[] {
  const rank = (code: string) => {
    const index = FIRST.indexOf(code);
    return index < 0 ? FIRST.length : index;
  };
  return [...new Set(codes)].sort((left, right) => rank(left) - rank(right) || left.localeCompare(right));
}

interface Props {
  latest: LatestRates;
  t: Messages;
  format: Formatters;
}

function SourceCell({ rate, t, format }: { rate: RateEntry | undefined; t: Messages; format: Formatters }) {
  if (!rate) return <td class="rate empty">—</td>;
  const percent = rate.previousMid ? ((rate.mid - rate.previousMid) / rate.previousMid) * 100 : null;
  return (
    <td class="rate">
      <span class="mid">{format.amount(rate.mid)}</span>
      <ChangeMark percent={percent} t={t} format={format} />
      <span class="spread">
        <span>
          {t.buy} <bdi>{format.amount(rate.buy)}</bdi>
        </span>{' '}
        <span>
          {t.sell} <bdi>{format.amount(rate.sell)}</bdi>
        </span>
      </span>
    </td>
  );
}

/** Official and market side by side per currency; an active manual override shows as the effective rate. */
export function RatesTable({ latest, t, format }: Props) {
  const cbs = new Map(latest.cbsRates.map((rate) => [rate.currency, rate]));
  const market = new Map(latest.marketRates.map((rate) => [rate.currency, rate]));
  const effective = new Map(latest.effectiveRates.map((rate) => [rate.currency, rate]));
  const currencies = orderCurrencies([...cbs.keys(), ...market.keys(), ...effective.keys()]);
  if (currencies.length === 0) return <p>{t.noData}</p>;
  return (
    <div class="table-scroll">
      <table class="rates" data-testid="rates-table">
        <caption class="visually-hidden">{t.latestRates}</caption>
        <thead>
          <tr>
            <th scope="col">{t.currency}</th>
            <th scope="col">
              {t.official}
              <span class="column-note">
                {t.mid} · {t.changeAgainstPreviousDay}
              </span>
            </th>
            <th scope="col">
              {t.market}
              <span class="column-note">
                {t.mid} · {t.changeAgainstPreviousDay}
              </span>
            </th>
          </tr>
        </thead>
        <tbody>
          {currencies.map((currency) => {
            const override = effective.get(currency);
            return (
              <tr key={currency} data-currency={currency}>
                <th scope="row">
                  <span class="code">{currency}</span>
                  <span class="name">{format.currencyName(currency)}</span>
                  {override?.isManualOverride && (
                    <span class="override" data-testid={`effective-${currency}`}>
                      {t.effectiveManual}: <bdi>{format.amount(override.mid)}</bdi>
                    </span>
                  )}
                </th>
                <SourceCell rate={cbs.get(currency)} t={t} format={format} />
                <SourceCell rate={market.get(currency)} t={t} format={format} />
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
