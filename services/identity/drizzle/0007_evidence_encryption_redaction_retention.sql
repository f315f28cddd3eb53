ALTER TABLE "identity"."evidence" ADD COLUMN "encryption" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."evidence" ADD COLUMN "data_key_id" text;--> statement-breakpoint
ALTER TABLE "identity"."evidence" ADD COLUMN "sealed_data_key" text;--> statement-breakpoint
ALTER TABLE "identity"."ocr_results" ADD COLUMN "document_number_digest" text;--> statement-breakpoint
ALTER TABLE "identity"."tenants" ADD COLUMN "evidence_retention_days" integer DEFAULT 90 NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."verification_cases" ADD COLUMN "redaction_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "identity"."verification_cases" ADD COLUMN "redacted_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "ocr_results_document_number_digest_idx" ON "identity"."ocr_results" USING btree ("tenant_id","document_number_digest");--> statement-breakpoint
CREATE INDEX "verification_cases_retention_idx" ON "identity"."verification_cases" USING btree ("completed_at") WHERE "identity"."verification_cases"."redaction_requested_at" is null and "identity"."verification_cases"."completed_at" is not null;