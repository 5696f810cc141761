-- Weir's schema on PostgreSQL, as the SQLite migrations 0000–0039 leave it (same tables, columns,
-- keys, indexes and foreign keys; src/db/db.dialects.test.ts compares the two catalogs).
--
-- Types are chosen so both dialects hand the stores the same values:
-- - ids, ISO-8601 timestamps and JSON stay text, as SQLite stores them. Every text column is
--   COLLATE "C" so comparisons and ORDER BY are bytewise like SQLite's (UUIDv7 ids compare by
--   time, names sort the same), whatever collation the server's database was created with;
-- - flags stay integer 0/1;
-- - epoch milliseconds and counters that grow without bound are bigint (Bun's SQL client returns
--   bigint as a string: convert with Number()), bounded numbers are integer;
-- - blobs are bytea, REAL is double precision.
--
-- SQLite-only: the request search index (the FTS5 table captured_requests_search, its
-- captured_requests_search_mark and the trigger that keeps both on delete). FTS5 is SQLite's and
-- the index is addressed by rowid, which PostgreSQL rows do not have; searching stored requests
-- on PostgreSQL is the capture store's own query.

CREATE TABLE instance_facts (
  key text COLLATE "C" NOT NULL,
  value text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (key)
);

CREATE TABLE organizations (
  id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  plan text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id)
);

CREATE TABLE api_keys (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  key_hash text COLLATE "C" NOT NULL,
  created_by text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  last_used_at text COLLATE "C",
  revoked_at text COLLATE "C",
  role text COLLATE "C" NOT NULL DEFAULT 'owner',
  expires_at text COLLATE "C",
  rate_limit_per_minute integer,
  allowed_ips text COLLATE "C",
  last_ip text COLLATE "C",
  last_user_agent text COLLATE "C",
  PRIMARY KEY (id),
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX api_keys_key_hash_unique ON api_keys (key_hash);
CREATE INDEX api_keys_org_idx ON api_keys (organization_id, created_at);

CREATE TABLE users (
  id text COLLATE "C" NOT NULL,
  email text COLLATE "C" NOT NULL,
  email_key text COLLATE "C" NOT NULL,
  password_hash text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX users_email_key_unique ON users (email_key);

CREATE TABLE memberships (
  organization_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  role text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (organization_id, user_id),
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
  FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

CREATE TABLE debug_endpoints (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C",
  name text COLLATE "C" NOT NULL,
  slug text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  response_status integer,
  response_headers text COLLATE "C",
  response_body text COLLATE "C",
  response_delay_ms integer NOT NULL DEFAULT 0,
  forward_url text COLLATE "C",
  anonymous_token_hash text COLLATE "C",
  expires_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  request_count bigint NOT NULL DEFAULT 0,
  cleared_through_id text COLLATE "C",
  deleted_at text COLLATE "C",
  drain_pending integer NOT NULL DEFAULT 0,
  verification text COLLATE "C",
  PRIMARY KEY (id),
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX debug_endpoints_slug_unique ON debug_endpoints (slug);
CREATE INDEX debug_endpoints_org_idx ON debug_endpoints (organization_id, created_at);
CREATE INDEX debug_endpoints_expires_idx ON debug_endpoints (expires_at);
CREATE INDEX debug_endpoints_drain_idx ON debug_endpoints (id) WHERE drain_pending = 1;

CREATE TABLE captured_requests (
  id text COLLATE "C" NOT NULL,
  endpoint_id text COLLATE "C" NOT NULL,
  method text COLLATE "C" NOT NULL,
  path text COLLATE "C" NOT NULL,
  query_string text COLLATE "C" NOT NULL,
  raw_headers text COLLATE "C" NOT NULL,
  body bytea NOT NULL,
  content_type text COLLATE "C",
  size bigint NOT NULL,
  remote_ip text COLLATE "C",
  status integer NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  verification_status text COLLATE "C",
  verification_reason text COLLATE "C",
  PRIMARY KEY (id),
  FOREIGN KEY (endpoint_id) REFERENCES debug_endpoints (id) ON DELETE CASCADE
);
CREATE INDEX captured_requests_endpoint_idx ON captured_requests (endpoint_id, id);

CREATE TABLE secrets (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  sealed_value text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX secrets_org_name_unique ON secrets (organization_id, name);

CREATE TABLE transformations (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  code text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE
);
CREATE INDEX transformations_org_idx ON transformations (organization_id, created_at);

CREATE TABLE sources (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  slug text COLLATE "C" NOT NULL,
  deduplication_config text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  verification text COLLATE "C",
  PRIMARY KEY (id),
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX sources_slug_unique ON sources (slug);
CREATE INDEX sources_org_idx ON sources (organization_id, created_at);
CREATE UNIQUE INDEX sources_org_name_unique ON sources (organization_id, name);

CREATE TABLE bridges (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  source_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
  FOREIGN KEY (source_id) REFERENCES sources (id) ON DELETE CASCADE
);
CREATE INDEX bridges_org_idx ON bridges (organization_id, created_at);
CREATE INDEX bridges_source_idx ON bridges (source_id);

CREATE TABLE destinations (
  id text COLLATE "C" NOT NULL,
  bridge_id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  priority text COLLATE "C" NOT NULL,
  url text COLLATE "C",
  method text COLLATE "C",
  headers text COLLATE "C",
  max_retries integer NOT NULL,
  webhook_url text COLLATE "C",
  bot_token text COLLATE "C",
  chat_id text COLLATE "C",
  filters text COLLATE "C" NOT NULL,
  transformation_id text COLLATE "C",
  signing_secret text COLLATE "C",
  previous_signing_secret text COLLATE "C",
  previous_secret_until bigint,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  path_forwarding integer NOT NULL DEFAULT 1,
  PRIMARY KEY (id),
  FOREIGN KEY (bridge_id) REFERENCES bridges (id) ON DELETE CASCADE
);
CREATE INDEX destinations_bridge_idx ON destinations (bridge_id, created_at);

CREATE TABLE events (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  source_id text COLLATE "C" NOT NULL,
  method text COLLATE "C" NOT NULL,
  path text COLLATE "C" NOT NULL,
  query_string text COLLATE "C" NOT NULL,
  raw_headers text COLLATE "C" NOT NULL,
  body bytea NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  filtered_by text COLLATE "C",
  PRIMARY KEY (id)
);
CREATE INDEX events_org_created_idx ON events (organization_id, created_at);
CREATE INDEX events_source_idx ON events (source_id, created_at);
CREATE INDEX events_created_idx ON events (created_at);

CREATE TABLE dedup_counters (
  source_id text COLLATE "C" NOT NULL,
  hour_start bigint NOT NULL,
  total_requests bigint NOT NULL DEFAULT 0,
  duplicates_rejected bigint NOT NULL DEFAULT 0,
  rejected_unverified bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (source_id, hour_start)
);

CREATE TABLE deliveries (
  id text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C",
  subject_id text COLLATE "C" NOT NULL,
  destination_key text COLLATE "C" NOT NULL,
  webhook_id text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  max_retries integer NOT NULL,
  attempts_before_requeue integer NOT NULL DEFAULT 0,
  next_attempt_at bigint,
  locked_until bigint,
  last_status_code integer,
  last_error_type text COLLATE "C",
  last_error_code text COLLATE "C",
  last_error_message text COLLATE "C",
  last_latency_ms integer,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id)
);
CREATE INDEX deliveries_created_idx ON deliveries (created_at);
CREATE INDEX deliveries_key_due_idx ON deliveries (destination_key, next_attempt_at, id, locked_until);
CREATE INDEX deliveries_subject_idx ON deliveries (kind, subject_id, created_at, id);
CREATE INDEX deliveries_leased_idx ON deliveries (locked_until, next_attempt_at) WHERE locked_until IS NOT NULL;
CREATE INDEX deliveries_org_due_idx ON deliveries (organization_id, next_attempt_at, id, locked_until, destination_key);
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at, id, locked_until, destination_key, organization_id);

CREATE TABLE delivery_attempts (
  id text COLLATE "C" NOT NULL,
  delivery_id text COLLATE "C" NOT NULL,
  attempt integer NOT NULL,
  url text COLLATE "C" NOT NULL,
  method text COLLATE "C" NOT NULL,
  status_code integer,
  response_headers text COLLATE "C" NOT NULL,
  response_body text COLLATE "C" NOT NULL,
  latency_ms integer NOT NULL,
  error_type text COLLATE "C",
  error_code text COLLATE "C",
  error_message text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  sent_request text COLLATE "C",
  PRIMARY KEY (id),
  FOREIGN KEY (delivery_id) REFERENCES deliveries (id) ON DELETE CASCADE
);
CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, created_at);

CREATE TABLE delivery_breakers (
  destination_key text COLLATE "C" NOT NULL,
  phase text COLLATE "C" NOT NULL,
  state text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (destination_key)
);

CREATE TABLE capture_refusals (
  endpoint_id text COLLATE "C" NOT NULL,
  rate_limited bigint NOT NULL DEFAULT 0,
  too_large bigint NOT NULL DEFAULT 0,
  last_refused_at text COLLATE "C",
  PRIMARY KEY (endpoint_id),
  FOREIGN KEY (endpoint_id) REFERENCES debug_endpoints (id) ON DELETE CASCADE
);

CREATE TABLE issues (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  bridge_id text COLLATE "C" NOT NULL,
  destination_id text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  error_type text COLLATE "C" NOT NULL,
  error_code text COLLATE "C" NOT NULL,
  error_message text COLLATE "C" NOT NULL,
  occurrence_count bigint NOT NULL,
  first_occurrence_at text COLLATE "C" NOT NULL,
  last_occurrence_at text COLLATE "C" NOT NULL,
  opened_at text COLLATE "C" NOT NULL,
  resolved_at text COLLATE "C",
  last_success_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
  FOREIGN KEY (destination_id) REFERENCES destinations (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX issues_unclosed_pattern_unique ON issues (destination_id, error_type, error_code, bridge_id, organization_id) WHERE status <> 'closed';
CREATE INDEX issues_pattern_idx ON issues (destination_id, error_type, error_code, status);
CREATE INDEX issues_org_idx ON issues (organization_id, last_occurrence_at);
CREATE INDEX issues_closed_resolved_idx ON issues (resolved_at) WHERE status = 'closed';
CREATE INDEX issues_unclosed_opened_idx ON issues (organization_id, opened_at) WHERE status <> 'closed';

CREATE TABLE issue_samples (
  id text COLLATE "C" NOT NULL,
  issue_id text COLLATE "C" NOT NULL,
  event_id text COLLATE "C" NOT NULL,
  delivery_id text COLLATE "C" NOT NULL,
  attempt integer NOT NULL,
  status_code integer,
  response_excerpt text COLLATE "C" NOT NULL,
  error_type text COLLATE "C" NOT NULL,
  error_code text COLLATE "C" NOT NULL,
  error_message text COLLATE "C" NOT NULL,
  occurred_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (issue_id) REFERENCES issues (id) ON DELETE CASCADE
);
CREATE INDEX issue_samples_issue_idx ON issue_samples (issue_id, occurred_at);

CREATE TABLE event_bridges (
  event_id text COLLATE "C" NOT NULL,
  bridge_id text COLLATE "C" NOT NULL,
  PRIMARY KEY (event_id, bridge_id),
  FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
  FOREIGN KEY (bridge_id) REFERENCES bridges (id) ON DELETE CASCADE
);
CREATE INDEX event_bridges_bridge_idx ON event_bridges (bridge_id, event_id);

CREATE TABLE alert_rules (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  condition_type text COLLATE "C" NOT NULL,
  condition_value double precision,
  channel_type text COLLATE "C" NOT NULL,
  channel text COLLATE "C" NOT NULL,
  signing_secret text COLLATE "C",
  enabled integer NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  previous_signing_secret text COLLATE "C",
  previous_secret_until bigint,
  condition_monitor_ids text COLLATE "C",
  PRIMARY KEY (id),
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE
);
CREATE INDEX alert_rules_org_idx ON alert_rules (organization_id, created_at);

CREATE TABLE alert_firings (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  rule_id text COLLATE "C" NOT NULL,
  issue_id text COLLATE "C",
  condition_key text COLLATE "C" NOT NULL,
  test integer NOT NULL,
  payload text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (rule_id) REFERENCES alert_rules (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX alert_firings_once_unique ON alert_firings (rule_id, issue_id, condition_key);
CREATE INDEX alert_firings_rule_idx ON alert_firings (rule_id, created_at);

CREATE TABLE dedup_key_log (
  id bigint GENERATED BY DEFAULT AS IDENTITY NOT NULL,
  source_id text COLLATE "C" NOT NULL,
  key bytea NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (id)
);

CREATE TABLE event_states (
  event_id text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  open_deliveries integer NOT NULL,
  status_reason text COLLATE "C",
  PRIMARY KEY (event_id),
  FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE
);

CREATE TABLE delivery_breaker_phases (
  phase text COLLATE "C" NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (phase)
);

CREATE TABLE issue_status_counts (
  status text COLLATE "C" NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (status)
);

CREATE TABLE api_key_usage_days (
  api_key_id text COLLATE "C" NOT NULL,
  date text COLLATE "C" NOT NULL,
  requests bigint NOT NULL,
  errors bigint NOT NULL,
  PRIMARY KEY (api_key_id, date),
  FOREIGN KEY (api_key_id) REFERENCES api_keys (id) ON DELETE CASCADE
);

CREATE TABLE action_runs (
  id text COLLATE "C" NOT NULL,
  request_id text COLLATE "C" NOT NULL,
  endpoint_id text COLLATE "C" NOT NULL,
  trigger text COLLATE "C" NOT NULL,
  results text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (request_id) REFERENCES captured_requests (id) ON DELETE CASCADE
);
CREATE INDEX action_runs_request_idx ON action_runs (request_id, id);

CREATE TABLE action_runs_due (
  request_id text COLLATE "C" NOT NULL,
  endpoint_id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (request_id),
  FOREIGN KEY (request_id) REFERENCES captured_requests (id) ON DELETE CASCADE
);

CREATE TABLE endpoint_actions (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  endpoint_id text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  config text COLLATE "C" NOT NULL,
  position integer NOT NULL,
  enabled integer NOT NULL DEFAULT 1,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
  FOREIGN KEY (endpoint_id) REFERENCES debug_endpoints (id) ON DELETE CASCADE
);
CREATE INDEX endpoint_actions_endpoint_idx ON endpoint_actions (endpoint_id, position);

CREATE TABLE endpoint_variables (
  endpoint_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  value text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (endpoint_id, name),
  FOREIGN KEY (endpoint_id) REFERENCES debug_endpoints (id) ON DELETE CASCADE
);

CREATE TABLE monitors (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  settings text COLLATE "C" NOT NULL,
  interval_seconds integer NOT NULL,
  timeout_seconds integer NOT NULL,
  retries integer NOT NULL DEFAULT 0,
  push_token text COLLATE "C",
  paused integer NOT NULL DEFAULT 0,
  state text COLLATE "C" NOT NULL DEFAULT 'pending',
  consecutive_failures integer NOT NULL DEFAULT 0,
  phase_ms integer NOT NULL,
  next_check_at bigint,
  locked_until bigint,
  last_checked_at text COLLATE "C",
  last_response_ms integer,
  checks_up bigint NOT NULL DEFAULT 0,
  checks_down bigint NOT NULL DEFAULT 0,
  checks_degraded bigint NOT NULL DEFAULT 0,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  checks_maintenance bigint NOT NULL DEFAULT 0,
  maintenance_from text COLLATE "C",
  parent_id text COLLATE "C",
  held_alert_id text COLLATE "C",
  PRIMARY KEY (id),
  FOREIGN KEY (parent_id) REFERENCES monitors (id) ON DELETE SET NULL,
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX monitors_push_token_unique ON monitors (push_token);
CREATE INDEX monitors_due ON monitors (next_check_at);
CREATE INDEX monitors_org_due ON monitors (organization_id, next_check_at);
CREATE INDEX monitors_org_created ON monitors (organization_id, created_at);
CREATE INDEX monitors_parent ON monitors (parent_id);

CREATE TABLE monitor_checks (
  id text COLLATE "C" NOT NULL,
  monitor_id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  status_code integer,
  response_time_ms integer,
  error text COLLATE "C",
  checked_at text COLLATE "C" NOT NULL,
  tls_days_remaining integer,
  maintenance integer NOT NULL DEFAULT 0,
  PRIMARY KEY (id),
  FOREIGN KEY (monitor_id) REFERENCES monitors (id) ON DELETE CASCADE
);
CREATE INDEX monitor_checks_monitor_time ON monitor_checks (monitor_id, checked_at);
CREATE INDEX monitor_checks_org_time ON monitor_checks (organization_id, checked_at);

CREATE TABLE monitor_rollups (
  monitor_id text COLLATE "C" NOT NULL,
  period text COLLATE "C" NOT NULL,
  bucket_start bigint NOT NULL,
  checks bigint NOT NULL DEFAULT 0,
  up bigint NOT NULL DEFAULT 0,
  down bigint NOT NULL DEFAULT 0,
  degraded bigint NOT NULL DEFAULT 0,
  response_sum bigint NOT NULL DEFAULT 0,
  response_count bigint NOT NULL DEFAULT 0,
  response_min integer,
  response_max integer,
  histogram text COLLATE "C" NOT NULL DEFAULT '[0,0,0,0,0,0,0,0,0,0]',
  maintenance bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (monitor_id, period, bucket_start),
  FOREIGN KEY (monitor_id) REFERENCES monitors (id) ON DELETE CASCADE
);
CREATE INDEX monitor_rollups_counts ON monitor_rollups (monitor_id, period, bucket_start, checks, up, down, degraded, maintenance);

CREATE TABLE monitor_state_events (
  id text COLLATE "C" NOT NULL,
  monitor_id text COLLATE "C" NOT NULL,
  from_state text COLLATE "C" NOT NULL,
  to_state text COLLATE "C" NOT NULL,
  at text COLLATE "C" NOT NULL,
  reason text COLLATE "C",
  held_by text COLLATE "C",
  PRIMARY KEY (id),
  FOREIGN KEY (monitor_id) REFERENCES monitors (id) ON DELETE CASCADE
);
CREATE INDEX monitor_state_events_monitor_at ON monitor_state_events (monitor_id, at);

CREATE TABLE maintenance_windows (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  title text COLLATE "C" NOT NULL,
  description text COLLATE "C",
  monitor_ids text COLLATE "C" NOT NULL,
  starts_at text COLLATE "C",
  ends_at text COLLATE "C",
  cron text COLLATE "C",
  duration_minutes integer,
  timezone text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE
);
CREATE INDEX maintenance_windows_org_created ON maintenance_windows (organization_id, created_at);

CREATE TABLE delivery_health_days (
  destination_id text COLLATE "C" NOT NULL,
  day text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  bridge_id text COLLATE "C" NOT NULL,
  attempted bigint NOT NULL,
  delivered bigint NOT NULL,
  last_failure_at bigint,
  PRIMARY KEY (destination_id, day)
);
CREATE INDEX delivery_health_days_bridge_idx ON delivery_health_days (bridge_id, day);
CREATE INDEX delivery_health_days_day_idx ON delivery_health_days (day);

CREATE TABLE status_pages (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  slug text COLLATE "C" NOT NULL,
  description text COLLATE "C",
  logo_url text COLLATE "C",
  primary_color text COLLATE "C" NOT NULL,
  show_service_branding integer NOT NULL DEFAULT 1,
  custom_domain text COLLATE "C",
  groups text COLLATE "C" NOT NULL DEFAULT '[]',
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  allow_subscribers integer NOT NULL DEFAULT 0,
  PRIMARY KEY (id),
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX status_pages_slug_unique ON status_pages (slug);
CREATE UNIQUE INDEX status_pages_custom_domain_unique ON status_pages (custom_domain);
CREATE INDEX status_pages_org_created ON status_pages (organization_id, created_at);

CREATE TABLE status_page_components (
  id text COLLATE "C" NOT NULL,
  status_page_id text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  target_id text COLLATE "C" NOT NULL,
  display_name text COLLATE "C",
  display_order integer NOT NULL DEFAULT 0,
  group_name text COLLATE "C",
  PRIMARY KEY (id),
  FOREIGN KEY (status_page_id) REFERENCES status_pages (id) ON DELETE CASCADE
);
CREATE INDEX status_page_components_page ON status_page_components (status_page_id);

CREATE TABLE status_page_incidents (
  id text COLLATE "C" NOT NULL,
  status_page_id text COLLATE "C" NOT NULL,
  title text COLLATE "C" NOT NULL,
  impact text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  monitor_ids text COLLATE "C" NOT NULL DEFAULT '[]',
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  resolved_at text COLLATE "C",
  PRIMARY KEY (id),
  FOREIGN KEY (status_page_id) REFERENCES status_pages (id) ON DELETE CASCADE
);
CREATE INDEX status_page_incidents_page_created ON status_page_incidents (status_page_id, created_at);

CREATE TABLE status_page_incident_updates (
  id text COLLATE "C" NOT NULL,
  incident_id text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  message text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (incident_id) REFERENCES status_page_incidents (id) ON DELETE CASCADE
);
CREATE INDEX status_page_incident_updates_incident ON status_page_incident_updates (incident_id, created_at);

CREATE TABLE status_page_monitors (
  status_page_id text COLLATE "C" NOT NULL,
  monitor_id text COLLATE "C" NOT NULL,
  display_name text COLLATE "C",
  display_order integer NOT NULL DEFAULT 0,
  group_name text COLLATE "C",
  PRIMARY KEY (status_page_id, monitor_id),
  FOREIGN KEY (status_page_id) REFERENCES status_pages (id) ON DELETE CASCADE,
  FOREIGN KEY (monitor_id) REFERENCES monitors (id) ON DELETE CASCADE
);

CREATE TABLE status_page_subscribers (
  id text COLLATE "C" NOT NULL,
  status_page_id text COLLATE "C" NOT NULL,
  email text COLLATE "C" NOT NULL,
  link_base text COLLATE "C" NOT NULL,
  confirmed_at text COLLATE "C",
  confirmation_sent_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (status_page_id) REFERENCES status_pages (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX status_page_subscribers_page_email ON status_page_subscribers (status_page_id, email);
CREATE INDEX status_page_subscribers_page_created ON status_page_subscribers (status_page_id, created_at);
CREATE INDEX status_page_subscribers_email ON status_page_subscribers (email, confirmation_sent_at);

CREATE TABLE status_page_mails (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  subscriber_id text COLLATE "C",
  kind text COLLATE "C" NOT NULL,
  subject text COLLATE "C" NOT NULL,
  body text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (id),
  FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE,
  FOREIGN KEY (subscriber_id) REFERENCES status_page_subscribers (id) ON DELETE SET NULL
);
CREATE INDEX status_page_mails_org_created ON status_page_mails (organization_id, created_at);

CREATE TABLE status_page_maintenance_notices (
  status_page_id text COLLATE "C" NOT NULL,
  window_id text COLLATE "C" NOT NULL,
  starts_at text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (status_page_id, window_id, starts_at),
  FOREIGN KEY (status_page_id) REFERENCES status_pages (id) ON DELETE CASCADE
);

-- The figures /metrics reads are kept by triggers in the transaction of each write (cascades
-- included), as on SQLite.
CREATE FUNCTION weir_count_breaker_phases() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE delivery_breaker_phases SET n = n - 1 WHERE phase = OLD.phase;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO delivery_breaker_phases (phase, n) VALUES (NEW.phase, 1)
      ON CONFLICT (phase) DO UPDATE SET n = delivery_breaker_phases.n + 1;
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER delivery_breakers_phases_insert AFTER INSERT ON delivery_breakers
  FOR EACH ROW EXECUTE FUNCTION weir_count_breaker_phases();
CREATE TRIGGER delivery_breakers_phases_delete AFTER DELETE ON delivery_breakers
  FOR EACH ROW EXECUTE FUNCTION weir_count_breaker_phases();
CREATE TRIGGER delivery_breakers_phases_update AFTER UPDATE OF phase ON delivery_breakers
  FOR EACH ROW WHEN (OLD.phase IS DISTINCT FROM NEW.phase)
  EXECUTE FUNCTION weir_count_breaker_phases();

CREATE FUNCTION weir_count_issue_statuses() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE issue_status_counts SET n = n - 1 WHERE status = OLD.status;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO issue_status_counts (status, n) VALUES (NEW.status, 1)
      ON CONFLICT (status) DO UPDATE SET n = issue_status_counts.n + 1;
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER issues_status_counts_insert AFTER INSERT ON issues
  FOR EACH ROW EXECUTE FUNCTION weir_count_issue_statuses();
CREATE TRIGGER issues_status_counts_delete AFTER DELETE ON issues
  FOR EACH ROW EXECUTE FUNCTION weir_count_issue_statuses();
CREATE TRIGGER issues_status_counts_update AFTER UPDATE OF status ON issues
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION weir_count_issue_statuses();

-- A deleted bridge's health days go with it (a deleted destination's stay: they are part of its
-- bridge's history).
CREATE FUNCTION weir_forget_bridge_health_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM delivery_health_days WHERE bridge_id = OLD.id;
  RETURN NULL;
END;
$$;
CREATE TRIGGER delivery_health_days_bridge_deleted AFTER DELETE ON bridges
  FOR EACH ROW EXECUTE FUNCTION weir_forget_bridge_health_days();
