ALTER TABLE "identity"."portal_users" ADD COLUMN "preferred_language" text;--> statement-breakpoint
ALTER TABLE "identity"."staff_users" ADD COLUMN "preferred_language" text;