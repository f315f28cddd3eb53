CREATE TABLE "identity"."webauthn_challenges" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"challenge_hash" text NOT NULL,
	"purpose" text NOT NULL,
	"account" text,
	"pending_sign_in_id" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "identity"."second_factors" ADD COLUMN "credential_id" text;--> statement-breakpoint
ALTER TABLE "identity"."second_factors" ADD COLUMN "public_key" text;--> statement-breakpoint
ALTER TABLE "identity"."second_factors" ADD COLUMN "sign_count" bigint;--> statement-breakpoint
ALTER TABLE "identity"."second_factors" ADD COLUMN "transports" text;--> statement-breakpoint
ALTER TABLE "identity"."second_factors" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "identity"."webauthn_challenges" ADD CONSTRAINT "webauthn_challenges_pending_sign_in_id_pending_sign_ins_id_fk" FOREIGN KEY ("pending_sign_in_id") REFERENCES "identity"."pending_sign_ins"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webauthn_challenges_hash_key" ON "identity"."webauthn_challenges" USING btree ("challenge_hash");--> statement-breakpoint
CREATE INDEX "webauthn_challenges_expires_idx" ON "identity"."webauthn_challenges" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "second_factors_credential_id_key" ON "identity"."second_factors" USING btree ("credential_id");