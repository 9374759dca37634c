package log

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// config.json's crush_roots are the roots of source crush, none of
// another source's, and a save of the configuration keeps them.
func TestConfigRoots(t *testing.T) {
	ws := newTestWorkspace(t)
	if err := os.WriteFile(filepath.Join(ws.Dir(), "config.json"), []byte(`{"crush_roots":["~/src","/work"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	again, err := Open(ws.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	cfg := again.Config()
	if got := cfg.Roots("crush"); !slices.Equal(got, []string{"~/src", "/work"}) {
		t.Errorf("Roots(crush) = %v", got)
	}
	if got := cfg.Roots("claude"); got != nil {
		t.Errorf("Roots(claude) = %v, want none", got)
	}
	cfg.Follow = []string{"crush"}
	if err := again.SaveConfig(cfg); err != nil {
		t.Fatal(err)
	}
	third, err := Open(ws.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if got := third.Config().Roots("crush"); len(got) != 2 {
		t.Errorf("crush_roots after a save: %v", got)
	}
}
