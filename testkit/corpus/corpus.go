// Package corpus generates realistic tapes for benchmarks: agent sessions
// with a mix of messages, tool calls, tool results and events, payloads
// from a few bytes to tens of KB, English and some Chinese text, and words
// from a Zipf distribution, so that some are in most entries and some in
// a handful. It has three shapes: a few long tapes (Generate), a
// workspace of thousands of short sessions, one tape each, as imports
// make them (GenerateSessions), and Claude Code's transcripts
// (GenerateClaude). The same seed gives the same files.
package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	tapelog "github.com/tape-dev/tape/log"
)

// Options shape a corpus.
type Options struct {
	Entries      int // how many entries, in all
	PerAnchor    int // entries per anchor folder; 0 means 1000
	Tapes        int // tapes to spread the entries over; 0 means 1
	Seed         uint64
	ChineseShare float64 // share of messages in Chinese; 0 means 0.2
}

// Stats says what Generate wrote.
type Stats struct {
	Entries int
	Anchors int
	Bytes   int64
}

// Rare words, each in exactly one entry every RareEvery entries, for
// benchmarks that search for something rare: "zq<n>x".
const RareEvery = 1000

// RareWord is the rare word of entry i (when i%RareEvery == 0).
func RareWord(i int) string { return fmt.Sprintf("zq%dx", i/RareEvery) }

// generator draws the text of a corpus: words, sizes, dates. Every
// generator of this package draws from one, so that their text is alike.
type generator struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	words []string
	opts  Options
	now   time.Time
}

// newGenerator is a generator whose draws are a function of seed and
// stream (one stream per kind of corpus), starting its dates at now.
func newGenerator(seed, stream uint64, opts Options, now time.Time) *generator {
	r := rand.New(rand.NewPCG(seed, stream))
	return &generator{r: r, zipf: rand.NewZipf(r, 1.1, 2, uint64(len(englishWords)*40-1)), opts: opts, now: now, words: vocabulary()}
}

// Generate writes a corpus into the .tape folder dir (created if needed).
func Generate(dir string, opts Options) (Stats, error) {
	if opts.PerAnchor == 0 {
		opts.PerAnchor = 1000
	}
	if opts.Tapes == 0 {
		opts.Tapes = 1
	}
	if opts.ChineseShare == 0 {
		opts.ChineseShare = 0.2
	}
	g := newGenerator(opts.Seed, 0x7a9e, opts, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var st Stats
	perTape := (opts.Entries + opts.Tapes - 1) / opts.Tapes
	for tape := range opts.Tapes {
		n := min(perTape, opts.Entries-st.Entries)
		if err := g.tape(dir, fmt.Sprintf("session-%03d", tape), st.Entries, n, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

func (g *generator) tape(dir, name string, first, n int, st *Stats) error {
	for a := 0; a*g.opts.PerAnchor < n; a++ {
		folder := filepath.Join(dir, "tapes", name, "anchors", fmt.Sprintf("%03d_phase-%d", a+1, a+1))
		if err := os.MkdirAll(folder, 0o700); err != nil {
			return err
		}
		anchorName := "session/start"
		if a > 0 {
			anchorName = fmt.Sprintf("phase/%d", a+1)
		}
		anchor, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("%s-a%d", name, a), "kind": "anchor",
			"payload": map[string]any{"name": anchorName, "state": map[string]any{"summary": g.sentence(12)}},
			"meta":    map[string]any{}, "date": g.tick()})
		if err := os.WriteFile(filepath.Join(folder, "anchor.json"), append(anchor, '\n'), 0o600); err != nil {
			return err
		}
		st.Anchors++
		if err := g.folder(folder, first+a*g.opts.PerAnchor, min(g.opts.PerAnchor, n-a*g.opts.PerAnchor), st); err != nil {
			return err
		}
	}
	return nil
}

// folder writes count entries into the files of one anchor folder.
func (g *generator) folder(folder string, first, count int, st *Stats) error {
	var files folderFiles
	for i := first; i < first+count; i++ {
		kind, payload := g.entry(i)
		line, err := json.Marshal(map[string]any{"id": fmt.Sprintf("e%d", i), "kind": kind, "payload": payload, "meta": map[string]any{}, "date": g.tick()})
		if err != nil {
			return err
		}
		w := files.file(tapelog.FileForKind(kind))
		w.Write(line)
		w.WriteByte('\n')
		st.Entries++
		st.Bytes += int64(len(line) + 1)
	}
	_, err := files.write(folder)
	return err
}

// folderFiles holds the lines of an anchor folder's files, to write each
// file at once when the folder is done: most folders of a workspace of
// sessions are small, and a buffered file each would cost more than them.
type folderFiles struct {
	names []string // in the order of their first lines
	bufs  map[string]*bytes.Buffer
}

// file is the buffer of the file called name.
func (f *folderFiles) file(name string) *bytes.Buffer {
	if b, ok := f.bufs[name]; ok {
		return b
	}
	if f.bufs == nil {
		f.bufs = map[string]*bytes.Buffer{}
	}
	f.names = append(f.names, name)
	f.bufs[name] = &bytes.Buffer{}
	return f.bufs[name]
}

// write writes the files into folder, which exists, and says how many it
// wrote; f is empty again after.
func (f *folderFiles) write(folder string) (int, error) {
	n := len(f.names)
	for _, name := range f.names {
		if err := os.WriteFile(filepath.Join(folder, name), f.bufs[name].Bytes(), 0o600); err != nil {
			return 0, fmt.Errorf("write %s: %w", name, err)
		}
	}
	*f = folderFiles{}
	return n, nil
}

func (g *generator) tick() string {
	g.now = g.now.Add(time.Duration(1+g.r.IntN(3000)) * time.Millisecond)
	return g.now.Format("2006-01-02T15:04:05.000000Z")
}

// entry makes entry i: a message, a tool call, a tool result or an event,
// in roughly the proportions of real sessions.
func (g *generator) entry(i int) (string, any) {
	rare := ""
	if i%RareEvery == 0 {
		rare = " " + RareWord(i)
	}
	switch k := g.r.IntN(100); {
	case k < 35:
		role := []string{"user", "assistant"}[g.r.IntN(2)]
		return "message", map[string]any{"role": role, "content": g.text(g.size(40, 3000)) + rare}
	case k < 65:
		tool := []string{"bash", "fs.read", "fs.write", "grep", "web.fetch"}[g.r.IntN(5)]
		args, _ := json.Marshal(map[string]any{"cmd": g.sentence(2 + g.r.IntN(10)), "path": "/src/" + g.word() + "/" + g.word() + ".go"})
		return "tool_call", map[string]any{"calls": []any{map[string]any{"id": fmt.Sprintf("call_%d", i), "type": "function",
			"function": map[string]any{"name": tool, "arguments": string(args) + rare}}}}
	case k < 95:
		return "tool_result", map[string]any{"results": []any{g.text(g.size(10, 12000)) + rare}}
	default:
		return "event", map[string]any{"name": "run", "data": map[string]any{"status": "ok", "model": "gpt-4.1" + rare,
			"usage": map[string]any{"input_tokens": g.r.IntN(9000), "output_tokens": g.r.IntN(900)}}}
	}
}

// size draws a payload size, mostly small, with a long tail up to hi.
func (g *generator) size(lo, hi int) int {
	f := g.r.Float64()
	return lo + int(float64(hi-lo)*f*f*f)
}

// text makes about n bytes of text, in Chinese for a share of them.
func (g *generator) text(n int) string {
	if g.r.Float64() < g.opts.ChineseShare {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(chinesePhrases[g.r.IntN(len(chinesePhrases))])
			if g.r.IntN(4) == 0 {
				b.WriteString(" " + g.word() + " ")
			}
		}
		return b.String()
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(g.word())
		b.WriteByte(' ')
		if g.r.IntN(12) == 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func (g *generator) sentence(words int) string {
	w := make([]string, words)
	for i := range w {
		w[i] = g.word()
	}
	return strings.Join(w, " ")
}

func (g *generator) word() string { return g.words[g.zipf.Uint64()] }

// vocabulary is the English words, and made-up identifiers after them, so
// the Zipf tail holds words that are really rare.
func vocabulary() []string {
	words := append([]string{}, englishWords...)
	for len(words) < len(englishWords)*40 {
		i := len(words)
		words = append(words, fmt.Sprintf("%s_%s%d", englishWords[i%len(englishWords)], englishWords[(i*7)%len(englishWords)], i))
	}
	return words
}

var englishWords = strings.Fields(`the a to of and in is it for that on with as this be are was not or by
from at an error test file func return if go run build fail pass ok timeout flush store close open read write
config index search query result tool call message user assistant system agent model token usage anchor tape
handoff state summary review plan step fix bug patch diff commit branch merge main server client request response
json yaml path folder line offset byte size count total list map slice string int bool nil panic log trace debug
warn info context cancel deadline lock mutex channel goroutine select case default switch struct interface method
package import module version release deploy docker image container network port socket http https url api key
secret password env variable value type name id date time day hour minute second week month year number data
table row column schema sqlite database transaction insert update delete create drop alter view trigger`)

var chinesePhrases = []string{
	"发生了一个错误，请重试。", "测试通过了。", "请检查一下这个修改有没有问题。", "构建失败，缺少依赖。",
	"数据库连接超时。", "我来修复这个问题。", "文件已经保存。", "这个函数需要重构。", "日志里没有发现异常。",
	"请运行全部测试。", "内存使用过高。", "网络请求失败了。", "配置文件格式不正确。", "已经提交到主分支。",
}
