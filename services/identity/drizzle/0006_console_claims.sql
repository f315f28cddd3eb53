CREATE TABLE "identity"."case_claims" (
	"case_id" uuid PRIMARY KEY NOT NULL,
	"staff_id" uuid NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "identity"."review_decisions" ADD COLUMN "reason_code" text;--> statement-breakpoint
ALTER TABLE "identity"."staff_sessions" ADD COLUMN "last_seen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "identity"."case_claims" ADD CONSTRAINT "case_claims_case_id_verification_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "identity"."verification_cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."case_claims" ADD CONSTRAINT "case_claims_staff_id_staff_users_id_fk" FOREIGN KEY ("staff_id") REFERENCES "identity"."staff_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "review_decisions_reviewer_idx" ON "identity"."review_decisions" USING btree ("reviewer_id","decided_at");