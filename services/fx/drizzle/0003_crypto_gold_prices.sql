CREATE TABLE "fx"."crypto_prices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"symbol" text NOT NULL,
	"name" text NOT NULL,
	"price_usd" numeric NOT NULL,
	"change_24h" numeric,
	"change_percent_24h" numeric,
	"observed_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fx"."gold_prices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"unit" text NOT NULL,
	"karat" integer NOT NULL,
	"price_usd" numeric NOT NULL,
	"change_24h" numeric,
	"change_percent_24h" numeric,
	"observed_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "crypto_prices_symbol_observed_idx" ON "fx"."crypto_prices" USING btree ("symbol","observed_at");--> statement-breakpoint
CREATE INDEX "gold_prices_unit_karat_observed_idx" ON "fx"."gold_prices" USING btree ("unit","karat","observed_at");