import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

/** The guard test/network-deny.mjs installs in every test process (see vitest.config.ts). */
const BLOCKED = 'NETWORK BLOCKED by test/network-deny.mjs';

function inWorker(code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true });
    worker.once('message', (message: string) => {
      resolve(message);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

describe('network guard', () => {
  it('rejects a fetch to an external host with the guard message', async () => {
    await expect(fetch('https://cdn.jsdelivr.net/npm/@tesseract.js-data/eng/4.0.0/eng.traineddata.gz')).rejects.toThrow(BLOCKED);
  });

  it('refuses DNS look-ups and raw sockets to other hosts, even localhost by name', async () => {
    const dns = await import('node:dns');
    const net = await import('node:net');
    await expect(dns.promises.lookup('example.com')).rejects.toThrow(BLOCKED);
    expect(() => net.connect(443, '93.184.215.14')).toThrow(BLOCKED);
    expect(() => net.connect(80, 'localhost')).toThrow(BLOCKED);
  });

  it('guards worker threads too, where tesseract.js runs', async () => {
    const message = await inWorker(`
      const { parentPort } = require('node:worker_threads');
      fetch('https://example.com').then(() => parentPort.postMessage('fetched'), (error) => parentPort.postMessage(String(error.message)));
    `);
    expect(message).toContain(BLOCKED);
  });

  it('stops tesseract.js fetching its model from the CDN inside its worker thread', async () => {
    const { createWorker, OEM } = await import('tesseract.js');
    // No langPath: tesseract.js would download eng.traineddata from jsdelivr. With an errorHandler
    // createWorker never settles on failure (see src/ocr/recognizer.ts), so the handler reports.
    const failure = await new Promise<string>((resolve) => {
      void createWorker('eng', OEM.LSTM_ONLY, { cacheMethod: 'none', errorHandler: (error: unknown) => resolve(String(error)) }).then(
        async (worker) => {
          await worker.terminate();
          resolve('loaded');
        },
        (error: unknown) => resolve(String(error)),
      );
    });
    expect(failure).toContain(BLOCKED);
  });

  it('still lets a test talk to a server on 127.0.0.1', async () => {
    const http = await import('node:http');
    const server = http.createServer((_request, response) => response.end('local'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const response = await fetch(`http://127.0.0.1:${port}/`);
      expect(await response.text()).toBe('local');
    } finally {
      server.close();
    }
  });
});
