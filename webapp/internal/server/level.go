package server

import "log/slog"

// slogLevelFor keeps probes quiet and server errors loud.
func slogLevelFor(route string, status int) slog.Level {
	switch {
	case status >= 500:
		return slog.LevelError
	case route == "/healthz" || route == "/readyz" || route == "/metrics":
		return slog.LevelDebug
	}
	return slog.LevelInfo
}
