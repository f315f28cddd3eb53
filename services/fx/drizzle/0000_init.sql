-- fx owns the "fx" schema; later migrations add its tables here.
CREATE SCHEMA IF NOT EXISTS "fx";
