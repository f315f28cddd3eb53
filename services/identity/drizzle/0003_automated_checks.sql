CREATE TABLE "identity"."fraud_signals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"case_id" uuid NOT NULL,
	"type" text NOT NULL,
	"severity" text NOT NULL,
	"detail" text NOT NULL,
	"detected_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "identity"."ocr_results" ADD COLUMN "tenant_id" uuid NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."ocr_results" ADD COLUMN "document_number" text;--> statement-breakpoint
ALTER TABLE "identity"."tenants" ADD COLUMN "sandbox" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."verification_cases" ADD COLUMN "sandbox" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."fraud_signals" ADD CONSTRAINT "fraud_signals_case_id_verification_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "identity"."verification_cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "fraud_signals_case_idx" ON "identity"."fraud_signals" USING btree ("case_id","detected_at");--> statement-breakpoint
CREATE INDEX "ocr_results_document_number_idx" ON "identity"."ocr_results" USING btree ("tenant_id","document_number");