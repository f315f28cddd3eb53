import { Buffer } from 'node:buffer';
import { protocol, type PGlite, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';
import { tracedQuery } from './query-tracing.js';

const { serialize, messages } = protocol;

type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];

interface Field {
  name: string;
  dataTypeID: number;
}

interface Statement {
  /** '' for the unnamed statement (not kept). */
  name: string;
  paramTypes: number[];
  fields: Field[];
}

/** Named statements kept per database; the least recently used is closed beyond this. */
const MAX_STATEMENTS = 256;

/** Only plannable statements are kept: DDL, SET and savepoints run once and gain nothing. */
const KEEPABLE = /^\s*\(*\s*(select|insert|update|delete|with|values)\b/i;

/**
 * What Drizzle's PGlite driver calls (`query`, `transaction`), answered with the extended protocol
 * the way a PostgreSQL driver speaks it: each SQL text is parsed and described once as a named
 * statement, then every execution is one Bind + Execute + Sync handed to PGlite in a single call.
 * PGlite's own `query()` sends Parse, Describe, Bind, Describe, Execute and Sync as six calls into
 * the WASM and re-parses, re-plans and re-describes the text every time, then copies its whole
 * parser table per result: about 0.6 ms for an indexed select, where this takes about 0.14 ms.
 * Results, parsers, serializers, errors, notifications and the mutexes are PGlite's own.
 */
export class PgliteStatements {
  readonly #client: PGlite;
  readonly #statements = new Map<string, Statement>();
  #nextName = 0;

  constructor(client: PGlite) {
    this.#client = client;
  }

  async query<Row>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<Row>> {
    // A query writing a blob (COPY … TO '/dev/blob') needs PGlite's own bookkeeping.
    if (options?.blob) return this.#client.query<Row>(text, params, options);
    await this.#client._checkReady();
    return tracedQuery(text, 'pglite', () =>
      this.#client._runExclusiveTransaction(() =>
        this.#client._runExclusiveQuery(async () => {
          const results = await this.#run<Row>(text, params, options, true);
          await this.#client.syncToFs();
          return results;
        }),
      ),
    );
  }

  transaction<Result>(callback: (tx: Transaction) => Promise<Result>): Promise<Result> {
    return this.#client.transaction((tx) => callback(this.#inTransaction(tx)));
  }

  /** PGlite's transaction object, its queries taken through the statements (under its query mutex, as its own are). */
  #inTransaction(tx: Transaction): Transaction {
    const query = <Row>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<Row>> => {
      if (tx.closed || options?.blob) return tx.query<Row>(text, params, options); // PGlite's own "Transaction is closed"
      return tracedQuery(text, 'pglite', () => this.#client._runExclusiveQuery(() => this.#run<Row>(text, params ?? [], options, false)));
    };
    return {
      query,
      sql: (strings: TemplateStringsArray, ...params: unknown[]) => tx.sql(strings, ...params),
      exec: (text, options) => tx.exec(text, options),
      rollback: () => tx.rollback(),
      listen: (channel, callback) => tx.listen(channel, callback),
      get closed() {
        return tx.closed;
      },
    };
  }

  async #run<Row>(text: string, params: unknown[], options: QueryOptions | undefined, mayRetry: boolean): Promise<Results<Row>> {
    const statement = this.#kept(text, options) ?? (await this.#prepare(text, options));
    try {
      const reply = await this.#client.execProtocolStream(
        Buffer.concat([serialize.bind({ statement: statement.name, values: this.#values(statement, params, options) }), serialize.execute({}), serialize.sync()]),
        { syncToFs: false, ...(options?.onNotice ? { onNotice: options.onNotice } : {}) },
      );
      return this.#results<Row>(reply, statement.fields, options);
    } catch (error) {
      if (statement.name !== '' && invalidatesStatement(error)) {
        this.#statements.delete(text);
        // Outside a transaction nothing ran: the statement is parsed afresh. Inside one, the
        // error has aborted it, as it would have with PGlite's own path.
        if (mayRetry) return this.#run<Row>(text, params, options, false);
      }
      throw withQuery(error, text, params, options);
    }
  }

  /** The statement kept for this text, if it is one that is kept and has been parsed. */
  #kept(text: string, options: QueryOptions | undefined): Statement | undefined {
    if (options?.paramTypes !== undefined) return undefined;
    const kept = this.#statements.get(text);
    if (kept) {
      // Map order is the recency order: a hit moves to the end.
      this.#statements.delete(text);
      this.#statements.set(text, kept);
    }
    return kept;
  }

  /** A new statement for this text, named and kept when it is plannable: Parse + Describe + Sync in one call. */
  async #prepare(text: string, options: QueryOptions | undefined): Promise<Statement> {
    const keep = options?.paramTypes === undefined && KEEPABLE.test(text);
    const name = keep ? `svc_s${++this.#nextName}` : '';
    const parts: Uint8Array[] = [];
    const oldest = keep && this.#statements.size >= MAX_STATEMENTS ? this.#statements.entries().next().value : undefined;
    if (oldest) {
      parts.push(serialize.close({ type: 'S', name: oldest[1].name }));
      this.#statements.delete(oldest[0]);
    }
    parts.push(serialize.parse({ name, text, ...(options?.paramTypes ? { types: options.paramTypes } : {}) }), serialize.describe({ type: 'S', name }), serialize.sync());
    let reply: BackendMessage[];
    try {
      reply = await this.#client.execProtocolStream(Buffer.concat(parts), { syncToFs: false });
    } catch (error) {
      throw withQuery(error, text, undefined, options);
    }
    let paramTypes: number[] = [];
    let fields: Field[] = [];
    for (const message of reply) {
      if (message instanceof messages.ParameterDescriptionMessage) paramTypes = message.dataTypeIDs;
      else if (message instanceof messages.RowDescriptionMessage) fields = message.fields.map((field) => ({ name: field.name, dataTypeID: field.dataTypeID }));
    }
    const statement = { name, paramTypes, fields };
    if (keep) this.#statements.set(text, statement);
    return statement;
  }

  /** Parameters as PGlite's query() sends them: its serializer for the parameter's type, else text. */
  #values(statement: Statement, params: unknown[], options: QueryOptions | undefined): (string | null)[] {
    return params.map((param, index) => {
      if (param === null || param === undefined) return null;
      const oid = statement.paramTypes[index]!;
      const serializer = options?.serializers?.[oid] ?? this.#client.serializers[oid];
      if (serializer) return serializer(param);
      return (param as { toString(): string }).toString(); // PGlite's own fallback
    });
  }

  /** PGlite's result shape (its parseResults), parsing each value with the query's parser first, then PGlite's. */
  #results<Row>(reply: BackendMessage[], fields: Field[], options: QueryOptions | undefined): Results<Row> {
    const parsers = options?.parsers;
    const clientParsers = this.#client.parsers;
    const parse = fields.map((field) => parsers?.[field.dataTypeID] ?? clientParsers[field.dataTypeID]);
    const asArrays = options?.rowMode === 'array';
    const rows: unknown[] = [];
    let affectedRows = 0;
    let command: string | undefined;
    let rowCount: number | undefined;
    for (const message of reply) {
      if (message instanceof messages.DataRowMessage) {
        const values = message.fields.map((value, index) => {
          if (value === null) return null;
          const parser = parse[index];
          return parser ? (parser(value, fields[index]!.dataTypeID) as unknown) : value;
        });
        rows.push(asArrays ? values : Object.fromEntries(values.map((value, index) => [fields[index]!.name, value])));
      } else if (message instanceof messages.CommandCompleteMessage) {
        const words = message.text.split(' ');
        command = words[0];
        const count = Number.parseInt(words[words.length - 1]!, 10);
        if (command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'COPY' || command === 'MERGE') affectedRows += count;
        if (!Number.isNaN(count)) rowCount = count;
      }
    }
    return {
      rows: rows as Results<Row>['rows'],
      fields,
      affectedRows,
      ...(command === undefined ? {} : { command }),
      ...(rowCount === undefined ? {} : { rowCount }),
    };
  }
}

/** A kept statement the server no longer has, or whose result columns changed under it (DDL). */
function invalidatesStatement(error: unknown): boolean {
  if (!(error instanceof messages.DatabaseError)) return false;
  return error.code === '26000' || (error.code === '0A000' && error.message.includes('cached plan'));
}

/** The error as PGlite's query() throws it: with the query, its parameters and options attached. */
function withQuery(error: unknown, query: string, params: unknown[] | undefined, queryOptions: QueryOptions | undefined): unknown {
  if (error instanceof messages.DatabaseError) Object.assign(error, { query, params, queryOptions });
  return error;
}
