CREATE TABLE "fx"."stream_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "stream_events_created_at_idx" ON "fx"."stream_events" USING btree ("created_at");