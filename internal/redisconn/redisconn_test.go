package redisconn

import (
	"errors"
	"flag"
	"io"
	"slices"
	"testing"
	"time"
)

func TestModeValidateNames(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		mode    Mode
		prefix  string
		wantErr bool
	}{
		{"default", Options{}, ModeSingle, "verdict", false},
		{"single with db", Options{Addrs: []string{"10.0.0.5:6380"}, DB: 3, Prefix: "oj"}, ModeSingle, "oj", false},
		{"sentinel", Options{Addrs: []string{"s1:26379", "s2:26379"}, MasterName: "mymaster"}, ModeSentinel, "verdict", false},
		{"cluster by addresses", Options{Addrs: []string{"a:7000", "b:7001"}}, ModeCluster, "{verdict}", false},
		{"cluster by flag", Options{Addrs: []string{"a:7000"}, Cluster: true, Prefix: "oj"}, ModeCluster, "{oj}", false},
		{"cluster keeps a tag", Options{Cluster: true, Prefix: "site1:{oj}"}, ModeCluster, "site1:{oj}", false},
		{"empty braces are no tag", Options{Cluster: true, Prefix: "a{}"}, ModeCluster, "{a{}}", false},
		{"cluster with a db", Options{Addrs: []string{"a:7000", "b:7001"}, DB: 1}, ModeCluster, "{verdict}", true},
		{"sentinel and cluster", Options{MasterName: "m", Cluster: true}, ModeSentinel, "verdict", true},
		{"no port", Options{Addrs: []string{"localhost"}}, ModeSingle, "verdict", true},
		{"negative db", Options{DB: -1}, ModeSingle, "verdict", true},
		{"negative pool", Options{PoolSize: -1}, ModeSingle, "verdict", true},
		{"space in prefix", Options{Prefix: "a b"}, ModeSingle, "a b", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.o.Mode(); got != tc.mode {
				t.Errorf("Mode = %s, want %s", got, tc.mode)
			}
			if got := tc.o.Names().Prefix(); got != tc.prefix {
				t.Errorf("prefix = %q, want %q", got, tc.prefix)
			}
			err := tc.o.Validate()
			if (err != nil) != tc.wantErr {
				t.Fatalf("Validate = %v, want error %v", err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			c, err := tc.o.Client()
			if (err != nil) != tc.wantErr {
				t.Fatalf("Client error = %v, want error %v", err, tc.wantErr)
			}
			if c != nil {
				c.Close()
			}
		})
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		args []string
		want Options
	}{
		{nil, Options{Addrs: []string{"127.0.0.1:6379"}}},
		{[]string{"--redis", " a:1 , b:2 ,"}, Options{Addrs: []string{"a:1", "b:2"}}},
		{[]string{"--redis", "s:26379", "--redis-master", "mm", "--redis-db", "2", "--redis-password", "pw"},
			Options{Addrs: []string{"s:26379"}, MasterName: "mm", DB: 2, Password: "pw"}},
		{[]string{"--redis-cluster"}, Options{Addrs: []string{"127.0.0.1:6379"}, Cluster: true}},
		{[]string{"--redis-pool", "64"}, Options{Addrs: []string{"127.0.0.1:6379"}, PoolSize: 64}},
		{[]string{"--redis-loading-wait", "20s"}, Options{Addrs: []string{"127.0.0.1:6379"}, LoadingWait: 20 * time.Second}},
		{[]string{"--redis-loading-wait", "-1s"}, Options{Addrs: []string{"127.0.0.1:6379"}, LoadingWait: -time.Second}},
	}
	for _, tc := range tests {
		var o Options
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o.Flags(fs, "127.0.0.1:6379", func(string) string { return "" })
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if !slices.Equal(o.Addrs, tc.want.Addrs) || o.MasterName != tc.want.MasterName || o.DB != tc.want.DB ||
			o.Password != tc.want.Password || o.Cluster != tc.want.Cluster || o.PoolSize != tc.want.PoolSize ||
			o.LoadingWait != tc.want.LoadingWait {
			t.Errorf("%v: got %+v, want %+v", tc.args, o, tc.want)
		}
	}
	var o Options
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.Flags(fs, "127.0.0.1:6379", func(string) string { return "" })
	if err := fs.Parse([]string{"--redis", " , "}); err == nil {
		t.Error("an empty address list was accepted")
	}
}

func TestStringHidesPassword(t *testing.T) {
	o := Options{Addrs: []string{"a:1"}, Password: "s3cret", DB: 2}
	if s := o.String(); s != "single a:1 db 2 prefix verdict" {
		t.Errorf("String = %q", s)
	}
}
