ALTER TABLE "identity"."jobs" ADD COLUMN "traceparent" text;--> statement-breakpoint
ALTER TABLE "identity"."webhook_deliveries" ADD COLUMN "traceparent" text;