package simjudge

import (
	"errors"
	"testing"
)

func TestNewConfig(t *testing.T) {
	ok := Config{HubURL: "wss://oj.example.edu/judge", ID: "sim-1", Token: "t"}
	tests := []struct {
		name   string
		change func(*Config)
		bad    bool
	}{
		{"defaults", func(*Config) {}, false},
		{"http URL", func(c *Config) { c.HubURL = "http://oj.example.edu/judge" }, true},
		{"no host", func(c *Config) { c.HubURL = "ws:///judge" }, true},
		{"no id", func(c *Config) { c.ID = "" }, true},
		{"no token", func(c *Config) { c.Token = "" }, true},
		{"negative slots", func(c *Config) { c.Slots = -1 }, true},
		{"negative speed", func(c *Config) { c.Speed = -2 }, true},
		{"empty language id", func(c *Config) {
			c.Languages = append(DefaultLanguages(), DefaultLanguages()[0])
			c.Languages[0].ID = ""
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.change(&c)
			j, err := New(c)
			if tt.bad {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("New = %v, want ErrConfig", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := j.cfg
			if got.Slots != 8 || got.Speed != 1 || got.Cores != 8 || got.TestDataBase != "https://oj.example.edu/api/judge/testdata/" || len(got.Languages) != 6 {
				t.Fatalf("defaults %+v", got)
			}
			if h := j.hello(); h.Validate() != nil || h.MaxParallel != 8 || len(h.CachedData) != 0 || h.CachedData == nil {
				t.Fatalf("hello %+v: %v", h, h.Validate())
			}
		})
	}
}
