CREATE TABLE "fx"."jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
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
	"traceparent" text
);
--> statement-breakpoint
ALTER TABLE "fx"."api_clients" ADD COLUMN "language" text;--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "fx"."jobs" USING btree ("status","next_attempt_at") WHERE "fx"."jobs"."status" in ('pending', 'in_flight');--> statement-breakpoint
CREATE INDEX "jobs_subject_idx" ON "fx"."jobs" USING btree ("subject_id");