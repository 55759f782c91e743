package obs

import (
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Set at link time with -ldflags -X (see the package doc). Left empty, Build
// falls back to what the Go toolchain recorded in the binary.
var (
	version   string
	commit    string
	buildDate string
)

// Unknown is the value of a build field nobody recorded.
const Unknown = "unknown"

// BuildInfo describes the running binary.
type BuildInfo struct {
	Version   string // release version, e.g. "v0.3.1"
	Commit    string // VCS revision
	BuildDate string // RFC 3339 build or commit time
	GoVersion string // e.g. "go1.26.8"
}

var readBuildInfo = sync.OnceValue(func() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
})

// Build returns the build information of the running binary: the -ldflags
// values when set, else the module version and VCS settings recorded by the
// toolchain, else Unknown.
func Build() BuildInfo {
	return resolveBuild(version, commit, buildDate, readBuildInfo())
}

func resolveBuild(version, commit, date string, bi *debug.BuildInfo) BuildInfo {
	out := BuildInfo{Version: version, Commit: commit, BuildDate: date, GoVersion: runtime.Version()}
	if bi != nil {
		if out.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			out.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && out.Commit == "":
				out.Commit = s.Value
			case s.Key == "vcs.time" && out.BuildDate == "":
				out.BuildDate = s.Value
			}
		}
		if bi.GoVersion != "" {
			out.GoVersion = bi.GoVersion
		}
	}
	for _, f := range []*string{&out.Version, &out.Commit, &out.BuildDate} {
		if *f == "" {
			*f = Unknown
		}
	}
	return out
}

// buildInfoGauge is verdict_build_info{component,version,commit,goversion} 1.
func buildInfoGauge(component string, b BuildInfo) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "verdict_build_info",
		Help: "Build information of the running Verdict binary; always 1.",
		ConstLabels: prometheus.Labels{
			"component": component,
			"version":   b.Version,
			"commit":    b.Commit,
			"goversion": b.GoVersion,
		},
	})
	g.Set(1)
	return g
}
