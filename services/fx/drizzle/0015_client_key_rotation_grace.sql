ALTER TABLE "fx"."api_clients" ADD COLUMN "previous_private_key_hash" text;--> statement-breakpoint
ALTER TABLE "fx"."api_clients" ADD COLUMN "previous_key_expires_utc" timestamp with time zone;