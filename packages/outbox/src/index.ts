export { createDeliveryWorker, enqueueDeliveries, notifyWorkers, type AttemptOutcome, type DeliveryWorker, type DeliveryWorkerOptions, type EnqueueDelivery, type SettledDelivery } from './delivery-queue.js';
export { defineDeliveryTable, DELIVERY_STATUSES, type Delivery, type DeliveryStatus, type DeliveryTable } from './delivery-table.js';
export { createJobWorker, enqueueJobs, PermanentJobError, type EnqueueJob, type JobHandler, type JobWorker, type JobWorkerOptions } from './job-queue.js';
export { defineJobTable, JOB_STATUSES, type Job, type JobStatus, type JobTable } from './job-table.js';
export type { AnyDatabase, QueueWorker, QueueWorkerSettings, RecordedOutcome, Transaction } from './leased-queue.js';
export { queueDepth, type QueueDepth } from './queue-depth.js';
export { wakeOnNotify, type Listen } from './wake-on-notify.js';
export { createSignedDeliveryWorker, type DeliverySigningInput, type SealedTarget, type SignedDeliveryWorkerOptions } from './signed-delivery-worker.js';
export { currentTraceparent } from '@svc/telemetry';
