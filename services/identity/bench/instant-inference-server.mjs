// An instant stand-in for the three inference endpoints of CHECKS_PROVIDER=http (see
// src/domain/checks/http-provider.ts), for services/identity/bench/checks.mjs: each POST is
// drained (the multipart evidence is read to its end and dropped, nothing is parsed) and answered
// at once with a healthy JSON answer that approves:
//   POST /ocr         {modelName, modelVersion, confidenceScore: 0.97, fields: {documentNumber}, hasManipulationIndicators: false}
//                     (documentNumber unique per request, so no case looks like a reused document)
//   POST /face-match  {modelName, modelVersion, similarityScore: 0.94}
//   POST /liveness    {modelName, modelVersion, livenessScore: 0.96, presentationAttackDetected: false, attackType: null}
//   GET  /stats       {ocr, faceMatch, liveness, bytes}: requests answered and request bytes drained
// Plain node:http, no framework, in a process of its own (so the workers measure against a server
// that costs next to nothing and shares no event loop with them).
// Usage: node services/identity/bench/instant-inference-server.mjs
// Listens on a free loopback port and prints {"port":…} as its first stdout line. It stops on
// SIGTERM/SIGINT, and when its stdin closes (the parent that started it has gone away):
// helper-server.mjs, shared with webhook-receiver.mjs.
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { serveForParent } from './helper-server.mjs';

const MODEL = { modelName: 'bench-instant', modelVersion: '1' };
const counts = { ocr: 0, faceMatch: 0, liveness: 0, bytes: 0 };
let documentNumbers = 0;

const answers = {
  '/ocr': () => {
    counts.ocr += 1;
    documentNumbers += 1;
    return { ...MODEL, confidenceScore: 0.97, fields: { documentNumber: `B${process.pid}N${documentNumbers}` }, hasManipulationIndicators: false };
  },
  '/face-match': () => {
    counts.faceMatch += 1;
    return { ...MODEL, similarityScore: 0.94 };
  },
  '/liveness': () => {
    counts.liveness += 1;
    return { ...MODEL, livenessScore: 0.96, presentationAttackDetected: false, attackType: null };
  },
};

function send(response, status, body) {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

const server = createServer((request, response) => {
  const path = request.url?.split('?')[0] ?? '';
  if (request.method === 'GET' && path === '/stats') {
    send(response, 200, counts);
    return;
  }
  const answer = request.method === 'POST' ? answers[path] : undefined;
  if (!answer) {
    request.resume();
    send(response, 404, { error: `no route ${request.method} ${path}` });
    return;
  }
  // The whole upload is read before answering, as a real inference server must.
  request.on('data', (chunk) => (counts.bytes += chunk.length));
  request.once('end', () => send(response, 200, answer()));
  request.once('error', () => response.destroy());
});
server.keepAliveTimeout = 60_000;

serveForParent(server);
