package server

import (
	"strings"
	"sync"
	"time"
	// The zone database in the binary: a web node on a host without
	// /usr/share/zoneinfo still knows every contest's zone.
	_ "time/tzdata"
)

// MaxTimeZoneLen bounds a contest's time zone name (the column's size).
const MaxTimeZoneLen = 64

// zones caches loaded time zones: time.LoadLocation reads the zone
// database on every call.
var zones sync.Map // name -> *time.Location

// location is the IANA zone name's *time.Location; ok false when Go's zone
// database does not know it. "" is UTC.
func location(name string) (*time.Location, bool) {
	if name == "" || name == "UTC" {
		return time.UTC, true
	}
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location), true
	}
	// "Local" names the server's zone, not one a browser knows; zone
	// names are IANA names only (a "/" or UTC, as Intl gives them).
	if name == "Local" || len(name) > MaxTimeZoneLen || !strings.Contains(name, "/") && !strings.HasPrefix(name, "Etc") {
		return nil, false
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, false
	}
	zones.Store(name, l)
	return l, true
}

// checkTimeZone validates a contest's time zone (from time_zone).
func checkTimeZone(name string) *APIError {
	if _, ok := location(name); !ok {
		return badField("time_zone", "must be an IANA time zone name like Europe/Berlin or UTC")
	}
	return nil
}

// contestZone is the contest's zone name and location (UTC when unset or
// unknown).
func contestZone(name string) (string, *time.Location) {
	if l, ok := location(name); ok && name != "" {
		return name, l
	}
	return "UTC", time.UTC
}
