import type { Quote } from '../quotes.js';

export interface ConnectorRequest {
  url: string;
  headers: Record<string, string>;
}

export interface ConnectorContext {
  /** The coins asked for (crypto), or ['PAXG'] for a gold proxy. */
  symbols: readonly string[];
  apiKey?: string | undefined;
  /** Overrides the provider's documented base address (tests, mirrors). */
  baseUrl?: string | undefined;
  fetchedAt: Date;
}

/** A built-in upstream: where to ask, and how its documented payload becomes quotes (zod-validated). */
export interface Connector {
  readonly baseUrl: string;
  readonly defaultSymbols: readonly string[];
  readonly requiresKey: boolean;
  request(context: ConnectorContext): ConnectorRequest;
  /** Throws (a zod error) when the payload is not the documented shape; then nothing is ingested. */
  parse(payload: unknown, context: ConnectorContext): Quote[];
}

export const baseOf = (connector: Connector, context: ConnectorContext) => (context.baseUrl ?? connector.baseUrl).replace(/\/+$/, '');

/** Numbers the providers send as decimal strings. */
export const numericText = (value: string) => Number(value);
