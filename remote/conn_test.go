package remote

import (
	"errors"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"postgres://tape:s3cret@db:5432/team?sslmode=require", "postgres://tape:xxxxx@db:5432/team?sslmode=require"},
		{"postgresql://tape@db/team", "postgresql://tape@db/team"},
		{"postgres://db/team?password=s3cret&sslmode=disable", "postgres://db/team?password=xxxxx&sslmode=disable"},
		{"postgres://tape:p%40ss@db/team", "postgres://tape:xxxxx@db/team"},
		{"postgres://db/team?sslpassword=s3cret", "postgres://db/team?sslpassword=xxxxx"},
		{"postgress://u:s3cret@db/team", "postgress://u:xxxxx@db/team"},
		{"host=db password=s3cret", "…"},
		{"postgres://u:s3cret@[::1/db", "postgres://…"},
	} {
		got := Redact(tc.url)
		if got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.url, got, tc.want)
		}
		if strings.Contains(got, "s3cret") || strings.Contains(got, "p%40ss") {
			t.Errorf("Redact(%q) = %q shows the password", tc.url, got)
		}
	}
}

func TestResolveURL(t *testing.T) {
	for _, tc := range []struct{ given, env, config, want string }{
		{"postgres://a/x", "postgres://b/x", "postgres://c/x", "postgres://a/x"},
		{"", "postgres://b/x", "postgres://c/x", "postgres://b/x"},
		{"", "", "postgres://c/x", "postgres://c/x"},
	} {
		if got, err := ResolveURL(tc.given, tc.env, tc.config); err != nil || got != tc.want {
			t.Errorf("ResolveURL(%q, %q, %q) = %q, %v; want %q", tc.given, tc.env, tc.config, got, err, tc.want)
		}
	}
	if _, err := ResolveURL("", "", ""); !errors.Is(err, ErrNoURL) || !strings.Contains(err.Error(), EnvURL) {
		t.Errorf("ResolveURL with nothing = %v; want ErrNoURL naming %s", err, EnvURL)
	}
}

// A driver's message that quotes the password has it replaced.
func TestScrub(t *testing.T) {
	err := scrub(errors.New("failed: password s3cret rejected"), "postgres://u:s3cret@h/db")
	if strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "xxxxx") {
		t.Errorf("scrub = %q", err)
	}
}

func FuzzRedact(f *testing.F) {
	for _, s := range []string{"postgres://u:pw@h/db", "postgres://h/db?password=pw", "::", "postgres://u:pw@[::1/db"} {
		f.Add(s, "pw")
	}
	f.Fuzz(func(t *testing.T, raw, password string) {
		_ = Redact(raw) // never panics
		if password == "" || strings.ContainsFunc(password, func(r rune) bool {
			return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.' || r == '~')
		}) {
			return // a password a URL holds as it is
		}
		u := "postgres://u:" + password + "@h/db"
		if got := Redact(u); got != "postgres://u:xxxxx@h/db" {
			t.Fatalf("Redact(%q) = %q", u, got)
		}
	})
}
