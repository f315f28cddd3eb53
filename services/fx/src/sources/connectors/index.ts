import { binance } from './binance.js';
import { coinbase } from './coinbase.js';
import { coingecko } from './coingecko.js';
import type { Connector } from './connector.js';
import { goldapi, metalsdev } from './gold.js';
import { kraken } from './kraken.js';

export const CONNECTORS = { binance, kraken, coinbase, coingecko, goldapi, metalsdev } satisfies Record<string, Connector>;
export type ConnectorName = keyof typeof CONNECTORS;
export const CONNECTOR_NAMES = Object.keys(CONNECTORS) as [ConnectorName, ...ConnectorName[]];
/** Crypto exchanges: as `kind: gold` they serve PAXG, one token per fine troy ounce, as a labelled gold proxy. */
export const EXCHANGE_CONNECTORS: readonly ConnectorName[] = ['binance', 'kraken', 'coinbase', 'coingecko'];
