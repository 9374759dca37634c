package aider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/importer/sourcetest"
	tapelog "github.com/tape-dev/tape/log"
)

func FuzzConverter(f *testing.F) {
	sourcetest.FuzzResume(f, Source{}, "\n# aider chat started at 2025-01-02 03:04:05\n\n> Aider v0.86.1  \n#### hi  \n\nhello\n")
}

// inputSource reads every file as an input history: the fuzz target of
// that converter (sourcetest converts at a path of another name).
type inputSource struct{ Source }

func (inputSource) NewConverter(path string, state []byte) (source.Converter, error) {
	return source.NewConverter(newInputConverter(path, state))
}

func FuzzInputConverter(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "import", "aider", "src", "myrepo", InputHistory))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("+before any time\n\n# 2025-01-02 03:04:05.5\n+/add x.py\n# not a time\n+a\n+b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if once, resumed := sourcetest.ConvertAll(t, inputSource{}, data, false), sourcetest.ConvertAll(t, inputSource{}, data, true); once != resumed {
			t.Fatalf("resumed:\n%s\nin one pass:\n%s", resumed, once)
		}
	})
}

const head = "# aider chat started at 2025-06-10 09:15:02"

// Lines of shapes the mapping reads otherwise than a well-formed history
// does: each makes the entries it must, its text kept.
func TestOddShapesKeepTheirText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"a heading of the model's own is its answer, once the blockquotes end in two spaces",
			[]string{head, "> Aider v0.86.1  ", "", "#### hi  ", "", "#### Step 1", "Do it."},
			[]string{`event {"data":{"text":"Aider v0.86.1"},"name":"aider/output"}`, `message {"role":"user","content":"hi"}`,
				`message {"role":"assistant","content":"#### Step 1\nDo it."}`}},
		{"without trailing spaces, a #### line is the user's",
			[]string{head, "> Aider v0.18.1", "", "#### hi", "", "#### Step 1", "Do it."},
			[]string{`event {"data":{"text":"Aider v0.18.1"},"name":"aider/output"}`, `message {"role":"user","content":"hi"}`,
				`message {"role":"user","content":"Step 1"}`, `message {"role":"assistant","content":"Do it."}`}},
		{"a message of several lines after another of Aider's goes on to its line that ends in two spaces",
			[]string{head, "> Aider v0.86.1  ", "> first", "", "second", "third  ", "", "answer"},
			[]string{`event {"data":{"text":"Aider v0.86.1\nfirst\n\nsecond\nthird"},"name":"aider/output"}`, `message {"role":"assistant","content":"answer"}`}},
		{"a quote in the model's answer is Aider's output, and the answer goes on after it",
			[]string{head, "> Aider v0.86.1  ", "", "#### q  ", "", "See:", "", "> quoted", "", "more"},
			[]string{`event {"data":{"text":"Aider v0.86.1"},"name":"aider/output"}`, `message {"role":"user","content":"q"}`,
				`message {"role":"assistant","content":"See:"}`, `event {"data":{"text":"quoted"},"name":"aider/output"}`, `message {"role":"assistant","content":"more"}`}},
		{"what follows a usage line's cost is its note; a usage line of other words is Aider's output",
			[]string{head, "> Tokens: 1k sent, 2 received, 3 lost. Cost: $0.01 message, $0.02 session.  ", "> Tokens: 5 sent, 6 received. Cost: $0.01 message, $0.02 session. Use --no-stream for accurate caching costs.  "},
			[]string{`event {"data":{"text":"Tokens: 1k sent, 2 received, 3 lost. Cost: $0.01 message, $0.02 session."},"name":"aider/output"}`,
				`event {"data":{"status":"ok","usage":{"input_tokens":5,"output_tokens":6,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"usage_id":"aider:/x/rollout-s-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl:3","cost_usd":0.01,"session_cost_usd":0.02,"note":"Use --no-stream for accurate caching costs."},"name":"run"}`}},
		{"an unfinished SEARCH/REPLACE block, and one without a path, stay text",
			[]string{head, "", "#### q  ", "", "```", "<<<<<<< SEARCH", "a", "=======", "b", ">>>>>>> REPLACE", "```", "", "x.go", "<<<<<<< SEARCH", "c", "======="},
			[]string{`message {"role":"user","content":"q"}`,
				"message {\"role\":\"assistant\",\"content\":\"```\\n<<<<<<< SEARCH\\na\\n=======\\nb\\n>>>>>>> REPLACE\\n```\\n\\nx.go\\n<<<<<<< SEARCH\\nc\\n=======\"}"}},
		{"Applied edit to a file no edit waits for is Aider's output",
			[]string{head, "> Applied edit to nowhere.go  "},
			[]string{`event {"data":{"text":"Applied edit to nowhere.go"},"name":"aider/output"}`}},
		{"a thinking whose closing tag does not come is the whole answer",
			[]string{head, "", "<think>", "", "mulling"},
			[]string{`event {"data":{"thinking":"mulling"},"name":"thinking"}`}},
		{"a command of a line alone, and one after a newline",
			[]string{head, "", "#### /clear  ", "", "#### /run  ", "#### make test  ", "> ran  "},
			[]string{`tool_call {"calls":[{"id":"aider-call:/x/rollout-s-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl:3","type":"function","function":{"name":"/clear","arguments":"{\"args\":\"\"}"}}]}`,
				`tool_call {"calls":[{"id":"aider-call:/x/rollout-s-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl:5","type":"function","function":{"name":"/run","arguments":"{\"args\":\"make test\"}"}}]}`,
				`tool_result {"results":[{"tool_call_id":"aider-call:/x/rollout-s-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl:5","content":"ran"}]}`}},
	} {
		sourcetest.CheckShape(t, Source{}, tc.name, tc.lines, tc.want)
	}
}

// A line before the first run is a bad line, and the runs after it are
// read; a start that is no date is warned of and takes the run before's.
func TestLinesOutsideARun(t *testing.T) {
	entries, errs := sourcetest.ConvertLines(t, Source{}, "notes", head, "", "#### hi  ", "# aider chat started at soon", "#### again  ")
	if len(errs) != 2 || errs[0] != errNoRun || !strings.Contains(errs[1].Error(), `"soon" is not a date`) {
		t.Errorf("errors %v", errs)
	}
	if len(entries) != 2 {
		t.Errorf("entries %v", entries)
	}
}

// Runs that start the same second are sessions of their own; every
// entry of a run is dated by its start and its line, in the file's order.
func TestRunsOfOneSecond(t *testing.T) {
	c, err := newChatConverter("/home/u/app/"+ChatHistory, nil)
	if err != nil {
		t.Fatal(err)
	}
	var outs []source.Output
	for i, l := range []string{head, "#### a  ", head, "#### b  "} {
		o, err := c.Line(tapelog.RawLine{No: i + 1, Data: []byte(l)})
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, o...)
	}
	outs = append(outs, c.Flush()...)
	if len(outs) != 4 || outs[0].Session == outs[2].Session || outs[2].Session.ID != "/home/u/app/.aider.chat.history.md#2025-06-10 09:15:02#2" {
		t.Fatalf("sessions %+v", outs)
	}
	if got := outs[1].Entry.Date; got != "2025-06-10T09:15:02.000002Z" && !strings.HasPrefix(got, "2025-06-10T09:15:02.000002") {
		t.Errorf("date of line 2: %s", got)
	}
	src := Source{}
	if a, b := src.TapeName(outs[0].Session, false), src.TapeName(outs[2].Session, false); a != "aider-app-250610-091502" || a != b {
		t.Errorf("tape names %s, %s", a, b)
	}
	if long := src.TapeName(outs[2].Session, true); !strings.HasPrefix(long, "aider-app-250610-091502-") || len(long) != len("aider-app-250610-091502-")+8 {
		t.Errorf("long name %s", long)
	}
}

func TestTapeNames(t *testing.T) {
	for id, want := range map[string]string{
		"/home/u/a-very-long-project-name/.aider.chat.history.md#2025-06-10 09:15:02": "aider-a-very-long-250610-091502",
		"/home/u/app/.aider.input.history#input":                                      "aider-app-input",
		"/home/u/.hidden/.aider.chat.history.md#soon":                                 "aider-hidden-",
		"relative#2025-06-10 09:15:02":                                                "aider-",
		"/srv/項目/.aider.chat.history.md#2025-06-10 09:15:02":                          "aider-x-250610-091502",
	} {
		got := Source{}.TapeName(source.Session{Source: "aider", ID: id}, true)
		if !strings.HasPrefix(got, want) || len(got) > 40 || tapelog.ValidateTapeName(got) != nil {
			t.Errorf("TapeName(%q) = %q, want %q... of at most 40 bytes", id, got, want)
		}
	}
}

func TestReadUsage(t *testing.T) {
	for text, want := range map[string]usage{
		"Tokens: 1,234 sent, 56 received. Cost: $0.001234 request, $0.012345 session.":                           {sent: 1234, received: 56, cost: "0.001234", sessionCost: "0.012345"},
		"Tokens: 2,345 sent, 1,024 cached, 31 received. Cost: $0.0021 message, $0.0021 session.":                 {sent: 2345, hit: 1024, received: 31, cost: "0.0021", sessionCost: "0.0021"},
		"Tokens: 12k sent, 3.1k cache write, 8.2k cache hit, 512 received.\nCost: $0.02 message, $0.05 session.": {sent: 12000, write: 3100, hit: 8200, received: 512, cost: "0.02", sessionCost: "0.05"},
		"Tokens: 950 sent, 1.5k received.": {sent: 950, received: 1500},
	} {
		if got, ok := readUsage(text); !ok || got != want {
			t.Errorf("readUsage(%q) = %+v, %v; want %+v", text, got, ok, want)
		}
	}
	for _, text := range []string{"Tokens: 12 sent.", "Tokens: x sent, 5 received.", "Tokens: 1 sent, 2 received. Cost: $1. message, $2 session.", "Tokens: -1 sent, 2 received."} {
		if u, ok := readUsage(text); ok {
			t.Errorf("readUsage(%q) = %+v, want not a usage", text, u)
		}
	}
}

// Where tape looks: config.json's roots, the home folder once Aider has
// run there, and what a walk of it leaves out.
func TestFolders(t *testing.T) {
	home := t.TempDir()
	src := Source{}
	if dirs := src.DefaultDirs(os.Getenv, home); len(dirs) != 0 {
		t.Errorf("without ~/.aider: %v", dirs)
	}
	if err := os.Mkdir(filepath.Join(home, ".aider"), 0o700); err != nil {
		t.Fatal(err)
	}
	if dirs := src.DefaultDirs(os.Getenv, home); len(dirs) != 1 || dirs[0] != home {
		t.Errorf("with ~/.aider: %v", dirs)
	}
	roots := src.Roots(tapelog.Config{AiderRoots: []string{"~/code", "work", "/srv/x/", "", "~"}}, "/home/u")
	if strings.Join(roots, ",") != "/home/u/code,/home/u/work,/srv/x,/home/u" {
		t.Errorf("roots %v", roots)
	}
	t.Setenv("HOME", home)
	for _, tc := range []struct {
		root, path string
		depth      int
		want       bool
	}{
		{"/srv/code", "/srv/code/app/node_modules", 2, true},
		{"/srv/code", "/srv/code/app/.git", 2, true},
		{"/srv/code", "/srv/code/a/b/c/d/e", 5, false},
		{"/srv/code", "/srv/code/.hidden", 1, false},
		{home, home + "/.cache", 1, true},
		{home, home + "/Library", 1, true},
		{home, home + "/code/Library", 2, false},
		{home, home + "/a/b/c", 3, false},
		{home, home + "/a/b/c/d", 4, true},
	} {
		if got := src.Prune(tc.root, tc.path, tc.depth); got != tc.want {
			t.Errorf("Prune(%s, %s, %d) = %v", tc.root, tc.path, tc.depth, got)
		}
	}
}
