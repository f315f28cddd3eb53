-- identity owns the "identity" schema; later migrations add its tables here.
CREATE SCHEMA IF NOT EXISTS "identity";
