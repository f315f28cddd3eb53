CREATE TABLE "fx"."client_daily_usage" (
	"client_id" uuid NOT NULL,
	"day" date NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	"limited" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "client_daily_usage_client_id_day_pk" PRIMARY KEY("client_id","day")
);
--> statement-breakpoint
ALTER TABLE "fx"."client_daily_usage" ADD CONSTRAINT "client_daily_usage_client_id_api_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "fx"."api_clients"("id") ON DELETE cascade ON UPDATE no action;