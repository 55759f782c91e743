package lang

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrConfig is wrapped by every error about a language configuration.
var ErrConfig = errors.New("lang: bad configuration")

// ErrSource is wrapped when a source file cannot be placed (e.g. a Java
// class name that is not an identifier).
var ErrSource = errors.New("lang: bad source")

// Language is one language a judge compiles and runs. In Compile, Run and
// Env these placeholders are replaced per submission:
//
//	{src}         the source file name, e.g. main.cpp or Solution.java
//	{class}       the Java class name rule's result (file name without .java)
//	{memory_mib}  the run's memory limit in MiB (for the JVM's -Xmx)
//
// Programs (Compile[0], Run[0], Version[0]) are names looked up in the
// sandbox's PATH (/usr/local/bin, /usr/bin, /bin) plus ExtraPath, or
// absolute paths; they must live under the sandbox's read-only binds (/usr,
// /bin, /lib...). A language whose programs are missing is not advertised.
type Language struct {
	// ID is what tasks and the webapp call it: "cpp17".
	ID string `json:"id"`
	// Name is for people: "C++17 (g++)".
	Name string `json:"name,omitempty"`
	// Source is the source file name. "{class}.java" applies the Java rule:
	// the first `public class X` names the file X.java, else Main.java.
	Source string `json:"source"`
	// Compile is the compile command (run under the compile profile), empty
	// for none. A non-zero exit is a compile error.
	Compile []string `json:"compile,omitempty"`
	// Run is the command that runs the program in its work directory.
	Run []string `json:"run"`
	// Version prints the toolchain version; its first non-empty line (stdout,
	// else stderr) is reported to the hub.
	Version []string `json:"version"`
	// Env for compile and run (default PATH=/usr/local/bin:/usr/bin:/bin
	// HOME=/w LANG=C.UTF-8, which these replace entirely when set).
	Env []string `json:"env,omitempty"`
	// ExtraPath lists extra directories to find the programs in, e.g.
	// /usr/local/go/bin.
	ExtraPath []string `json:"extra_path,omitempty"`

	// TimeScale and TimeExtraMs turn the problem's CPU limit into this
	// language's: limit*scale + extra. Default scale 1.
	TimeScale   float64 `json:"time_scale,omitempty"`
	TimeExtraMs int64   `json:"time_extra_ms,omitempty"`
	// MemoryScale and MemoryExtraKiB do the same for memory (the cgroup
	// limit). Default scale 1.
	MemoryScale    float64 `json:"memory_scale,omitempty"`
	MemoryExtraKiB int64   `json:"memory_extra_kib,omitempty"`
	// Procs is processes+threads allowed to a run (1: single-threaded,
	// no fork). The JVM needs dozens.
	Procs int `json:"procs,omitempty"`
	// StackKiB is RLIMIT_STACK for runs; 0: the memory limit (glibc then
	// gives every thread that much, so multi-threaded runtimes want less).
	StackKiB int64 `json:"stack_kib,omitempty"`
	// UnlimitedAddressSpace lifts RLIMIT_AS (the JVM reserves far more
	// address space than it uses); the cgroup still bounds memory.
	UnlimitedAddressSpace bool `json:"unlimited_address_space,omitempty"`

	// CompileTimeMs, CompileMemoryKiB and CompileProcs bound the compiler.
	// Defaults 10000 ms CPU (wall 3x), 1 GiB, 64.
	CompileTimeMs    int64 `json:"compile_time_ms,omitempty"`
	CompileMemoryKiB int64 `json:"compile_memory_kib,omitempty"`
	// CompileFileKiB bounds every file the compiler writes (RLIMIT_FSIZE):
	// object files, archives, the binary. Default DefaultCompileFileKiB.
	CompileFileKiB int64 `json:"compile_file_kib,omitempty"`
	CompileProcs   int   `json:"compile_procs,omitempty"`

	// BuildCache is a directory, relative to the work directory, where the
	// compiler keeps a build cache (Go: ".gocache", with GOCACHE=/w/.gocache
	// in Env). The judge seeds each compile with a private copy of the cache
	// it kept from its own warm-up compile (BuildCacheWarm), so the
	// toolchain's standard library is compiled once per judge, not once per
	// submission; the copy is discarded after the compile and nothing of it
	// is kept. Empty: none.
	BuildCache string `json:"build_cache,omitempty"`
	// BuildCacheWarm is a source file (the judge's own code) compiled once
	// per judge process to fill the kept build cache: the kept cache holds
	// only what this compile wrote, never anything a submission's compile
	// did. Empty: every compile starts from an empty cache.
	BuildCacheWarm string `json:"build_cache_warm,omitempty"`

	// Disabled removes a built-in language in a configuration file.
	Disabled bool `json:"disabled,omitempty"`
}

// SandboxPath is the PATH programs see in the sandbox.
var SandboxPath = []string{"/usr/local/bin", "/usr/bin", "/bin"}

// Defaults are the built-in languages. A configuration file overrides them
// by id.
func Defaults() []Language {
	cpp := func(id, std, name string) Language {
		return Language{ID: id, Name: name, Source: "main.cpp",
			Compile: []string{"g++", "-std=" + std, "-O2", "-pipe", "-DONLINE_JUDGE", "-o", "main", "{src}"},
			Run:     []string{"./main"}, Version: []string{"g++", "--version"}}
	}
	return []Language{
		{ID: "c17", Name: "C17 (gcc)", Source: "main.c",
			Compile: []string{"gcc", "-std=c17", "-O2", "-pipe", "-DONLINE_JUDGE", "-o", "main", "{src}", "-lm"},
			Run:     []string{"./main"}, Version: []string{"gcc", "--version"}},
		cpp("cpp17", "c++17", "C++17 (g++)"),
		cpp("cpp20", "c++20", "C++20 (g++)"),
		{ID: "py3", Name: "Python 3 (CPython)", Source: "main.py",
			// py_compile turns a syntax error into a compile error.
			Compile:   []string{"python3", "-m", "py_compile", "{src}"},
			Run:       []string{"python3", "-S", "{src}"},
			Version:   []string{"python3", "--version"},
			TimeScale: 2, CompileTimeMs: 5000, CompileProcs: 1},
		{ID: "java17", Name: "Java 17 (OpenJDK)", Source: "{class}.java",
			Compile: []string{"javac", "-encoding", "UTF-8", "-J-Xss8m", "-J-XX:+UseSerialGC", "-J-Xshare:auto", "{src}"},
			Run: []string{"java", "-Xmx{memory_mib}m", "-Xss64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
				"-XX:-UsePerfData", "-Xshare:auto", "-cp", ".", "{class}"},
			Version:   []string{"javac", "-version"},
			TimeScale: 2, TimeExtraMs: 1000, MemoryExtraKiB: 128 << 10,
			Procs: 64, StackKiB: 8 << 10, UnlimitedAddressSpace: true,
			CompileTimeMs: 20000, CompileMemoryKiB: 2 << 20},
		{ID: "go", Name: "Go", Source: "main.go",
			Compile: []string{"go", "build", "-o", "main", "{src}"},
			Run:     []string{"./main"}, Version: []string{"go", "version"},
			Env: []string{"PATH=/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin", "HOME=/w", "LANG=C.UTF-8",
				// GOTMPDIR: the sandbox's /tmp is a small tmpfs; the go
				// command's build directory goes in the work directory.
				"GOCACHE=/w/.gocache", "GOPATH=/w/.gopath", "GOTMPDIR=/w", "GO111MODULE=off", "CGO_ENABLED=0", "GOTOOLCHAIN=local"},
			ExtraPath: []string{"/usr/local/go/bin"}, BuildCache: ".gocache", BuildCacheWarm: goWarmSource,
			Procs: 16, StackKiB: 8 << 10, UnlimitedAddressSpace: true,
			CompileTimeMs: 60000, CompileMemoryKiB: 2 << 20},
	}
}

// goWarmSource fills the Go build cache with the standard library packages
// submissions use (and what they import).
const goWarmSource = `package main

import (
	_ "bufio"
	_ "bytes"
	_ "cmp"
	_ "container/heap"
	_ "container/list"
	_ "container/ring"
	_ "errors"
	_ "fmt"
	_ "io"
	_ "maps"
	_ "math"
	_ "math/big"
	_ "math/bits"
	_ "math/rand"
	_ "math/rand/v2"
	_ "os"
	_ "regexp"
	_ "slices"
	_ "sort"
	_ "strconv"
	_ "strings"
	_ "sync"
	_ "sync/atomic"
	_ "time"
	_ "unicode"
	_ "unicode/utf8"
)

func main() {}
`

// DefaultCompileFileKiB is the default CompileFileKiB: big enough for
// toolchains that write multi-megabyte intermediates (Go's runtime archive),
// small enough that a compile bomb cannot fill the judge's disk.
const DefaultCompileFileKiB = 256 << 10

// File is the JSON configuration file: languages merged over the defaults
// by id (a listed id replaces the built-in one entirely; "disabled": true
// removes it; a new id adds a language).
type File struct {
	Languages []Language `json:"languages"`
}

// Load returns the defaults merged with the file at path ("" for none).
func Load(path string) ([]Language, error) {
	langs := Defaults()
	if path == "" {
		return langs, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	return Merge(langs, f.Languages)
}

// Merge applies overrides to base by id and validates the result.
func Merge(base, overrides []Language) ([]Language, error) {
	out := append([]Language(nil), base...)
	for _, o := range overrides {
		i := indexOf(out, o.ID)
		switch {
		case o.Disabled && i >= 0:
			out = append(out[:i], out[i+1:]...)
		case o.Disabled:
		case i >= 0:
			out[i] = o
		default:
			out = append(out, o)
		}
	}
	var errs []error
	for _, l := range out {
		if err := l.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

func indexOf(ls []Language, id string) int {
	for i, l := range ls {
		if l.ID == id {
			return i
		}
	}
	return -1
}

var idRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.+-]{0,31}$`)

// Validate checks a language definition.
func (l Language) Validate() error {
	var errs []error
	if !idRE.MatchString(l.ID) {
		errs = append(errs, fmt.Errorf("id %q: want lower-case letters, digits, _.+- (max 32)", l.ID))
	}
	if l.Source == "" || strings.ContainsAny(l.Source, "/\\") {
		errs = append(errs, fmt.Errorf("source %q: want a plain file name", l.Source))
	}
	if len(l.Run) == 0 {
		errs = append(errs, errors.New("run is empty"))
	}
	if len(l.Version) == 0 {
		errs = append(errs, errors.New("version is empty"))
	}
	if l.TimeScale < 0 || l.MemoryScale < 0 || l.TimeExtraMs < 0 || l.MemoryExtraKiB < 0 || l.Procs < 0 || l.StackKiB < 0 {
		errs = append(errs, errors.New("negative scale, extra, procs or stack"))
	}
	if c := l.BuildCache; c != "" {
		clean := filepath.Clean(c)
		if filepath.IsAbs(c) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || clean == l.Source {
			errs = append(errs, fmt.Errorf("build_cache %q: want a directory inside the work directory", c))
		}
	}
	if l.BuildCacheWarm != "" && l.BuildCache == "" {
		errs = append(errs, errors.New("build_cache_warm without build_cache"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: language %q: %w", ErrConfig, l.ID, err)
	}
	return nil
}

// TimeLimit scales a problem's CPU limit for this language.
func (l Language) TimeLimit(d time.Duration) time.Duration {
	s := l.TimeScale
	if s == 0 {
		s = 1
	}
	return time.Duration(float64(d)*s) + time.Duration(l.TimeExtraMs)*time.Millisecond
}

// MemoryLimit scales a problem's memory limit (bytes) for this language.
func (l Language) MemoryLimit(b int64) int64 {
	s := l.MemoryScale
	if s == 0 {
		s = 1
	}
	return int64(float64(b)*s) + l.MemoryExtraKiB<<10
}

var javaClassRE = regexp.MustCompile(`(?m)^\s*public\s+(?:(?:final|abstract|strictfp)\s+)*class\s+([A-Za-z_$][A-Za-z0-9_$]*)`)

// SourceName returns the file name for source and the {class} value.
func (l Language) SourceName(source string) (file, class string, err error) {
	if !strings.Contains(l.Source, "{class}") {
		return l.Source, strings.TrimSuffix(l.Source, filepath.Ext(l.Source)), nil
	}
	class = "Main"
	if m := javaClassRE.FindStringSubmatch(source); m != nil {
		class = m[1]
	}
	if len(class) > 64 {
		return "", "", fmt.Errorf("%w: class name %q is too long", ErrSource, class)
	}
	return strings.ReplaceAll(l.Source, "{class}", class), class, nil
}

// Expand replaces the placeholders in argv.
func Expand(argv []string, src, class string, memoryBytes int64) []string {
	r := strings.NewReplacer("{src}", src, "{class}", class, "{memory_mib}", strconv.FormatInt(max(memoryBytes>>20, 16), 10))
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = r.Replace(a)
	}
	return out
}

// Available is a language whose toolchain was found, with its version.
type Available struct {
	Language
	// VersionText is the first line the version command printed.
	VersionText string
	// CompileArgv0 and RunArgv0 are the resolved program paths.
	CompileArgv0, RunArgv0 string
}

// Resolve finds name as the sandbox would: absolute, or in SandboxPath plus
// extra. It returns "" when not found (or not executable).
func Resolve(name string, extra []string) string {
	if strings.Contains(name, "/") {
		if strings.HasPrefix(name, "./") {
			return name // built in the work dir
		}
		if isExec(name) {
			return name
		}
		return ""
	}
	for _, d := range append(append([]string(nil), SandboxPath...), extra...) {
		p := filepath.Join(d, name)
		if isExec(p) {
			return p
		}
	}
	return ""
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// Detect keeps the languages whose programs exist and reads each version
// (the version command runs on the host, outside the sandbox: it is the
// admin's toolchain, not untrusted code). Missing ones are logged and left
// out.
func Detect(ctx context.Context, langs []Language, log *slog.Logger) []Available {
	var out []Available
	for _, l := range langs {
		a, err := detect(ctx, l)
		if err != nil {
			log.Warn("language not available", "language", l.ID, "err", err)
			continue
		}
		out = append(out, a)
	}
	return out
}

func detect(ctx context.Context, l Language) (Available, error) {
	a := Available{Language: l}
	if len(l.Compile) > 0 {
		if a.CompileArgv0 = Resolve(l.Compile[0], l.ExtraPath); a.CompileArgv0 == "" {
			return a, fmt.Errorf("compiler %q not found", l.Compile[0])
		}
	}
	if a.RunArgv0 = Resolve(l.Run[0], l.ExtraPath); a.RunArgv0 == "" {
		return a, fmt.Errorf("runtime %q not found", l.Run[0])
	}
	vp := Resolve(l.Version[0], l.ExtraPath)
	if vp == "" {
		return a, fmt.Errorf("version program %q not found", l.Version[0])
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, vp, l.Version[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return a, fmt.Errorf("%s: %w: %s", strings.Join(l.Version, " "), err, firstLine(stderr.String()))
	}
	a.VersionText = firstLine(stdout.String())
	if a.VersionText == "" {
		a.VersionText = firstLine(stderr.String())
	}
	if a.VersionText == "" {
		a.VersionText = "unknown"
	}
	return a, nil
}

func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			if len(t) > 200 {
				t = t[:200]
			}
			return t
		}
	}
	return ""
}
