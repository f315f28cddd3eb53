import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { CONNECTOR_NAMES, CONNECTORS, EXCHANGE_CONNECTORS } from './connectors/index.js';
import { RATE_SOURCES } from '../domain/rates/rate-types.js';

/** A problem in the sources file; the message names the file and the line. */
export class SourcesFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourcesFileError';
  }
}

const jsonPath = z.string().trim().startsWith('$', 'must be a JSONPath starting with $');
const positiveSeconds = z.number().int().positive();

const mappingSchema = z.strictObject({
  /** One record per price; default: the whole payload is one record ($), or every row for CSV. */
  items: jsonPath.optional(),
  symbol: jsonPath.optional(),
  name: jsonPath.optional(),
  priceUsd: jsonPath.optional(),
  currency: jsonPath.optional(),
  buy: jsonPath.optional(),
  sell: jsonPath.optional(),
  mid: jsonPath.optional(),
  timestampUtc: jsonPath.optional(),
});
export type SourceMapping = z.infer<typeof mappingSchema>;

const sourceSchema = z
  .strictObject({
    name: z.string().trim().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'must be 1-63 lowercase letters, digits, dots, dashes or underscores'),
    kind: z.enum(['rates', 'crypto', 'gold']),
    /** A built-in connector instead of url + mapping. With kind gold, a crypto exchange means its PAXG price (a proxy). */
    connector: z.enum(CONNECTOR_NAMES).optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    /** A connector's base address instead of the provider's (a mirror, or a local fixture server). */
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
    intervalSeconds: positiveSeconds.min(5).default(60),
    format: z.enum(['json', 'csv']).default('json'),
    /** Header values may only be ${ENV_VAR} references (or contain them): secrets never live in the file. */
    headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, 'must be a header name'), z.string()).default({}),
    mapping: mappingSchema.optional(),
    /** Rates only: which published rate these quotes are. */
    rateSource: z.enum(RATE_SOURCES).optional(),
    /** Crypto connectors: the coins to ask for (default BTC, ETH, USDT, BNB, SOL where the source has them). */
    symbols: z.array(z.string().regex(/^[A-Z0-9]{2,10}$/, 'must be an upper-case coin symbol')).min(1).optional(),
    /** Keyed connectors (coingecko, goldapi, metalsdev): the environment variable holding the key. */
    apiKeyEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name').optional(),
    /** Overrides aggregation.maxAgeSeconds for this source's quotes. */
    maxAgeSeconds: positiveSeconds.optional(),
  })
  .superRefine((source, context) => {
    if (source.connector) {
      if (source.url || source.mapping) context.addIssue({ code: 'custom', path: ['connector'], message: 'a connector entry takes no url or mapping' });
      if (source.kind === 'rates') context.addIssue({ code: 'custom', path: ['kind'], message: 'no built-in connector serves rates; use url and mapping' });
      const exchange = EXCHANGE_CONNECTORS.includes(source.connector);
      if (source.kind === 'crypto' && !exchange) context.addIssue({ code: 'custom', path: ['connector'], message: `${source.connector} serves gold, not crypto` });
      if (CONNECTORS[source.connector].requiresKey && !source.apiKeyEnv) context.addIssue({ code: 'custom', path: ['connector'], message: `${source.connector} needs apiKeyEnv (the variable holding its key)` });
      return;
    }
    if (!source.url) context.addIssue({ code: 'custom', path: ['url'], message: 'required without a connector' });
    if (!source.mapping) return context.addIssue({ code: 'custom', path: ['mapping'], message: 'required without a connector' });
    const needed = { crypto: ['symbol', 'priceUsd'], gold: ['priceUsd'], rates: ['currency', 'buy', 'sell'] }[source.kind] as (keyof SourceMapping)[];
    for (const field of needed) if (!source.mapping[field]) context.addIssue({ code: 'custom', path: ['mapping', field], message: `required for kind ${source.kind}` });
    if (source.kind === 'rates' && !source.rateSource) context.addIssue({ code: 'custom', path: ['rateSource'], message: 'required for kind rates (CBS or MARKET)' });
  });

const fileSchema = z.strictObject({
  sources: z.array(sourceSchema).min(1),
  aggregation: z
    .strictObject({
      maxDeviationPercent: z.number().positive().max(100).default(5),
      maxAgeSeconds: positiveSeconds.default(600),
    })
    .default({ maxDeviationPercent: 5, maxAgeSeconds: 600 }),
});

export type SourceDefinition = z.infer<typeof sourceSchema>;
export type SourcesFile = z.infer<typeof fileSchema>;

/** A source as it runs: headers with their ${ENV} values filled in, the key read. */
export interface ResolvedSource extends SourceDefinition {
  resolvedHeaders: Record<string, string>;
  apiKey?: string;
}

export interface ResolvedSources {
  sources: ResolvedSource[];
  aggregation: SourcesFile['aggregation'];
}

const ENV_REFERENCE = /\$\{([A-Z_][A-Z0-9_]*)\}/g;

/** Parses and validates a sources file's text (YAML, of which JSON is a subset). */
export function parseSourcesFile(text: string, fileName: string, env: Record<string, string | undefined>): ResolvedSources {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  const lineOf = (offset: number) => lineCounter.linePos(offset).line;
  const syntax = document.errors[0];
  if (syntax) throw new SourcesFileError(`${fileName} line ${lineOf(syntax.pos[0])}: ${syntax.message.split('\n')[0]}`);
  const parsed = fileSchema.safeParse(document.toJS());
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? []).filter((key): key is string | number => typeof key !== 'symbol');
    // The node at the issue's path, or its nearest existing parent (a missing key is reported where its map is).
    let line = 1;
    for (let depth = path.length; depth >= 0; depth -= 1) {
      const node = document.getIn(path.slice(0, depth), true) as { range?: [number, number, number] } | undefined;
      if (node?.range) {
        line = lineOf(node.range[0]);
        break;
      }
    }
    throw new SourcesFileError(`${fileName} line ${line}: ${path.length > 0 ? path.join('.') : 'file'} ${issue?.message ?? 'is invalid'}`);
  }
  const names = new Set<string>();
  const sources = parsed.data.sources.map((source, index) => {
    const at = () => lineOf((document.getIn(['sources', index], true) as { range: [number, number, number] }).range[0]);
    if (names.has(source.name)) throw new SourcesFileError(`${fileName} line ${at()}: sources.${index}.name ${source.name} is used twice`);
    names.add(source.name);
    const resolvedHeaders: Record<string, string> = {};
    for (const [header, value] of Object.entries(source.headers)) {
      const references = [...value.matchAll(ENV_REFERENCE)];
      if (references.length === 0) throw new SourcesFileError(`${fileName} line ${at()}: sources.${index}.headers.${header} must take its value from the environment ("\${VAR}"), never from the file`);
      resolvedHeaders[header] = value.replace(ENV_REFERENCE, (_match, variable: string) => {
        const found = env[variable];
        if (found === undefined || found === '') throw new SourcesFileError(`${fileName} line ${at()}: sources.${index}.headers.${header} needs the environment variable ${variable}, which is not set`);
        return found;
      });
    }
    let apiKey: string | undefined;
    if (source.apiKeyEnv) {
      apiKey = env[source.apiKeyEnv];
      if (!apiKey) throw new SourcesFileError(`${fileName} line ${at()}: sources.${index}.apiKeyEnv names ${source.apiKeyEnv}, which is not set`);
    }
    return { ...source, resolvedHeaders, ...(apiKey ? { apiKey } : {}) };
  });
  return { sources, aggregation: parsed.data.aggregation };
}

export async function loadSourcesFile(path: string, env: Record<string, string | undefined>): Promise<ResolvedSources> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new SourcesFileError(`FX_SOURCES_FILE ${path}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  });
  return parseSourcesFile(text, path, env);
}
