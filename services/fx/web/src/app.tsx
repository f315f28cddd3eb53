import { PageHeader } from '@svc/web-ui';
import { useEffect, useState } from 'preact/hooks';
import { getJson, priceLanguage, type CryptoPrices, type FxHealth, type GoldPrices, type LatestRates, type UsdBasedRates } from './api.js';
import { Converter } from './components/converter.js';
import { HistorySection } from './components/history-section.js';
import { applyCryptoChange, applyRatesChange, followLiveRates } from './live-rates.js';
import { CrossRates, Crypto, Gold } from './components/prices.js';
import { orderCurrencies, RatesTable } from './components/rates-table.js';
import { formattersFor } from './i18n/format.js';
import { fill, LANGUAGE_NAMES, LANGUAGES, MESSAGES, RIGHT_TO_LEFT, type Language } from './i18n/messages.js';

export const REFRESH_MS = 60_000;

/** `/` is Arabic; `/{lang}` any of the six. */
export function languageFromPath(pathname: string): Language {
  const segment = pathname.replace(/^\/+|\/+$/g, '');
  return (LANGUAGES as readonly string[]).includes(segment) ? (segment as Language) : 'ar';
}

function applyLanguage(language: Language) {
  document.documentElement.lang = language;
  document.documentElement.dir = RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr';
  document.title = `fx · ${MESSAGES[language].title}`;
}

interface PageData {
  latest: LatestRates | null;
  usd: UsdBasedRates | null;
  crypto: CryptoPrices | null;
  gold: GoldPrices | null;
  health: FxHealth | null;
}

function newestTimestamp(latest: LatestRates): string | null {
  const all = [...latest.cbsRates, ...latest.marketRates].map((rate) => rate.timestampUtc).sort();
  return all[all.length - 1] ?? null;
}

export function App() {
  const [language, setLanguage] = useState<Language>(() => languageFromPath(location.pathname));
  const [data, setData] = useState<PageData>({ latest: null, usd: null, crypto: null, gold: null, health: null });
  const [failed, setFailed] = useState(false);
  const [refreshCount, setRefreshCount] = useState(0);
  const [live, setLive] = useState(false);
  const t = MESSAGES[language];
  const format = formattersFor(language);

  useEffect(() => {
    applyLanguage(language);
    const onPopState = () => setLanguage(languageFromPath(location.pathname));
    window.addEventListener('popstate', onPopState);
    return () => window.removeEventListener('popstate', onPopState);
  }, [language]);

  useEffect(() => {
    let current = true;
    const prices = priceLanguage(language);
    const refresh = async (periodic: boolean) => {
      const [latest, usd, crypto, gold, health] = await Promise.allSettled([
        getJson<LatestRates>(`/api/v1/rates/latest?lang=${language}`),
        getJson<UsdBasedRates>(`/api/v1/rates/usd-based?lang=${language}`),
        getJson<CryptoPrices>(`/api/v1/crypto/latest?lang=${prices}`),
        getJson<GoldPrices>(`/api/v1/gold/latest?lang=${prices}`),
        getJson<FxHealth>('/api/v1/health'),
      ]);
      if (!current) return;
      const value = <T,>(result: PromiseSettledResult<T>, kept: T) => (result.status === 'fulfilled' ? result.value : kept);
      // Unchanged bodies come back as the same objects (ETag 304), so nothing re-renders; failures keep the last data.
      setData((before) => {
        const next = { latest: value(latest, before.latest), usd: value(usd, before.usd), crypto: value(crypto, before.crypto), gold: value(gold, before.gold), health: value(health, before.health) };
        return Object.keys(next).every((key) => next[key as keyof PageData] === before[key as keyof PageData]) ? before : next;
      });
      setFailed(latest.status === 'rejected');
      // The chart fetches its own history on mount; later refreshes tell it to revalidate.
      if (periodic) setRefreshCount((count) => count + 1);
    };
    void refresh(false);
    // Live while the stream is open; polled every minute when it is refused.
    let timer: ReturnType<typeof setInterval> | null = null;
    const poll = () => {
      timer ??= setInterval(() => void refresh(true), REFRESH_MS);
    };
    // Derived figures (USD cross rates, gold in SYP, freshness, the chart) follow a rate change; changes close together share one fetch.
    let pending: ReturnType<typeof setTimeout> | null = null;
    const refreshDerived = () => {
      pending ??= setTimeout(() => {
        pending = null;
        void refresh(true);
      }, 500);
    };
    const stopLive = followLiveRates(language, {
      snapshot: (latest) => current && setData((before) => ({ ...before, latest })),
      rates: (change) => {
        if (!current) return;
        setData((before) => (before.latest ? { ...before, latest: applyRatesChange(before.latest, change) } : before));
        refreshDerived();
      },
      crypto: (change) => current && setData((before) => (before.crypto ? { ...before, crypto: applyCryptoChange(before.crypto, change) } : before)),
      gold: () => current && refreshDerived(),
      live: (isLive) => current && setLive(isLive),
      refused: () => {
        if (!current) return;
        setLive(false);
        poll();
      },
    });
    const onVisible = () => document.visibilityState === 'visible' && timer !== null && void refresh(true);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      current = false;
      stopLive();
      if (timer) clearInterval(timer);
      if (pending) clearTimeout(pending);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [language]);

  const chooseLanguage = (next: Language) => {
    history.pushState(null, '', `/${next}`);
    setLanguage(next);
  };
  const { latest, usd, crypto, gold, health } = data;
  const staleSources = (['CBS', 'MARKET'] as const).filter((source) => health?.checks?.sources?.[source]?.stale === true);
  const dataTime = latest ? newestTimestamp(latest) : null;
  const currencies = latest ? orderCurrencies(latest.effectiveRates.map((rate) => rate.currency)) : [];
  return (
    <>
      <PageHeader
        skipTo="rates-title"
        skipLabel={t.skipToContent}
        title={t.title}
        lead={t.lead}
        language={{ label: t.language, value: language, languages: LANGUAGES, names: LANGUAGE_NAMES, onChange: chooseLanguage }}
      />
      <main>
        <div class="notices">
          {health?.demo && (
            <p class="warning demo" role="status" data-testid="demo-warning">
              {t.demo}
            </p>
          )}
          {staleSources.length > 0 && (
            <p class="warning stale" role="status" data-testid="stale-warning">
              {fill(t.stale, { sources: staleSources.map((source) => (source === 'CBS' ? t.official : t.market)).join(', ') })}
            </p>
          )}
          {failed && (
            <p class="warning" role="status">
              {t.loadFailed}
            </p>
          )}
        </div>
        <section aria-labelledby="rates-title" class="card wide">
          <h2 id="rates-title" tabIndex={-1}>
            {t.latestRates}
            {live && (
              <span class="live" title={t.liveTitle} data-testid="live-indicator">
                {t.live}
              </span>
            )}
          </h2>
          {dataTime && (
            <p class="data-time">
              {t.dataTime} <time dateTime={dataTime}>{format.dateTime(dataTime)}</time>
            </p>
          )}
          {latest ? <RatesTable latest={latest} t={t} format={format} /> : <p class="loading">…</p>}
        </section>
        {latest && <Converter effective={latest.effectiveRates} t={t} format={format} />}
        <section aria-labelledby="gold-title" class="card">
          <h2 id="gold-title">{t.gold}</h2>
          {gold ? <Gold data={gold} t={t} format={format} /> : <p class="loading">…</p>}
        </section>
        <HistorySection currencies={currencies} refreshCount={refreshCount} t={t} format={format} />
        <section aria-labelledby="cross-title" class="card">
          <h2 id="cross-title">{t.crossRates}</h2>
          {usd ? <CrossRates data={usd} t={t} format={format} /> : <p class="loading">…</p>}
        </section>
        <section aria-labelledby="crypto-title" class="card">
          <h2 id="crypto-title">{t.crypto}</h2>
          {crypto ? <Crypto data={crypto} t={t} format={format} /> : <p class="loading">…</p>}
        </section>
      </main>
      <footer class="page-footer">
        {latest && <p class="disclaimer" data-testid="disclaimer">{latest.disclaimer}</p>}
        <p>
          <a href="/api/v1/rates/latest">{t.api}</a> · <a href="/docs">{t.apiDocs}</a>
        </p>
      </footer>
    </>
  );
}
