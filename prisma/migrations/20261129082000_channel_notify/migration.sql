-- Processes remember each organization's channels, which every send looks up, and forget them
-- when PostgreSQL says one changed: payload 'channel:<realm id>' on the principal change feed's
-- channel (function of migration realm_markup_notify).
CREATE TRIGGER "streams_channel_change" AFTER INSERT OR UPDATE OR DELETE ON "streams"
  FOR EACH ROW EXECUTE FUNCTION "notify_realm_rows_change"('channel');
