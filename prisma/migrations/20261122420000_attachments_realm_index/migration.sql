-- `upload_space_used` sums an organization's attachments on every upload, listing and deletion.
CREATE INDEX "attachments_realm_id_idx" ON "attachments"("realm_id");
