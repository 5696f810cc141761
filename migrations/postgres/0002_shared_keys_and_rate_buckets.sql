-- Live dedup keys and rate-limit buckets shared by every node on this database.
CREATE TABLE dedup_shared_keys (
  source_id text COLLATE "C" NOT NULL,
  key bytea NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (source_id, key)
);
CREATE INDEX dedup_shared_keys_expires_idx ON dedup_shared_keys (expires_at);

CREATE TABLE rate_buckets (
  key text COLLATE "C" NOT NULL,
  tokens double precision NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (key)
);
