-- The directory username an account signed in with through LDAP (LDAP_APPEND_DOMAIN or
-- LDAP_EMAIL_ATTR), so a changed address in the directory follows the same account.
ALTER TABLE "users" ADD COLUMN "ldap_username" TEXT;

CREATE UNIQUE INDEX "users_realm_id_ldap_username_key" ON "users"("realm_id", "ldap_username");
