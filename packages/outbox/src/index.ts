export { createDeliveryWorker, enqueueDeliveries, type AttemptOutcome, type DeliveryWorker, type DeliveryWorkerOptions, type EnqueueDelivery, type SettledDelivery } from './delivery-queue.js';
export { defineDeliveryTable, DELIVERY_STATUSES, type Delivery, type DeliveryStatus, type DeliveryTable } from './delivery-table.js';
