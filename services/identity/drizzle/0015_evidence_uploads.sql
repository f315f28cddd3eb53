CREATE TABLE "identity"."evidence_uploads" (
	"storage_key" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "evidence_uploads_started_idx" ON "identity"."evidence_uploads" USING btree ("started_at");