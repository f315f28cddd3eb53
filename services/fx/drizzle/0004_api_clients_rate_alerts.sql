CREATE TABLE "fx"."alert_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"topic" text NOT NULL,
	"subscription_id" uuid NOT NULL,
	"payload" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"lease_expires_at" timestamp with time zone,
	"last_status_code" integer,
	"last_error" text,
	"last_attempt_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "fx"."api_clients" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"plan" text NOT NULL,
	"public_key" text NOT NULL,
	"private_key_hash" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_utc" timestamp with time zone NOT NULL,
	"last_used_utc" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "fx"."rate_alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" uuid NOT NULL,
	"webhook_url" text NOT NULL,
	"currency" text NOT NULL,
	"source" text NOT NULL,
	"alert_type" smallint NOT NULL,
	"threshold_value" numeric NOT NULL,
	"label" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"reference_rate" numeric,
	"trigger_level" numeric,
	"primed" boolean DEFAULT true NOT NULL,
	"signing_secret_sealed" text NOT NULL,
	"last_delivery_status_code" integer,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"last_triggered_utc" timestamp with time zone,
	"created_utc" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fx"."usage_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "fx"."rate_alerts" ADD CONSTRAINT "rate_alerts_client_id_api_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "fx"."api_clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_deliveries_due_idx" ON "fx"."alert_deliveries" USING btree ("status","next_attempt_at") WHERE "fx"."alert_deliveries"."status" in ('pending', 'in_flight');--> statement-breakpoint
CREATE INDEX "alert_deliveries_subscription_idx" ON "fx"."alert_deliveries" USING btree ("subscription_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "api_clients_public_key_key" ON "fx"."api_clients" USING btree ("public_key");--> statement-breakpoint
CREATE INDEX "rate_alerts_evaluation_idx" ON "fx"."rate_alerts" USING btree ("currency","source","alert_type","trigger_level") WHERE "fx"."rate_alerts"."is_active";--> statement-breakpoint
CREATE INDEX "rate_alerts_primed_idx" ON "fx"."rate_alerts" USING btree ("currency","source") WHERE "fx"."rate_alerts"."is_active" and "fx"."rate_alerts"."primed";--> statement-breakpoint
CREATE INDEX "rate_alerts_client_idx" ON "fx"."rate_alerts" USING btree ("client_id","created_utc");