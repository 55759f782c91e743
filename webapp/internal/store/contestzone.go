package store

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// setContestZone sets contest id's time zone (Contest.TimeZone); "" keeps
// it. Its own statement, beside the contest's insert or update.
func setContestZone(ctx context.Context, db sqlx.ExecerContext, id int64, zone string) error {
	if zone == "" {
		return nil
	}
	_, err := db.ExecContext(ctx, "UPDATE contests SET time_zone = ? WHERE id = ?", zone, id)
	return err
}
