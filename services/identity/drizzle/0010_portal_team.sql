CREATE TABLE "identity"."portal_invitations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"accepted_user_id" uuid,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "identity"."portal_users" ADD COLUMN "status" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."portal_invitations" ADD CONSTRAINT "portal_invitations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "identity"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."portal_invitations" ADD CONSTRAINT "portal_invitations_invited_by_portal_users_id_fk" FOREIGN KEY ("invited_by") REFERENCES "identity"."portal_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."portal_invitations" ADD CONSTRAINT "portal_invitations_accepted_user_id_portal_users_id_fk" FOREIGN KEY ("accepted_user_id") REFERENCES "identity"."portal_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "portal_invitations_token_hash_key" ON "identity"."portal_invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "portal_invitations_pending_key" ON "identity"."portal_invitations" USING btree ("tenant_id","email") WHERE "identity"."portal_invitations"."accepted_at" is null and "identity"."portal_invitations"."revoked_at" is null;