package redisscript

import (
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestNamed(t *testing.T) {
	s := redis.NewScript(`return 'named'`)
	if got := Named("test.named", s); got != s {
		t.Fatal("Named did not return its script")
	}
	if n := NameOf(s.Hash()); n != "test.named" {
		t.Errorf("NameOf = %q, want test.named", n)
	}
	// The same script named the same again (a second package init in a
	// test binary) is fine.
	Named("test.named", redis.NewScript(`return 'named'`))
	if n := NameOf(redis.NewScript(`return 'nobody named me'`).Hash()); n != "" {
		t.Errorf("an unnamed script's name: %q", n)
	}
	defer func() {
		if recover() == nil {
			t.Error("one script named twice differently: no panic")
		}
	}()
	Named("test.other", s)
}
