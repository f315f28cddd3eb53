CREATE TABLE "identity"."webhook_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"topic" text NOT NULL,
	"subscription_id" uuid NOT NULL,
	"subject_id" uuid,
	"payload" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"lease_expires_at" timestamp with time zone,
	"last_error" text,
	"last_attempt_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	"last_status_code" integer
);
--> statement-breakpoint
CREATE TABLE "identity"."webhook_endpoints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"url" text NOT NULL,
	"event_types" text[] NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"signing_secret_sealed" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "identity"."case_events_undispatched_idx";--> statement-breakpoint
ALTER TABLE "identity"."webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "identity"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "identity"."webhook_deliveries" USING btree ("status","next_attempt_at") WHERE "identity"."webhook_deliveries"."status" in ('pending', 'in_flight');--> statement-breakpoint
CREATE INDEX "webhook_deliveries_subscription_idx" ON "identity"."webhook_deliveries" USING btree ("subscription_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_finished_idx" ON "identity"."webhook_deliveries" USING btree ("completed_at") WHERE "identity"."webhook_deliveries"."status" in ('succeeded', 'failed');--> statement-breakpoint
CREATE INDEX "webhook_endpoints_tenant_idx" ON "identity"."webhook_endpoints" USING btree ("tenant_id","created_at");--> statement-breakpoint
ALTER TABLE "identity"."case_events" DROP COLUMN "dispatched_at";