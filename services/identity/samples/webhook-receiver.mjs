// A webhook receiver to try identity's events locally (README, "Using identity"). It verifies each
// delivery over the raw body before parsing it, as every receiver must, and prints one line each.
//   WEBHOOK_SECRET=whsec_… node services/identity/samples/webhook-receiver.mjs   (after pnpm build)
// PORT (default 4000). Identity must run with WEBHOOK_ALLOW_PRIVATE_TARGETS=true to reach it:
// development only. Answers 204 to a valid delivery and 400 to anything else.
import { createServer } from 'node:http';
import { verifyIdentityWebhook } from '@svc/webhook-signing';

const secret = process.env.WEBHOOK_SECRET;
if (!secret?.startsWith('whsec_')) {
  console.error('webhook-receiver: set WEBHOOK_SECRET to the signingSecret from POST /webhooks');
  process.exit(1);
}
const port = Number(process.env.PORT ?? 4000);
const seen = new Set();

createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const rawBody = Buffer.concat(chunks);
    const result = verifyIdentityWebhook({ secret, headers: request.headers, rawBody });
    if (!result.ok) {
      console.log(`✗ refused (${result.reason}): ${result.message}`);
      response.writeHead(400).end();
      return;
    }
    const event = JSON.parse(rawBody.toString('utf8'));
    // At least once: a retry or a recovered delivery may repeat an event; its eventId says so.
    const repeat = seen.has(event.eventId) ? ' (repeat, ignored)' : '';
    seen.add(event.eventId);
    const attempt = request.headers['x-service-delivery-attempt'];
    console.log(`✓ ${event.eventType} ${event.eventId} case ${event.data?.caseId ?? '-'} status ${event.data?.status ?? '-'} attempt ${attempt}${repeat}`);
    response.writeHead(204).end();
  });
}).listen(port, '127.0.0.1', () => console.log(`webhook-receiver: listening on http://127.0.0.1:${port}/`));
