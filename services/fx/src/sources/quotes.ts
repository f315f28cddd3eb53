/** One source's price for one served price, before combination. */
export interface Quote {
  /** The served price it is for: `crypto:BTC`, `gold:XAU` (fine troy ounce), `rates:MARKET:USD`. */
  key: string;
  /** Crypto and gold: the price; rates: the mid. */
  value: number;
  /** A USDT price becomes USD only through a USDT/USD price of another source (see combine.ts). */
  denomination: 'USD' | 'USDT';
  buy?: number;
  sell?: number;
  name?: string;
  /** As the provider reports it; informational (sources:test): served changes come from stored history. */
  changePercent24h?: number;
  observedAt: Date;
  /** A stand-in for the price (PAXG for gold), labelled as such. */
  proxy?: boolean;
}

export const cryptoKey = (symbol: string) => `crypto:${symbol}`;
export const GOLD_KEY = 'gold:XAU';
export const rateKey = (source: string, currency: string) => `rates:${source}:${currency}`;

/** Names for the coins connectors know; any other symbol is named by itself. */
export const COIN_NAMES: Record<string, string> = {
  BTC: 'Bitcoin',
  ETH: 'Ethereum',
  USDT: 'Tether',
  BNB: 'BNB',
  SOL: 'Solana',
  XRP: 'XRP',
  PAXG: 'PAX Gold',
};

/** Epoch seconds or milliseconds as a Date; undefined for anything else. */
export function dateFromEpoch(value: number | undefined): Date | undefined {
  if (value === undefined || !Number.isFinite(value) || value <= 0) return undefined;
  return new Date(value < 1e12 ? value * 1000 : value);
}
