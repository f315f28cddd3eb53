CREATE TABLE "identity"."fraud_signals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"case_id" uuid NOT NULL,
	"type" text NOT NULL,
	"severity" text NOT NULL,
	"detail" text NOT NULL,
	"detected_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."review_decisions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"case_id" uuid NOT NULL,
	"reviewer_id" uuid NOT NULL,
	"decision" text NOT NULL,
	"reason" text NOT NULL,
	"decided_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."staff_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token_hash" text NOT NULL,
	"staff_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "identity"."staff_users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "identity"."ocr_results" ADD COLUMN "tenant_id" uuid NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."ocr_results" ADD COLUMN "document_number" text;--> statement-breakpoint
ALTER TABLE "identity"."tenants" ADD COLUMN "sandbox" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."verification_cases" ADD COLUMN "sandbox" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."fraud_signals" ADD CONSTRAINT "fraud_signals_case_id_verification_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "identity"."verification_cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."review_decisions" ADD CONSTRAINT "review_decisions_case_id_verification_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "identity"."verification_cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."review_decisions" ADD CONSTRAINT "review_decisions_reviewer_id_staff_users_id_fk" FOREIGN KEY ("reviewer_id") REFERENCES "identity"."staff_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."staff_sessions" ADD CONSTRAINT "staff_sessions_staff_id_staff_users_id_fk" FOREIGN KEY ("staff_id") REFERENCES "identity"."staff_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "fraud_signals_case_idx" ON "identity"."fraud_signals" USING btree ("case_id","detected_at");--> statement-breakpoint
CREATE INDEX "review_decisions_case_idx" ON "identity"."review_decisions" USING btree ("case_id","decided_at");--> statement-breakpoint
CREATE UNIQUE INDEX "staff_sessions_token_hash_key" ON "identity"."staff_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "staff_users_email_key" ON "identity"."staff_users" USING btree ("email");--> statement-breakpoint
CREATE INDEX "ocr_results_document_number_idx" ON "identity"."ocr_results" USING btree ("tenant_id","document_number");--> statement-breakpoint
CREATE INDEX "verification_cases_status_created_idx" ON "identity"."verification_cases" USING btree ("status","created_at","id");