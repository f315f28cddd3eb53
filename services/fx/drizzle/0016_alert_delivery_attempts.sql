CREATE TABLE "fx"."alert_delivery_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"alert_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"attempted_utc" timestamp with time zone NOT NULL,
	"status_code" integer NOT NULL,
	"latency_ms" integer,
	"error" text
);
--> statement-breakpoint
ALTER TABLE "fx"."alert_delivery_attempts" ADD CONSTRAINT "alert_delivery_attempts_alert_id_rate_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "fx"."rate_alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_delivery_attempts_alert_idx" ON "fx"."alert_delivery_attempts" USING btree ("alert_id","id");