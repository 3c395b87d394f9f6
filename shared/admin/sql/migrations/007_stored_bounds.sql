-- What one stored answer can weigh, bounded by the store itself.
--
-- The service is read-only: everything it serves was written by the collection pipeline (and the product).
-- Nothing bounded the strings and lists of one answer, so one stored answer could make get_answer larger
-- than the 6 MB a Lambda function may answer (an answer of ~1M U+2028: the MCP result carries the text
-- twice, once escaped in its text block). These CHECKs make every answer the API can be asked for fit,
-- whoever writes it, and whatever characters it holds (docs/data-contract.md "Bounds").
--
-- Lengths are in characters (code points), the unit escaping works on: the worst character costs at most
-- 16 bytes in the Lambda response of an MCP result (a C0 control: \u0001 in structuredContent, and in the
-- text block \u0001 escaped again by the JSON-RPC body, each layer then escaped once more by the Lambda
-- response's own JSON), 7 in a REST one.
--
--   answers.text          100,000  an engine's answer to one prompt runs to a few thousand characters (the
--                                  demo's are far shorter); 100,000 is about 15,000 English words (some 25,000
--                                  tokens), past the output cap of a chat reply of the models behind the
--                                  engines (GPT-4o: 16,384 tokens).
--   mentions.position         100  a list answer names 10 to 30 brands; position is in the primary key
--                                  (answer_id, position) and starts at 1, so at most 100 mentions an answer.
--   mentions.brand_name       200  a brand as named in an answer; the longest real ones are under 60.
--   citations.ordinal         100  engines cite 5 to 30 sources an answer; in the primary key, so at most
--                                  100 citations an answer.
--   citations.url           2,048  the de facto limit of addresses (sitemaps protocol, browsers).
--   citations.domain          253  the longest DNS name.
--   prompts.text            1,000  the question asked (get_answer returns it); real ones are one or two
--                                  sentences (as in the demo).
--   answers.recipe,           100  an extraction recipe's name (get_answer, the figures' context).
--   run_engines.recipe
--   engines.key                64  an engine's key (chatgpt, ai_overviews...).
--
-- Worst case of get_answer under these bounds, measured in test/integration/answer-bounds.test.ts with
-- every string at its bound and made of the costliest character: docs/guarantees.md#measured.
--
-- Adding a CHECK validates the rows already stored, in one scan per table under its lock; a row over a
-- bound makes this migration fail (the deploy stops) until the pipeline has fixed or removed it.

ALTER TABLE answers
  ADD CONSTRAINT answers_text_length CHECK (char_length(text) <= 100000),
  ADD CONSTRAINT answers_recipe_length CHECK (char_length(recipe) <= 100);

ALTER TABLE mentions
  ADD CONSTRAINT mentions_position_bound CHECK (position <= 100),
  ADD CONSTRAINT mentions_brand_name_length CHECK (char_length(brand_name) <= 200);

ALTER TABLE citations
  ADD CONSTRAINT citations_ordinal_bound CHECK (ordinal <= 100),
  ADD CONSTRAINT citations_url_length CHECK (char_length(url) <= 2048),
  ADD CONSTRAINT citations_domain_length CHECK (char_length(domain) <= 253);

ALTER TABLE prompts ADD CONSTRAINT prompts_text_length CHECK (char_length(text) <= 1000);

ALTER TABLE run_engines ADD CONSTRAINT run_engines_recipe_length CHECK (char_length(recipe) <= 100);

ALTER TABLE engines ADD CONSTRAINT engines_key_length CHECK (char_length(key) <= 64);
