CREATE TABLE "identity"."pending_sign_ins" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token_hash" text NOT NULL,
	"account" text NOT NULL,
	"tenant_id" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"used_at" timestamp with time zone,
	"user_agent" text,
	"ip_address" text
);
--> statement-breakpoint
CREATE TABLE "identity"."recovery_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account" text NOT NULL,
	"code_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "identity"."second_factors" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account" text NOT NULL,
	"tenant_id" uuid,
	"kind" text NOT NULL,
	"totp_secret_sealed" text,
	"totp_last_step" bigint,
	"confirmed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "identity"."portal_sessions" ADD COLUMN "enrolment_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."staff_sessions" ADD COLUMN "enrolment_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."tenants" ADD COLUMN "require_second_factor" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."pending_sign_ins" ADD CONSTRAINT "pending_sign_ins_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "identity"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."second_factors" ADD CONSTRAINT "second_factors_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "identity"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "pending_sign_ins_token_hash_key" ON "identity"."pending_sign_ins" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "recovery_codes_account_idx" ON "identity"."recovery_codes" USING btree ("account");--> statement-breakpoint
CREATE UNIQUE INDEX "recovery_codes_hash_key" ON "identity"."recovery_codes" USING btree ("account","code_hash");--> statement-breakpoint
CREATE INDEX "second_factors_account_idx" ON "identity"."second_factors" USING btree ("account");--> statement-breakpoint
CREATE UNIQUE INDEX "second_factors_one_totp_key" ON "identity"."second_factors" USING btree ("account") WHERE kind = 'totp';