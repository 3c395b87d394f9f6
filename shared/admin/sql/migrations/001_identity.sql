-- Who may call the API: plans, workspaces, people, their roles and the keys they created.

CREATE TABLE plans (
  key               text PRIMARY KEY,          -- technical identifier, never translated
  label             text NOT NULL,
  api_access        boolean NOT NULL,
  calls_per_minute  integer NOT NULL CHECK (calls_per_minute >= 0)
);

CREATE TABLE workspaces (
  id          uuid PRIMARY KEY,
  name        text NOT NULL,
  slug        text NOT NULL UNIQUE,
  plan_key    text NOT NULL REFERENCES plans (key),
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id     uuid PRIMARY KEY,
  email  text NOT NULL UNIQUE,
  name   text NOT NULL
);

CREATE TABLE brands (
  id            uuid PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id),
  name          text NOT NULL,
  domain        text,
  UNIQUE (workspace_id, name)
);

-- brand_ids NULL: the member sees every brand of the workspace; otherwise only these brands.
CREATE TABLE members (
  workspace_id  uuid NOT NULL REFERENCES workspaces (id),
  user_id       uuid NOT NULL REFERENCES users (id),
  role          text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  brand_ids     uuid[],
  joined_at     timestamptz NOT NULL DEFAULT now(),
  left_at       timestamptz,
  suspended_at  timestamptz,
  PRIMARY KEY (workspace_id, user_id)
);

CREATE TABLE engines (
  key   text PRIMARY KEY,                      -- chatgpt, perplexity, gemini, ai_overviews, ...
  name  text NOT NULL
);

CREATE TABLE analyses (
  id             uuid PRIMARY KEY,
  workspace_id   uuid NOT NULL REFERENCES workspaces (id),
  brand_id       uuid NOT NULL REFERENCES brands (id),
  slug           text NOT NULL,
  name           text NOT NULL,
  language       text NOT NULL DEFAULT 'en',
  country        text NOT NULL DEFAULT 'US',
  owned_domains  text[] NOT NULL DEFAULT '{}',
  engines        text[] NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, slug)
);
CREATE INDEX analyses_brand ON analyses (brand_id);

-- Only the fingerprint (SHA-256 of the whole secret, hex) and the visible prefix are kept.
CREATE TABLE api_keys (
  id            uuid PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id),
  name          text NOT NULL,
  prefix        text NOT NULL,
  fingerprint   text NOT NULL UNIQUE CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  scope         text NOT NULL CHECK (scope IN ('workspace', 'brand', 'analysis')),
  brand_id      uuid REFERENCES brands (id),
  analysis_id   uuid REFERENCES analyses (id),
  created_by    uuid NOT NULL REFERENCES users (id),
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  revoked_at    timestamptz,
  last_used_at  timestamptz,
  CHECK ((scope = 'brand') = (brand_id IS NOT NULL)),
  CHECK ((scope = 'analysis') = (analysis_id IS NOT NULL))
);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id);
