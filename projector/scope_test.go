package projector

import (
	"fmt"
	"path/filepath"
	"testing"
)

func TestScopeMapsEventsToFolders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		paths []string
		want  string // tape: folders, "*" for all
	}{
		{[]string{"tapes"}, "map[]"},
		{[]string{"index.db-wal", "sync/1-ab"}, "map[]"},
		{[]string{"tapes/main"}, "map[main:*]"},
		{[]string{"tapes/main/anchors"}, "map[main:*]"},
		{[]string{"tapes/main/anchors/001_a"}, "map[main:[001_a]]"},
		{[]string{"tapes/main/anchors/001_a/messages.jsonl", "tapes/main/anchors/002_b/x.jsonl"}, "map[main:[001_a 002_b]]"},
		{[]string{"tapes/main/anchors/001_a/x.jsonl", "tapes/main/anchors"}, "map[main:*]"},
		{[]string{"tapes/main/anchors", "tapes/main/anchors/001_a/x.jsonl"}, "map[main:*]"},
		{[]string{"tapes/main/forks/f1/x.jsonl", "tapes/会话/anchors/001_审查/x.jsonl"}, "map[会话:[001_审查]]"},
		{[]string{"tapes/main/forks", "tapes/main/forks/01JD/anchors/000_fork/messages.jsonl"}, "map[]"},
		{[]string{"tapes/main/notes/x"}, "map[main:*]"},
	}
	for _, tt := range tests {
		s := newScope()
		for _, p := range tt.paths {
			s.add(filepath.FromSlash(p))
		}
		got := map[string]any{}
		for tape, folders := range s.tapes {
			if folders == nil {
				got[tape] = "*"
				continue
			}
			var names []string
			for f := range folders {
				names = append(names, f)
			}
			sortStrings(names)
			got[tape] = names
		}
		if fmt.Sprint(got) != tt.want {
			t.Errorf("scope of %v = %v, want %s", tt.paths, got, tt.want)
		}
	}
}

func sortStrings(s []string) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
}
