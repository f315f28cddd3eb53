CREATE TABLE "fx"."developer_password_resets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"ip_address" text,
	"account_id" uuid,
	"token_hash" text,
	"created_utc" timestamp with time zone NOT NULL,
	"expires_utc" timestamp with time zone NOT NULL,
	"used_utc" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "fx"."developer_password_resets" ADD CONSTRAINT "developer_password_resets_account_id_developer_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "fx"."developer_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "developer_password_resets_token_key" ON "fx"."developer_password_resets" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "developer_password_resets_email_idx" ON "fx"."developer_password_resets" USING btree ("email","created_utc");--> statement-breakpoint
CREATE INDEX "developer_password_resets_ip_idx" ON "fx"."developer_password_resets" USING btree ("ip_address","created_utc");