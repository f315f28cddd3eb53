CREATE TABLE "fx"."manual_overrides" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"currency" text NOT NULL,
	"buy" numeric NOT NULL,
	"sell" numeric NOT NULL,
	"mid" numeric NOT NULL,
	"set_by" text NOT NULL,
	"reason" text NOT NULL,
	"active_from" timestamp with time zone NOT NULL,
	"active_to" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "fx"."outbox_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"topic" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"processed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "fx"."rate_observations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"source" text NOT NULL,
	"currency" text NOT NULL,
	"buy" numeric NOT NULL,
	"sell" numeric NOT NULL,
	"mid" numeric NOT NULL,
	"observed_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "manual_overrides_currency_idx" ON "fx"."manual_overrides" USING btree ("currency","active_from");--> statement-breakpoint
CREATE INDEX "outbox_events_unprocessed_idx" ON "fx"."outbox_events" USING btree ("id") WHERE "fx"."outbox_events"."processed_at" is null;--> statement-breakpoint
CREATE INDEX "rate_observations_currency_source_observed_idx" ON "fx"."rate_observations" USING btree ("currency","source","observed_at");