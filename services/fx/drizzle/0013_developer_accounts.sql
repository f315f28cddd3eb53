CREATE TABLE "fx"."developer_accounts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"language" text NOT NULL,
	"plan" text DEFAULT 'Free' NOT NULL,
	"email_verified_utc" timestamp with time zone,
	"failed_sign_ins" integer DEFAULT 0 NOT NULL,
	"failure_window_started_utc" timestamp with time zone,
	"locked_until_utc" timestamp with time zone,
	"created_utc" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fx"."developer_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"purpose" text NOT NULL,
	"expires_utc" timestamp with time zone NOT NULL,
	"used_utc" timestamp with time zone,
	"created_utc" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "fx"."api_clients" ADD COLUMN "account_id" uuid;--> statement-breakpoint
ALTER TABLE "fx"."developer_tokens" ADD CONSTRAINT "developer_tokens_account_id_developer_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "fx"."developer_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "developer_accounts_email_key" ON "fx"."developer_accounts" USING btree ("email");--> statement-breakpoint
CREATE INDEX "developer_tokens_account_idx" ON "fx"."developer_tokens" USING btree ("account_id","purpose");--> statement-breakpoint
ALTER TABLE "fx"."api_clients" ADD CONSTRAINT "api_clients_account_id_developer_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "fx"."developer_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_clients_account_idx" ON "fx"."api_clients" USING btree ("account_id");