ALTER TABLE "identity"."portal_sessions" ADD COLUMN "last_seen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "identity"."portal_sessions" ADD COLUMN "user_agent" text;--> statement-breakpoint
ALTER TABLE "identity"."portal_sessions" ADD COLUMN "ip_address" text;--> statement-breakpoint
CREATE INDEX "portal_sessions_user_idx" ON "identity"."portal_sessions" USING btree ("user_id");