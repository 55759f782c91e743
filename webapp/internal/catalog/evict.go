package catalog

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// Evict tells every hub, and through them every judge, that a problem's
// test data version is obsolete (rkeys.JudgeEvict; the hub forwards it
// as a protocol.Evict). Best effort for the caller: a judge that misses
// it still uses the new hash each task carries, and its old cache entry
// ages out.
func (c *Catalog) Evict(ctx context.Context, ev protocol.Evict) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("catalog evict: %w", err)
	}
	if err := c.cfg.Redis.Publish(ctx, c.cfg.Names.JudgeEvict(), b).Err(); err != nil {
		return fmt.Errorf("catalog evict problem %d: %w", ev.ProblemID, err)
	}
	return nil
}
