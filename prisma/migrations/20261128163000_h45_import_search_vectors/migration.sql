-- An insert that brings messages.search_tsv keeps it: a bulk import computes the vectors of its
-- messages on another connection, in parallel with loading them (libs/import-export/
-- import-zulip.ts), with the same expression. Every other insert leaves the column out, and an
-- update of the subject or content recomputes it, as before.
CREATE OR REPLACE FUNCTION "messages_search_tsv_update"() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'INSERT' AND NEW."search_tsv" IS NOT NULL THEN
        RETURN NEW;
    END IF;
    NEW."search_tsv" := to_tsvector('english', coalesce(NEW."subject", '') || ' ' || coalesce(NEW."content", ''));
    RETURN NEW;
END
$$ LANGUAGE plpgsql;
