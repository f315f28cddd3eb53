ALTER TABLE "identity"."verification_cases" ADD COLUMN "applicant_given_names" text;--> statement-breakpoint
ALTER TABLE "identity"."verification_cases" ADD COLUMN "applicant_surname" text;