package importer

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func sampleCheckpoints() *checkpoints {
	cp := emptyCheckpoints()
	cp.Files["/home/u/.claude/projects/-home-u-app/a.jsonl"] = &checkpoint{Ino: 1 << 40, Size: 12345, MtimeNS: -1, Offset: 999, Line: 7,
		Tail: ^uint64(0), Held: 2, Tapes: map[string]string{"claude/a": "claude-a", "claude/a/agent-1": "claude-a-agent-1"},
		State: []byte(`{"model":"claude-sonnet-4-5","cwd":"/home/u/项目"}`)}
	cp.Files["/home/u/b.jsonl"] = &checkpoint{Tapes: map[string]string{}}
	cp.Tapes["claude-a"] = tapeSeen{Mark: "1 001_session-start 10 -1 20", Dir: "42:1700000000"}
	cp.Tapes["empty"] = tapeSeen{}
	return cp
}

// What is encoded decodes to the same checkpoints, and encodes to the
// same bytes again.
func TestCheckpointCodecRoundTrip(t *testing.T) {
	t.Parallel()
	for name, cp := range map[string]*checkpoints{"none": emptyCheckpoints(), "sample": sampleCheckpoints()} {
		data := encodeCheckpoints(cp)
		got, err := decodeCheckpoints(data)
		if err != nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
		if !reflect.DeepEqual(got, cp) {
			t.Errorf("%s: decoded %+v; want %+v", name, got, cp)
		}
		if again := encodeCheckpoints(got); string(again) != string(data) {
			t.Errorf("%s: encoded again, the bytes differ", name)
		}
	}
}

// A file cut short, with a byte changed, or of another version is not
// read as checkpoints: the import then trusts the tapes, not a guess.
func TestCheckpointCodecRefusesDamage(t *testing.T) {
	t.Parallel()
	good := encodeCheckpoints(sampleCheckpoints())
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 1
	other := append([]byte(checkpointMagic), binary.AppendUvarint(nil, checkpointVersion+1)...)
	other = binary.LittleEndian.AppendUint32(other, crc32Of(other))
	for name, data := range map[string][]byte{
		"empty": nil, "cut short": good[:len(good)-1], "a byte changed": flipped,
		"another version": other, "not ours": []byte("\x0e\xff\x81\x03\x01\x01\x0bcheckpoints"),
	} {
		if cp, err := decodeCheckpoints(data); !errors.Is(err, errCheckpointForm) {
			t.Errorf("%s: decoded %+v, %v; want errCheckpointForm", name, cp, err)
		}
	}
}

// FuzzDecodeCheckpoints: whatever the file holds, decoding neither panics
// nor allocates beyond it, and what decodes encodes back to what it read
// (the form has one encoding of each set of checkpoints, sorted).
func FuzzDecodeCheckpoints(f *testing.F) {
	f.Add(encodeCheckpoints(sampleCheckpoints()))
	f.Add(encodeCheckpoints(emptyCheckpoints()))
	f.Add([]byte(checkpointMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Most mutations break the checksum; fix it so the decoder's
		// reading of the body is what is fuzzed.
		if len(data) >= 4 {
			body := data[:len(data)-4]
			data = binary.LittleEndian.AppendUint32(append([]byte(nil), body...), crc32Of(body))
		}
		cp, err := decodeCheckpoints(data)
		if err != nil {
			return
		}
		if again := encodeCheckpoints(cp); string(again) != string(data) {
			t.Errorf("decoded and encoded again, %q became %q", data, again)
		}
	})
}

// BenchmarkDecodeCheckpoints decodes the checkpoints of 10,000 transcripts
// shaped like an OpenCode mirror's (a path, one tape, a converter state of
// 200 bytes) in this form and, as the baseline, in version 3's gob.
func BenchmarkDecodeCheckpoints(b *testing.B) {
	cp := emptyCheckpoints()
	for i := range 10_000 {
		tape := fmt.Sprintf("opencode-%08x", i)
		cp.Files[fmt.Sprintf("/home/u/work/.tape/import/opencode/1edf0350a906276d/ses_%024x.jsonl", i)] = &checkpoint{
			Ino: uint64(i), Size: 4000, MtimeNS: 1764300000000000000, Offset: 4000, Line: 20, Tail: uint64(i) * 7919,
			Tapes: map[string]string{"opencode/ses_" + tape: tape}, State: []byte(strings.Repeat("s", 200))}
		cp.Tapes[tape] = tapeSeen{Mark: "1 001_session-start 1669 391 582", Dir: "123456:1764300000000000000"}
	}
	var gobData bytes.Buffer
	if err := gob.NewEncoder(&gobData).Encode(cp); err != nil {
		b.Fatal(err)
	}
	data := encodeCheckpoints(cp)
	b.Run("gob", func(b *testing.B) {
		b.SetBytes(int64(gobData.Len()))
		for b.Loop() {
			var read checkpoints
			if err := gob.NewDecoder(bytes.NewReader(gobData.Bytes())).Decode(&read); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("v4", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := decodeCheckpoints(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
