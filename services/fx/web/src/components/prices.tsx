import type { CryptoPrices, GoldPrices, UsdBasedRates } from '../api.js';
import type { Formatters } from '../i18n/format.js';
import { fill, type Messages } from '../i18n/messages.js';
import { ChangeMark } from './change-mark.js';
import { orderCurrencies } from './rates-table.js';

interface Common {
  t: Messages;
  format: Formatters;
}

export function CrossRates({ data, t, format }: Common & { data: UsdBasedRates }) {
  const byCurrency = new Map(data.rates.map((rate) => [rate.currency, rate]));
  const currencies = orderCurrencies(byCurrency.keys()).filter((code) => code !== 'USD');
  if (currencies.length === 0) return <p>{t.noData}</p>;
  return (
    <table class="compact" data-testid="cross-rates">
      <caption class="visually-hidden">{t.crossRates}</caption>
      <thead>
        <tr>
          <th scope="col">{t.currency}</th>
          <th scope="col">{t.oneUsd}</th>
        </tr>
      </thead>
      <tbody>
        {currencies.map((currency) => (
          <tr key={currency}>
            <th scope="row">
              <span class="code">{currency}</span> <span class="name">{format.currencyName(currency)}</span>
            </th>
            <td class="number">{format.amount(byCurrency.get(currency)?.mid ?? 0)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Crypto({ data, t, format }: Common & { data: CryptoPrices }) {
  if (data.prices.length === 0) return <p>{t.noData}</p>;
  return (
    <table class="compact" data-testid="crypto">
      <caption class="visually-hidden">{t.crypto}</caption>
      <thead>
        <tr>
          <th scope="col">{t.currency}</th>
          <th scope="col">{t.price}</th>
          <th scope="col">{t.change24h}</th>
        </tr>
      </thead>
      <tbody>
        {data.prices.map((coin) => (
          <tr key={coin.symbol}>
            <th scope="row">
              <span class="code">{coin.symbol}</span> {coin.name !== coin.symbol && <span class="name">{coin.name}</span>}
            </th>
            <td class="number">{format.amount(coin.priceUsd)}</td>
            <td class="number">
              <ChangeMark percent={coin.changePercent24h} t={t} format={format} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One row per karat: ounce and gram in USD, and the gram in SYP at the effective USD rate (from the API). */
export function Gold({ data, t, format }: Common & { data: GoldPrices }) {
  const karats = [...new Set(data.prices.map((price) => price.karat))].sort((left, right) => right - left);
  if (karats.length === 0) return <p>{t.noData}</p>;
  const find = (unit: 'ounce' | 'gram', karat: number) => data.prices.find((price) => price.unit === unit && price.karat === karat);
  return (
    <table class="compact" data-testid="gold">
      <caption class="visually-hidden">{t.gold}</caption>
      <thead>
        <tr>
          <th scope="col">{t.gold}</th>
          <th scope="col">{t.perOunce}</th>
          <th scope="col">{t.perGram}</th>
          <th scope="col">{t.gramInSyp}</th>
          <th scope="col">{t.change24h}</th>
        </tr>
      </thead>
      <tbody>
        {karats.map((karat) => {
          const ounce = find('ounce', karat);
          const gram = find('gram', karat);
          const syp = gram?.pricePerGramSyp ?? ounce?.pricePerGramSyp ?? null;
          return (
            <tr key={karat}>
              <th scope="row">{fill(t.karat, { karat: format.whole(karat) })}</th>
              <td class="number">{ounce ? format.amount(ounce.priceUsd) : '—'}</td>
              <td class="number">{gram ? format.amount(gram.priceUsd) : '—'}</td>
              <td class="number">{syp === null ? '—' : format.amount(syp)}</td>
              <td class="number">
                <ChangeMark percent={(ounce ?? gram)?.changePercent24h ?? null} t={t} format={format} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
