import { ProblemError, problemDocumentSchema, ValidationError } from '@svc/problem-json';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { FxExecutor } from '../db/executor.js';
import type { LimitsConfiguration } from '../domain/limits/plans.js';
import { sseFrame, STREAM_SOURCES, type StreamFilter, type StreamSource } from '../domain/live/stream-frames.js';
import type { StreamHub } from '../domain/live/stream-hub.js';
import { loadLatestCrypto, loadLatestGold } from '../domain/prices/latest-prices.js';
import { parseCurrencyList } from '../domain/rates/currencies.js';
import type { Redenomination } from '../domain/rates/history.js';
import { latestRateLists } from '../domain/rates/latest-rates.js';
import { disclaimerFor, negotiateLanguage, RATE_LANGUAGES } from '../i18n/languages.js';
import { publicReadErrors, publicReadSecurity, tooManyRequestsSchema } from './openapi.js';

export interface StreamRouteOptions {
  db: FxExecutor;
  hub: StreamHub;
  clock: () => Date;
  redenomination: Redenomination;
  limits: LimitsConfiguration;
  maxStreamsPerIp: number;
}

function parseSources(value: string | undefined): Set<StreamSource> {
  if (value === undefined) return new Set(STREAM_SOURCES);
  const sources = new Set<StreamSource>();
  for (const item of value.split(',').map((part) => part.trim())) {
    const source = STREAM_SOURCES.find((known) => known.toLowerCase() === item.toLowerCase());
    if (!source) throw new ValidationError(`Unknown source: ${item}.`, [{ path: 'query.sources', message: `must be a comma-separated list of ${STREAM_SOURCES.join(', ')}` }]);
    sources.add(source);
  }
  return sources;
}

/** Who holds the streams: the key for a keyed call (its plan's allowance), else the client IP. */
function streamOwner(request: FastifyRequest, options: StreamRouteOptions): { owner: string; limit: number } {
  const client = request.apiClient;
  if (!client) return { owner: `ip:${request.ip}`, limit: options.maxStreamsPerIp };
  const plan = options.limits.plans.find((candidate) => candidate.name === client.plan);
  return { owner: `key:${client.id}`, limit: plan?.maxStreams ?? options.maxStreamsPerIp };
}

class TooManyStreamsError extends ProblemError {
  constructor(limit: number) {
    super({ status: 429, code: 'TOO_MANY_STREAMS', title: 'Too Many Streams', detail: `At most ${limit} streams may be open at once; close one first, or poll /rates/latest.`, extensions: { limit } });
  }
}

export const streamRoutes: FastifyPluginAsync<StreamRouteOptions> = async (app, options) => {
  // Streams opening at the same moment share one snapshot per filter until the next change.
  let snapshots = { id: -1, frames: new Map<string, Promise<string>>() };

  async function openingFrames(filter: StreamFilter, snapshotId: number): Promise<string> {
    const now = options.clock();
    const disclaimer = disclaimerFor(filter.language);
    const lists = await latestRateLists(options.db, now, options.redenomination, filter.currencies);
    let text = sseFrame(snapshotId, 'snapshot', JSON.stringify({ disclaimer, timestampUtc: now.toISOString(), ...lists }));
    if (filter.sources.has('crypto')) text += sseFrame(snapshotId, 'crypto', JSON.stringify({ disclaimer, timestampUtc: now.toISOString(), prices: await loadLatestCrypto(options.db) }));
    if (filter.sources.has('gold')) text += sseFrame(snapshotId, 'gold', JSON.stringify({ disclaimer, timestampUtc: now.toISOString(), prices: await loadLatestGold(options.db, filter.language, now) }));
    return text;
  }

  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/v1/rates/stream',
    {
      schema: {
        operationId: 'streamRates',
        summary: 'Live rates, crypto and gold prices over Server-Sent Events',
        description: [
          'The first event is `snapshot`, exactly the /rates/latest body for the same currencies and lang (followed by `crypto` and `gold` with their endpoints\' full bodies when those sources are asked for);',
          'then one `rates` event per change holding only the changed entries, and `crypto` / `gold` events in their endpoints\' shapes. Every event has an `id:`;',
          'reconnecting with Last-Event-ID replays the changes missed in the last 10 minutes or more, else sends a fresh snapshot. A comment heartbeat every 15 s.',
          'Opening a stream counts as one request against the caller\'s limits; at most 5 streams per IP (per key: by plan) at once.',
        ].join(' '),
        tags: ['rates'],
        security: publicReadSecurity,
        querystring: z.strictObject({
          currencies: z.string().optional().describe('comma-separated ISO 4217 codes'),
          lang: z.string().optional().describe('ar (default), en, de, tr, ku (Sorani), kmr (Kurmanji); else Accept-Language'),
          sources: z.string().optional().describe(`comma-separated, any of ${STREAM_SOURCES.join(', ')}; default all`),
        }),
        headers: z.object({ 'last-event-id': z.string().optional().describe('the id of the last event received, to resume') }),
        response: {
          200: { description: 'An endless text/event-stream', content: { 'text/event-stream': { schema: z.any().meta({ type: 'string' }) } } },
          ...publicReadErrors('An unsupported currency or source, or an unknown query parameter'),
          429: z.union([tooManyRequestsSchema, problemDocumentSchema]).describe('Rate limit exceeded, or TOO_MANY_STREAMS: the caller holds its maximum of open streams'),
        },
      },
    },
    async (request, reply) => {
      const language = negotiateLanguage(request.query.lang, request.headers['accept-language'], RATE_LANGUAGES);
      const currencies = request.query.currencies === undefined ? null : parseCurrencyList(request.query.currencies, 'query.currencies').sort();
      const filter: StreamFilter = { language, currencies, sources: parseSources(request.query.sources) };
      const { owner, limit } = streamOwner(request, options);
      if (!options.hub.reserve(owner, limit)) throw new TooManyStreamsError(limit);

      reply.hijack();
      const response = reply.raw;
      // The headers set so far (rate limit, CORS, request id) go out with the stream's own.
      const headers = Object.fromEntries(Object.entries(reply.getHeaders()).filter((entry): entry is [string, string | number | string[]] => entry[1] !== undefined));
      response.writeHead(200, {
        ...headers,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        // Proxies such as nginx would otherwise hold events back in their buffers.
        'x-accel-buffering': 'no',
      });
      response.socket?.setNoDelay(true);
      let detach: (() => void) | null = null;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        detach?.();
        options.hub.release(owner);
      };
      response.on('close', release);
      try {
        detach = await options.hub.attach(
          {
            write: (chunk) => void response.write(chunk),
            bufferedBytes: () => response.writableLength,
            end: (text) => response.end(text),
            destroy: () => response.destroy(),
          },
          filter,
          request.headers['last-event-id'],
          (snapshotId) => {
            if (snapshots.id !== snapshotId) snapshots = { id: snapshotId, frames: new Map() };
            const key = `${filter.language}|${filter.currencies?.join(',') ?? '*'}|${filter.sources.has('crypto')}|${filter.sources.has('gold')}`;
            let frames = snapshots.frames.get(key);
            if (!frames) {
              frames = openingFrames(filter, snapshotId);
              snapshots.frames.set(key, frames);
              frames.catch(() => snapshots.frames.delete(key));
            }
            return frames;
          },
        );
        if (released) detach();
      } catch (error) {
        request.log.warn({ err: error }, 'opening a stream failed');
        release();
        response.destroy();
      }
    },
  );
};
