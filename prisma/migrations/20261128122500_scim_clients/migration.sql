-- SCIM 2.0 clients of an organization (Zulip's SCIM_CONFIG), each with a hashed bearer token.
CREATE TABLE "scim_clients" (
    "id" SERIAL NOT NULL,
    "realm_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "name_formatted_included" BOOLEAN NOT NULL DEFAULT true,
    "date_created" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scim_clients_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "scim_clients_token_hash_key" ON "scim_clients"("token_hash");
CREATE UNIQUE INDEX "scim_clients_realm_id_name_key" ON "scim_clients"("realm_id", "name");

ALTER TABLE "scim_clients" ADD CONSTRAINT "scim_clients_realm_id_fkey" FOREIGN KEY ("realm_id") REFERENCES "realms"("id") ON DELETE CASCADE ON UPDATE CASCADE;
