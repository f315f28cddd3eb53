import { connect } from 'node:net';

export interface RawExchange {
  /** 0 when the server closed without an answer. */
  status: number;
  /** Lowercase names. */
  headers: Record<string, string>;
  body: string;
  /** From the last byte written to the first byte of the answer (or the close). */
  afterLastWriteMs: number;
  closed: boolean;
}

/**
 * Writes `chunks` on a fresh loopback socket, then stays silent (a cut or stalled client), and
 * resolves with the first answer, read by its Content-Length, or with status 0 if the server closed
 * without one. For tests and benches of the listener's edges, where fetch would not send such bytes.
 */
export function rawExchange(port: number, chunks: (string | Buffer)[], options: { timeoutMs?: number; host?: string } = {}): Promise<RawExchange> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    const socket = connect(port, options.host ?? '127.0.0.1');
    let received = Buffer.alloc(0);
    let lastWrite = Date.now();
    let firstByte = 0;
    let done = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer and no close within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = received.toString('utf8');
      const headEnd = text.indexOf('\r\n\r\n');
      const elapsed = (firstByte || Date.now()) - lastWrite;
      if (headEnd === -1) return resolve({ status: 0, headers: {}, body: text, afterLastWriteMs: elapsed, closed });
      const [statusLine, ...lines] = text.slice(0, headEnd).split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(headEnd + 4), afterLastWriteMs: elapsed, closed });
    };
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
      socket.write('', () => (lastWrite = Date.now()));
    });
    socket.on('data', (chunk: Buffer) => {
      if (firstByte === 0) firstByte = Date.now();
      received = Buffer.concat([received, chunk]);
      const text = received.toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, Math.max(headEnd, 0)))?.[1] ?? -1);
      if (headEnd !== -1 && length >= 0 && received.length >= headEnd + 4 + length) finish(false);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
  });
}
