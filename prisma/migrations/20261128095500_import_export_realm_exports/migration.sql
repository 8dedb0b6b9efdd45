-- Organization exports requested through the API (Zulip's RealmExport).
CREATE TABLE "realm_exports" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "acting_user_id" INTEGER,
    "type" INTEGER NOT NULL DEFAULT 1,
    "status" INTEGER NOT NULL DEFAULT 0,
    "date_requested" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "date_started" TIMESTAMPTZ(6),
    "date_succeeded" TIMESTAMPTZ(6),
    "date_failed" TIMESTAMPTZ(6),
    "date_deleted" TIMESTAMPTZ(6),
    "export_path" TEXT,
    "tarball_size_bytes" BIGINT,

    CONSTRAINT "realm_exports_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "realm_exports_realm_id_date_requested_idx" ON "realm_exports"("realm_id", "date_requested");

ALTER TABLE "realm_exports" ADD CONSTRAINT "realm_exports_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "realm_exports" ADD CONSTRAINT "realm_exports_acting_user_id_fkey" FOREIGN KEY ("acting_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
