-- TOTP two-factor authentication (Zulip's TWO_FACTOR_AUTHENTICATION_ENABLED).
CREATE TABLE "user_two_factor" (
    "user_id" INTEGER NOT NULL,
    "secret_ciphertext" TEXT NOT NULL,
    "last_step" BIGINT NOT NULL DEFAULT 0,
    "backup_code_hashes" TEXT[],
    "date_enabled" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_two_factor_pkey" PRIMARY KEY ("user_id")
);

ALTER TABLE "user_two_factor" ADD CONSTRAINT "user_two_factor_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
