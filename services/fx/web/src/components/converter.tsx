import { useState } from 'preact/hooks';
import type { RateEntry } from '../api.js';
import { parseAmount, type Formatters } from '../i18n/format.js';
import { fill, type Messages } from '../i18n/messages.js';
import { orderCurrencies } from './rates-table.js';

/**
 * SYP per unit at the effective rate (override or market mid). Between two foreign currencies
 * the amount goes through SYP, the way it is changed in practice.
 */
export function convert(amount: number, from: string, to: string, sypPerUnit: ReadonlyMap<string, number>): number | null {
  const rateOf = (code: string) => (code === 'SYP' ? 1 : sypPerUnit.get(code));
  const fromRate = rateOf(from);
  const toRate = rateOf(to);
  if (fromRate === undefined || toRate === undefined) return null;
  return (amount * fromRate) / toRate;
}

export function Converter({ effective, t, format }: { effective: RateEntry[]; t: Messages; format: Formatters }) {
  const [amountText, setAmountText] = useState('100');
  const [from, setFrom] = useState('USD');
  const [to, setTo] = useState('SYP');
  const sypPerUnit = new Map(effective.map((rate) => [rate.currency, rate.mid]));
  const codes = ['SYP', ...orderCurrencies(sypPerUnit.keys())];
  const amount = parseAmount(amountText);
  const result = amount === null ? null : convert(amount, from, to, sypPerUnit);
  const foreign = from === 'SYP' ? to : from;
  const rate = sypPerUnit.get(foreign);
  const select = (value: string, onChange: (code: string) => void, id: string) => (
    <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
      {codes.map((code) => (
        <option key={code} value={code}>
          {code} · {format.currencyName(code)}
        </option>
      ))}
    </select>
  );
  return (
    <section aria-labelledby="converter-title" class="card">
      <h2 id="converter-title">{t.converter}</h2>
      <form class="converter" onSubmit={(event) => event.preventDefault()}>
        <label for="convert-amount">{t.amount}</label>
        <input
          id="convert-amount"
          type="text"
          inputMode="decimal"
          autoComplete="off"
          value={amountText}
          aria-invalid={amount === null}
          aria-describedby={amount === null ? 'convert-amount-error' : undefined}
          onInput={(event) => setAmountText(event.currentTarget.value)}
        />
        {amount === null && (
          <p id="convert-amount-error" class="field-error">
            {t.invalidAmount}
          </p>
        )}
        <label for="convert-from">{t.from}</label>
        {select(from, setFrom, 'convert-from')}
        <button
          type="button"
          class="swap"
          aria-label={t.swap}
          title={t.swap}
          onClick={() => {
            setFrom(to);
            setTo(from);
          }}
        >
          ⇅
        </button>
        <label for="convert-to">{t.to}</label>
        {select(to, setTo, 'convert-to')}
        <p class="result">
          <span>{t.result}: </span>
          <output for="convert-amount convert-from convert-to" aria-live="polite" data-testid="convert-result" data-value={result ?? ''}>
            {result === null ? '—' : `${format.amount(result)} ${to}`}
          </output>
        </p>
        {rate !== undefined && foreign !== 'SYP' && <p class="note">{fill(t.atEffectiveRate, { currency: foreign, rate: format.amount(rate) })}</p>}
      </form>
    </section>
  );
}
