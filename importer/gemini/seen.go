package gemini

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"hash/fnv"
)

// Gemini CLI writes a message again, whole, each time it changes: the
// last one when its tokens or tool calls come (every version of the
// .jsonl), an older one when its tool results are masked (0.39 to 0.43),
// and the whole history in a {"$set": {"messages"}} record (0.44 and
// later). Each entry of a message has an id of the message's id and the
// part ("<id>/call/<call id>"), so a message written again makes the
// same entries; what the converter must not do is write them again to a
// tape the driver does not read (an import that resumes from a
// checkpoint trusts its tape). So it remembers the last message and
// which of its parts it made (last), and which ids it read at all
// (seen): a message it may have read before makes its entries with
// source.Output.Replay, and the driver skips those the tape holds.

// last is the last message read, and what of it was made.
type last struct {
	ID       string          `json:"id"`
	Type     string          `json:"type,omitempty"`
	Text     bool            `json:"text,omitempty"`     // its content made its entries
	Thoughts int             `json:"thoughts,omitempty"` // how many of its thoughts made an event
	Calls    map[string]byte `json:"calls,omitempty"`    // by call id: callMade, or resultMade too
	Usage    bool            `json:"usage,omitempty"`    // its tokens made a run event
	// Results are, by call id, the sum of the response of a result made
	// of one functionResponse: what a user message that sends it back
	// repeats (user).
	Results map[string]uint64 `json:"results,omitempty"`
}

// sum is a compact JSON value's length and CRC-32C (which the CPU
// computes: FNV of every tool output was a twentieth of a document's
// conversion).
func sum(b []byte) uint64 { return uint64(len(b))<<32 | uint64(crc32.Checksum(b, castagnoli)) }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// What of a tool call was made.
const (
	callMade   byte = 1
	resultMade byte = 2
)

// seenBits is the size of seen: at 200 messages, a new message's id is
// taken for one read before about once in 60 (then its entries are
// marked Replay, and the driver reads the tape's ids once: slower, never
// wrong).
const seenBits = 2048

// seen is a Bloom filter of the ids of the messages read: an id not in
// it was never read; one in it may have been.
type seen []uint64

func (s seen) probes(id string) [3]uint {
	h := fnv.New64a()
	h.Write([]byte(id))
	sum := h.Sum64()
	a, b := uint(sum), uint(sum>>32)|1
	return [3]uint{a % seenBits, (a + b) % seenBits, (a + 2*b) % seenBits}
}

// add records id.
func (s *seen) add(id string) {
	if *s == nil {
		*s = make(seen, seenBits/64)
	}
	for _, p := range s.probes(id) {
		(*s)[p/64] |= 1 << (p % 64)
	}
}

// may reports whether id may have been read.
func (s seen) may(id string) bool {
	if s == nil {
		return false
	}
	for _, p := range s.probes(id) {
		if s[p/64]&(1<<(p%64)) == 0 {
			return false
		}
	}
	return true
}

// MarshalJSON writes the filter as base64 of its bytes.
func (s seen) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(s)*8)
	for _, w := range s {
		for i := range 8 {
			b = append(b, byte(w>>(8*i)))
		}
	}
	return json.Marshal(base64.StdEncoding.EncodeToString(b))
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *seen) UnmarshalJSON(data []byte) error {
	var text string
	if err := json.Unmarshal(data, &text); err != nil {
		return err
	}
	b, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(b) != seenBits/8 {
		return fmt.Errorf("seen ids: %d bytes of %d", len(b), seenBits/8)
	}
	*s = make(seen, seenBits/64)
	for i := range *s {
		for j := range 8 {
			(*s)[i] |= uint64(b[i*8+j]) << (8 * j)
		}
	}
	return nil
}
