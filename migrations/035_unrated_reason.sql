-- counterattackd schema 35: why a finished rated game moved no rating though it
-- has a result, as its players were told ("not rated: the German side never
-- moved"); empty when it moved them, or when it ended before this was stored.
ALTER TABLE games ADD COLUMN unrated_reason TEXT NOT NULL DEFAULT '';
