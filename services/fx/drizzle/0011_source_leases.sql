CREATE TABLE "fx"."source_leases" (
	"lease" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"state" jsonb
);
