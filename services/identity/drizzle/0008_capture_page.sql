ALTER TABLE "identity"."verification_cases" ADD COLUMN "return_url" text;--> statement-breakpoint
ALTER TABLE "identity"."verification_cases" ADD COLUMN "consent_given_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "identity"."verification_cases" ADD COLUMN "consent_language" text;--> statement-breakpoint
ALTER TABLE "identity"."verification_cases" ADD COLUMN "consent_user_agent" text;