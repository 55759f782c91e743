package protocol

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecode checks that Decode never panics, and that whatever it accepts
// encodes and decodes back to the same envelope, and that decoding its
// payload never panics either.
func FuzzDecode(f *testing.F) {
	for _, dir := range []string{"judge", "live"} {
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		if err != nil {
			f.Fatal(err)
		}
		if len(files) == 0 {
			f.Fatalf("no golden files in testdata/%s", dir)
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`{"v":1,"type":"subscribe","id":"a\u2028<>&\ufffd","data":{"x":"\u003c"}}`))
	f.Add([]byte(`{"V":1,"TYPE":"accept","data":{"Submission_ID":1,"attempt":1},"data":{}}`))

	f.Fuzz(func(t *testing.T, b []byte) {
		for _, link := range []Link{LinkJudge, LinkLive} {
			env, err := Decode(link, b)
			if err != nil {
				continue
			}
			out, err := Encode(link, env)
			if err != nil {
				t.Fatalf("Decode accepted %q as %+v but Encode failed: %v", b, env, err)
			}
			back, err := Decode(link, out)
			if err != nil {
				t.Fatalf("Decode(Encode(%+v)) = %q: %v", env, out, err)
			}
			if !reflect.DeepEqual(env, back) {
				t.Fatalf("round trip changed the envelope:\n%+v (data %s)\n%+v (data %s)", env, env.Data, back, back.Data)
			}
			if p, err := decodePayload(env); err == nil {
				// A payload that decodes and validates marshals again.
				if _, err := Marshal(env.Type, env.ID, p); err != nil && len(out) < link.MaxMessageSize()/2 {
					t.Fatalf("payload %+v decoded and validated but Marshal failed: %v", p, err)
				}
			}
		}
	})
}
