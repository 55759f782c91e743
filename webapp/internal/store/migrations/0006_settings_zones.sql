-- 0006: site settings set by admins at run time, and each contest's time
-- zone.
--
-- settings: one row per setting, its value a JSON document (the web nodes
-- cache it a few seconds; see webapp/internal/settings). The first is
-- "registration": {"mode": "open" | "closed" | "domains", "domains": [...]};
-- no row means open, as before this migration.
CREATE TABLE settings (
  name       VARCHAR(64)  NOT NULL,
  value      TEXT         NOT NULL,
  updated_by BIGINT       NULL,
  updated_at DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  PRIMARY KEY (name),
  CONSTRAINT fk_settings_user FOREIGN KEY (updated_by) REFERENCES users (id) ON DELETE SET NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- time_zone: the IANA name (Europe/Berlin) the contest's times are shown
-- and entered in; start_at and end_at stay instants in UTC.
ALTER TABLE contests ADD COLUMN time_zone VARCHAR(64) NOT NULL DEFAULT 'UTC' AFTER end_at;
