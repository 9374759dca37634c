package redact

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tape-dev/tape/internal/rawjson"
	"github.com/tape-dev/tape/redact/redacttest"
)

var (
	sharedOnce sync.Once
	shared     *Redactor
	sharedErr  error
)

// testRedactor is one Redactor for the package's tests: building one
// parses the rule set.
func testRedactor(t testing.TB) *Redactor {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = New() })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// places are where a transcript holds text, as tape entries' payloads.
var places = map[string]func(text string) []byte{
	"message": func(text string) []byte {
		return rawjson.NewObject().Str("role", "user").Str("content", text).Done()
	},
	"tool arguments": func(text string) []byte {
		args := rawjson.NewObject().Str("command", text).Done()
		fn := rawjson.NewObject().Str("name", "Bash").Str("arguments", string(args)).Done()
		return rawjson.NewObject().Raw("calls", rawjson.Array(rawjson.NewObject().Str("id", "c1").Raw("function", fn).Done())).Done()
	},
	"tool output": func(text string) []byte {
		res := rawjson.NewObject().Str("tool_call_id", "c1").Raw("content", rawjson.Array(rawjson.NewObject().Str("type", "text").Str("text", "$ run\n"+text+"\nexit 0").Done())).Done()
		return rawjson.NewObject().Raw("results", rawjson.Array(res)).Done()
	},
	"thinking": func(text string) []byte {
		data := rawjson.NewObject().Str("thinking", "The user pasted "+text+" so I should not echo it.").Done()
		return rawjson.NewObject().Str("name", "thinking").Raw("data", data).Done()
	},
}

func TestPlantedSecretsAreRedacted(t *testing.T) {
	t.Parallel()
	r := testRedactor(t)
	for seed := range uint64(5) {
		rng := rand.New(rand.NewPCG(seed, 36))
		secrets := redacttest.Secrets(rng)
		if len(secrets) < 20 {
			t.Fatalf("%d kinds of secrets planted; the issue asks for 20 or more", len(secrets))
		}
		for _, p := range secrets {
			text, found := r.Text(p.Line)
			if strings.Contains(text, p.Secret) {
				t.Errorf("seed %d, %s: left in the text: %q", seed, p.Name, text)
			}
			if !strings.Contains(text, Mark(p.Kind)) {
				t.Errorf("seed %d, %s: %q; want it marked %s (found %v)", seed, p.Name, text, Mark(p.Kind), kinds(found))
			}
			for place, payload := range places {
				raw := payload(p.Line)
				out, found := r.JSON(raw)
				if strings.Contains(string(out), p.Secret) || strings.Contains(string(out), jsonInner(p.Secret)) {
					t.Errorf("seed %d, %s in a %s: left in %s", seed, p.Name, place, out)
				}
				if len(found) == 0 || !json.Valid(out) {
					t.Errorf("seed %d, %s in a %s: found %v, valid JSON %v: %s", seed, p.Name, place, kinds(found), json.Valid(out), out)
				}
			}
		}
	}
}

func kinds(found []Finding) []string {
	var ks []string
	for _, f := range found {
		ks = append(ks, f.Kind)
	}
	return ks
}

// Every secret at once, in one entry, and the rest of the JSON as it was.
func TestJSONKeepsAllButTheSecrets(t *testing.T) {
	t.Parallel()
	r := testRedactor(t)
	secrets := redacttest.Secrets(rand.New(rand.NewPCG(7, 36)))
	var lines []string
	for _, p := range secrets {
		lines = append(lines, p.Line)
	}
	raw := []byte(`{"n": 1.50, "list": [true, null, "plain words"], "content": ` + string(rawjson.AppendString(nil, strings.Join(lines, "\n"))) + `, "z": "last"}`)
	out, found := r.JSON(raw)
	for _, p := range secrets {
		if strings.Contains(string(out), jsonInner(p.Secret)) {
			t.Errorf("%s left in the output", p.Name)
		}
	}
	if len(found) < len(secrets) {
		t.Errorf("found %d secrets; planted %d", len(found), len(secrets))
	}
	for _, kept := range []string{`{"n": 1.50, "list": [true, null, "plain words"], "content": "`, `", "z": "last"}`} {
		if !strings.Contains(string(out), kept) {
			t.Errorf("%q changed: %s", kept, out)
		}
	}
	if again, more := r.JSON(out); string(again) != string(out) || len(more) != 0 {
		t.Errorf("redacting twice found %v more", kinds(more))
	}
}

// Text that names keys, tokens and passwords without holding one is left
// alone: code, placeholders, hashes, ids.
func TestOrdinaryTextIsKept(t *testing.T) {
	t.Parallel()
	r := testRedactor(t)
	for _, text := range []string{
		"token := auth.Token(ctx)",
		"password: ${DB_PASSWORD}",
		`api_key = os.environ["API_KEY"]`,
		`"password": "<your password here>"`,
		"SECRET_KEY=changeme-in-production-123",
		"postgres://user:password@localhost/db",
		"postgres://${PGUSER}:${PGPASSWORD}@db/app",
		"commit 3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c",
		"session_id: 5d7e6b2e-1a3c-4f0e-9b8a-2c4d6e8f0a12",
		"golang.org/x/sys v0.49.0 h1:Yhq0WQ5dQ3XbKz7gJvaA3uCx1P8aIcSQ+8Rj1yYvJ0w=",
		"The secret to a good test is that it can fail.",
		"tokens: 12345 input, 678 output",
		"max_tokens=4096",
		"修复解析器: the password field is now hashed with bcrypt",
	} {
		if found := r.Find(text); len(found) > 0 {
			t.Errorf("%q: found %v", text, kinds(found))
		}
	}
}

func TestEntropy(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want float64
	}{{"aaaa", 0}, {"abab", 1}, {"abcd", 2}} {
		if got := entropy(tc.s); got != tc.want {
			t.Errorf("entropy(%q) = %v; want %v", tc.s, got, tc.want)
		}
	}
}

func FuzzJSON(f *testing.F) {
	f.Add([]byte(`{"a": "DATABASE_PASSWORD=Xy9abcDEF123ghiJKL456mn", "b": [1, "x\"y"]}`))
	f.Add([]byte(`"-----BEGIN RSA PRIVATE KEY-----\nMIIB\n"`))
	f.Add([]byte(`{"unterminated": "abc`))
	r := testRedactor(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, found := r.JSON(raw)
		if len(found) == 0 && string(out) != string(raw) {
			t.Fatalf("nothing found, but %q became %q", raw, out)
		}
		if json.Valid(raw) && !json.Valid(out) {
			t.Fatalf("valid %q became invalid %q", raw, out)
		}
		for _, fd := range found {
			if strings.Contains(string(out), jsonInner(fd.Secret)) && !strings.Contains(string(out), Mark(fd.Kind)) {
				t.Fatalf("%s left in %q", fd.Kind, out)
			}
		}
	})
}

// A secret cut short (a snippet, an excerpt at a width) goes with the
// whole: its start is replaced too.
func TestReplaceCutSecrets(t *testing.T) {
	t.Parallel()
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	f := Finding{Kind: "github-pat", Secret: secret}
	for _, tc := range []struct{ in, want string }{
		{"token " + secret[:20] + "…", "token [REDACTED:github-pat]…"},
		{"x " + secret + " y", "x [REDACTED:github-pat] y"},
		{"short " + secret[:8] + "…", "short " + secret[:8] + "…"},
	} {
		if got := Replace(tc.in, []Finding{f}); got != tc.want {
			t.Errorf("Replace(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A secret that is not the last string of a value is found: each string
// ends where the next begins as a text ends.
func TestSecretsBeforeOtherStrings(t *testing.T) {
	t.Parallel()
	r := testRedactor(t)
	for _, p := range redacttest.Secrets(rand.New(rand.NewPCG(9, 36))) {
		raw := []byte(`{"t":` + string(rawjson.AppendString(nil, p.Line)) + `,"u":"x","role":"user"}`)
		out, _ := r.JSON(raw)
		if strings.Contains(string(out), jsonInner(p.Secret)) {
			t.Errorf("%s, before another string: left in %s", p.Name, out)
		}
	}
}

// A run of name bytes is looked at once: hostile text of stems is linear.
func TestFindOfManyStemsIsLinear(t *testing.T) {
	t.Parallel()
	r := testRedactor(t)
	text := strings.Repeat("key", 40000) // 120 KB, once 7 minutes
	done := make(chan struct{})
	go func() { r.Find(text); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Find of 120 KB of key-like names has run 20 s")
	}
}

// A secret in a JSON text held in a string goes, however that text
// escapes it (\u0026, as encoding/json writes &).
func TestNestedJSONOfOtherEscapes(t *testing.T) {
	t.Parallel()
	r := testRedactor(t)
	raw := []byte(`{"arguments":"{\"command\":\"export DB_PASSWORD=Xk9\\u0026vQ2mZr7Lw4Tn8Pb\"}"}`)
	out, found := r.JSON(raw)
	if len(found) == 0 || strings.Contains(string(out), "vQ2mZr7Lw4Tn8Pb") || !json.Valid(out) {
		t.Errorf("found %v; out %s", kinds(found), out)
	}
}

// A long title that ends inside a token loses the token's start.
func TestTitleCutInsideASecret(t *testing.T) {
	t.Parallel()
	r := testRedactor(t)
	long := strings.Repeat("please look at this ", 15)
	if got := r.Title(long + "key sk_live_4eC39HqLyjWDarjtT1"); strings.Contains(got, "4eC39HqLyjWDarjtT1") {
		t.Errorf("the cut token stays: %q", got)
	}
	if got := r.Title(long + "and the words after"); got != long+"and the words after" {
		t.Errorf("a title of words changed: %q", got)
	}
}
