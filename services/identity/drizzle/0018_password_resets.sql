CREATE TABLE "identity"."password_resets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"realm" text NOT NULL,
	"email" text NOT NULL,
	"ip_address" text,
	"account" text,
	"token_hash" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "password_resets_token_key" ON "identity"."password_resets" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "password_resets_email_idx" ON "identity"."password_resets" USING btree ("email","created_at");--> statement-breakpoint
CREATE INDEX "password_resets_ip_idx" ON "identity"."password_resets" USING btree ("ip_address","created_at");