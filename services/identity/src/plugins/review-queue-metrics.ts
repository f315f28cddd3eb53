import type { ServiceMetrics } from '@svc/service-kit';
import { Gauge } from 'prom-client';
import type { IdentityExecutor } from '../db/schema.js';
import { oldestWaitingSeconds, reviewQueueDepth } from '../domain/review/review-queue.js';

/**
 * The manual review queue at scrape time: its depth beside the job and webhook queues
 * (queue_depth{queue="review"}), and how long the oldest case has waited for a person, the
 * figure a review team is paged on. Read on scrape, never on a request's path.
 */
export function watchReviewQueue(metrics: ServiceMetrics, db: IdentityExecutor, clock: () => Date): void {
  metrics.watchQueue('review', () => reviewQueueDepth(db, clock()));
  new Gauge({
    name: 'review_queue_oldest_seconds',
    help: 'How long the oldest case in PendingManualReview has waited for a reviewer (0 when none waits).',
    registers: [metrics.registry],
    async collect() {
      this.set(await oldestWaitingSeconds(db, clock()));
    },
  });
}
