-- Domains in the form the figures match.
--
-- Source share counts a citation as owned when its domain equals one of the analysis's owned_domains,
-- and as a competitor's when it equals one of that competitor's domains; the sources read lists one row
-- per domain. All three compare text exactly, so the data contract names one form: lower case, no
-- scheme, no leading "www.". A domain written otherwise ("WWW.Acme.com", "https://acme.com") matched
-- nothing and was listed apart from the same host, silently: source share and the source categories were
-- wrong with no error anywhere. The store refuses (SQLSTATE 23514, naming the constraint) a citation's
-- domain, an owned domain, or a competitor's domain not in that form: empty, with an ASCII capital,
-- starting with "www.", or holding "://". What else a host name may not hold is not checked: the API
-- serves the domain as untrusted text either way. NOT VALID: rows written before this migration are not
-- checked (ALTER TABLE ... VALIDATE CONSTRAINT checks them).

-- One function for a domain and for a list of them (a domain column is checked as a list of one): its body
-- calls only built-in functions, which pg_restore finds with its empty search_path when it checks the
-- rows it loads (a call of a function of ours would not be found there).
CREATE FUNCTION domains_in_form(p_domains text[]) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(bool_and(d <> '' AND d !~ '[A-Z]' AND left(d, 4) <> 'www.' AND strpos(d, '://') = 0), true)
    FROM unnest(p_domains) d
$$;

ALTER TABLE citations ADD CONSTRAINT citations_domain_form CHECK (domains_in_form(ARRAY[domain])) NOT VALID;
ALTER TABLE analyses ADD CONSTRAINT analyses_owned_domains_form CHECK (domains_in_form(owned_domains)) NOT VALID;
ALTER TABLE competitors ADD CONSTRAINT competitors_domain_form CHECK (domains_in_form(ARRAY[domain])) NOT VALID;
ALTER TABLE competitors ADD CONSTRAINT competitors_domains_form CHECK (domains_in_form(domains)) NOT VALID;
