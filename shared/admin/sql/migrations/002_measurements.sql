-- What the product measured: prompts asked to AI engines, their answers, the brands and sources in them.

CREATE TABLE competitors (
  id           uuid PRIMARY KEY,
  analysis_id  uuid NOT NULL REFERENCES analyses (id),
  name         text NOT NULL,
  domain       text,
  UNIQUE (analysis_id, name)
);

CREATE TABLE prompt_groups (
  id           uuid PRIMARY KEY,
  analysis_id  uuid NOT NULL REFERENCES analyses (id),
  name         text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX prompt_groups_analysis ON prompt_groups (analysis_id);

CREATE TABLE prompts (
  id           uuid PRIMARY KEY,
  analysis_id  uuid NOT NULL REFERENCES analyses (id),
  group_id     uuid REFERENCES prompt_groups (id),   -- NULL: the prompt is in no group
  text         text NOT NULL,
  language     text NOT NULL,
  created_at   timestamptz NOT NULL
);
CREATE INDEX prompts_analysis ON prompts (analysis_id, group_id);

-- Run lifecycle: collecting -> extracting -> finished; any state -> failed.
-- collected_at is set when collection ends (the run then counts as a finished collection),
-- finished_at when extraction ends.
CREATE TABLE runs (
  id            uuid PRIMARY KEY,
  analysis_id   uuid NOT NULL REFERENCES analyses (id),
  state         text NOT NULL CHECK (state IN ('collecting', 'extracting', 'finished', 'failed')),
  started_at    timestamptz NOT NULL,
  collected_at  timestamptz,
  finished_at   timestamptz
);
CREATE INDEX runs_analysis_started ON runs (analysis_id, started_at DESC, id DESC);

-- Engine lifecycle inside a run: pending -> collecting -> extracting -> done; any state -> failed.
CREATE TABLE run_engines (
  run_id     uuid NOT NULL REFERENCES runs (id),
  engine     text NOT NULL REFERENCES engines (key),
  state      text NOT NULL CHECK (state IN ('pending', 'collecting', 'extracting', 'done', 'failed')),
  expected   integer NOT NULL CHECK (expected >= 0),
  collected  integer NOT NULL CHECK (collected >= 0),
  extracted  integer NOT NULL CHECK (extracted >= 0),
  failed     integer NOT NULL CHECK (failed >= 0),
  recipe     text,
  PRIMARY KEY (run_id, engine)
);

CREATE TABLE answers (
  id                uuid PRIMARY KEY,
  analysis_id       uuid NOT NULL REFERENCES analyses (id),
  run_id            uuid NOT NULL REFERENCES runs (id),
  prompt_id         uuid NOT NULL REFERENCES prompts (id),
  engine            text NOT NULL REFERENCES engines (key),
  captured_at       timestamptz NOT NULL,
  text              text NOT NULL,                -- untrusted third-party content
  extraction_state  text NOT NULL CHECK (extraction_state IN ('pending', 'extracted', 'failed')),
  recipe            text                          -- extraction recipe that produced mentions and citations
);
CREATE INDEX answers_keyset ON answers (analysis_id, captured_at DESC, id DESC);
CREATE INDEX answers_run ON answers (run_id, engine);

-- A brand named in an answer. position is its order of appearance (1-based), never a character offset.
-- is_tracked: the analysis's own brand; competitor_id: a configured (direct) competitor;
-- neither: an indirect competitor discovered in the answer.
CREATE TABLE mentions (
  answer_id      uuid NOT NULL REFERENCES answers (id),
  position       integer NOT NULL CHECK (position >= 1),
  brand_name     text NOT NULL,
  is_tracked     boolean NOT NULL DEFAULT false,
  competitor_id  uuid REFERENCES competitors (id),
  sentiment      numeric(4, 3) CHECK (sentiment BETWEEN -1 AND 1),
  PRIMARY KEY (answer_id, position)
);

-- A source cited by an answer, in the order the answer cites it.
CREATE TABLE citations (
  answer_id  uuid NOT NULL REFERENCES answers (id),
  ordinal    integer NOT NULL CHECK (ordinal >= 1),
  url        text NOT NULL,
  domain     text NOT NULL,
  PRIMARY KEY (answer_id, ordinal)
);
