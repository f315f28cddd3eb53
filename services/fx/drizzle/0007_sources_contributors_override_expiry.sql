ALTER TABLE "fx"."crypto_prices" ADD COLUMN "contributors" jsonb;--> statement-breakpoint
ALTER TABLE "fx"."gold_prices" ADD COLUMN "contributors" jsonb;--> statement-breakpoint
ALTER TABLE "fx"."manual_overrides" ADD COLUMN "end_announced_at" timestamp with time zone;--> statement-breakpoint
-- Overrides ended before this column existed were announced when they were removed.
UPDATE "fx"."manual_overrides" SET "end_announced_at" = "active_to" WHERE "active_to" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "fx"."rate_observations" ADD COLUMN "contributors" jsonb;--> statement-breakpoint
CREATE INDEX "manual_overrides_unannounced_end_idx" ON "fx"."manual_overrides" USING btree ("active_to") WHERE "fx"."manual_overrides"."active_to" is not null and "fx"."manual_overrides"."end_announced_at" is null;