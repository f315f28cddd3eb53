ALTER TABLE "identity"."portal_sessions" ADD COLUMN "authenticated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."staff_sessions" ADD COLUMN "authenticated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
-- Sessions from before count as authenticated when they began, not at the migration.
UPDATE "identity"."portal_sessions" SET "authenticated_at" = "created_at";--> statement-breakpoint
UPDATE "identity"."staff_sessions" SET "authenticated_at" = "created_at";
