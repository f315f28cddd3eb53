CREATE TABLE "identity"."case_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"case_id" uuid NOT NULL,
	"event_type" text NOT NULL,
	"payload" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"dispatched_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "identity"."case_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"case_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"session_token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"capture_token_hash" text
);
--> statement-breakpoint
CREATE TABLE "identity"."evidence" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"case_id" uuid NOT NULL,
	"evidence_type" text NOT NULL,
	"content_type" text NOT NULL,
	"file_size_bytes" bigint NOT NULL,
	"original_file_name" text NOT NULL,
	"sha256_hash" text NOT NULL,
	"storage_key" text NOT NULL,
	"uploaded_at" timestamp with time zone NOT NULL,
	"replaced_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "identity"."face_match_results" (
	"case_id" uuid PRIMARY KEY NOT NULL,
	"model_name" text NOT NULL,
	"model_version" text NOT NULL,
	"similarity_score" double precision NOT NULL,
	"threshold" double precision NOT NULL,
	"is_match" boolean NOT NULL,
	"inference_timestamp" timestamp with time zone NOT NULL,
	"inference_latency_ms" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"subject_id" uuid,
	"payload" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"lease_expires_at" timestamp with time zone,
	"last_error" text,
	"last_attempt_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "identity"."liveness_results" (
	"case_id" uuid PRIMARY KEY NOT NULL,
	"model_name" text NOT NULL,
	"model_version" text NOT NULL,
	"liveness_score" double precision NOT NULL,
	"threshold" double precision NOT NULL,
	"is_live" boolean NOT NULL,
	"presentation_attack_detected" boolean NOT NULL,
	"attack_type" text,
	"inference_timestamp" timestamp with time zone NOT NULL,
	"inference_latency_ms" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."ocr_results" (
	"case_id" uuid PRIMARY KEY NOT NULL,
	"model_name" text NOT NULL,
	"model_version" text NOT NULL,
	"confidence_score" double precision NOT NULL,
	"extracted_fields_json" text NOT NULL,
	"mrz_is_valid" boolean,
	"mrz_raw_text" text,
	"has_manipulation_indicators" boolean NOT NULL,
	"inference_timestamp" timestamp with time zone NOT NULL,
	"inference_latency_ms" integer NOT NULL,
	"updated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "identity"."verification_cases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"external_reference" text,
	"document_type" text NOT NULL,
	"status" text NOT NULL,
	"composite_risk_score" double precision,
	"decision_reason" text,
	"idempotency_key" text NOT NULL,
	"request_fingerprint" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "identity"."case_sessions" ADD CONSTRAINT "case_sessions_case_id_verification_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "identity"."verification_cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."evidence" ADD CONSTRAINT "evidence_case_id_verification_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "identity"."verification_cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."face_match_results" ADD CONSTRAINT "face_match_results_case_id_verification_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "identity"."verification_cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."liveness_results" ADD CONSTRAINT "liveness_results_case_id_verification_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "identity"."verification_cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."ocr_results" ADD CONSTRAINT "ocr_results_case_id_verification_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "identity"."verification_cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."verification_cases" ADD CONSTRAINT "verification_cases_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "identity"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "case_events_undispatched_idx" ON "identity"."case_events" USING btree ("occurred_at") WHERE "identity"."case_events"."dispatched_at" is null;--> statement-breakpoint
CREATE INDEX "case_events_case_idx" ON "identity"."case_events" USING btree ("case_id","occurred_at");--> statement-breakpoint
CREATE UNIQUE INDEX "case_sessions_case_key" ON "identity"."case_sessions" USING btree ("case_id");--> statement-breakpoint
CREATE UNIQUE INDEX "case_sessions_session_token_key" ON "identity"."case_sessions" USING btree ("session_token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "case_sessions_capture_token_key" ON "identity"."case_sessions" USING btree ("capture_token_hash");--> statement-breakpoint
CREATE INDEX "case_sessions_open_expiry_idx" ON "identity"."case_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "evidence_case_idx" ON "identity"."evidence" USING btree ("case_id","uploaded_at");--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "identity"."jobs" USING btree ("status","next_attempt_at") WHERE "identity"."jobs"."status" in ('pending', 'in_flight');--> statement-breakpoint
CREATE INDEX "jobs_subject_idx" ON "identity"."jobs" USING btree ("subject_id");--> statement-breakpoint
CREATE UNIQUE INDEX "verification_cases_idempotency_key" ON "identity"."verification_cases" USING btree ("tenant_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "verification_cases_tenant_created_idx" ON "identity"."verification_cases" USING btree ("tenant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "verification_cases_tenant_status_created_idx" ON "identity"."verification_cases" USING btree ("tenant_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "verification_cases_open_created_idx" ON "identity"."verification_cases" USING btree ("created_at") WHERE "identity"."verification_cases"."status" in ('Requested', 'SessionIssued', 'CaptureStarted', 'EvidenceUploaded', 'AutomatedChecksRunning', 'PendingManualReview');