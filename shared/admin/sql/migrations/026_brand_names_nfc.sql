-- Brand names in one Unicode form.
--
-- The figures group brands by name, character for character: the competitors read lists one row per
-- name, and the share of voice counts the discovered brands by name. "Société" written precomposed (NFC)
-- and decomposed (NFD: "e" followed by a combining accent) look the same and are two names, so one brand
-- would be listed twice, each with part of its mentions, and counted twice among the discovered brands.
-- The store refuses (SQLSTATE 23514, naming the constraint) a brand name not in Unicode normalization
-- form NFC: a mention's brand_name, a competitor's name, a brand's name. The pipeline normalizes before
-- writing (String.prototype.normalize('NFC'), unicodedata.normalize('NFC', s)); the admin CLI normalizes
-- the names it is given. NOT VALID: rows written before this migration are not checked (ALTER TABLE ...
-- VALIDATE CONSTRAINT checks them).

ALTER TABLE mentions ADD CONSTRAINT mentions_brand_name_nfc CHECK (brand_name IS NFC NORMALIZED) NOT VALID;
ALTER TABLE competitors ADD CONSTRAINT competitors_name_nfc CHECK (name IS NFC NORMALIZED) NOT VALID;
ALTER TABLE brands ADD CONSTRAINT brands_name_nfc CHECK (name IS NFC NORMALIZED) NOT VALID;
