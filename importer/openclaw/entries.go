package openclaw

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
	tapelog "github.com/tape-dev/tape/log"
)

// summaryState is the state of a compaction's anchor: its summary, which
// must be a string, the members keys names (the record's member, the
// state's key), and its others as "extra". ok is false when the summary
// is not a string.
func (in *input) summaryState(keys [][2]string) ([]byte, bool) {
	var summary string
	f := fields{str: map[string]*string{"summary": &summary}, raw: map[string]*[]byte{}}
	vals := make([][]byte, len(keys))
	for i, k := range keys {
		f.raw[k[0]] = &vals[i]
	}
	rest, ok := f.read(in.r.withoutEnvelope())
	if !ok {
		return nil, false
	}
	if _, isString := source.StringValue(in.r.member("summary")); !isString {
		return nil, false
	}
	state := rawjson.NewObject().Str("source", "openclaw").Str("summary", summary)
	for i, k := range keys {
		if vals[i] != nil {
			state.Raw(k[1], rawjson.AppendCompact(nil, vals[i]))
		}
	}
	return withExtra(state, rest).Done(), true
}

// compaction is the anchor a compaction starts (id: the record's): its
// state says the summary the context goes on from, the first entry it
// kept (firstKeptEntryId; firstKeptEntryIndex in the first layout), the
// context's tokens before, and the extension's details. A compaction
// without a summary is kept as an event.
func (in *input) compaction() []source.Output {
	state, ok := in.summaryState([][2]string{{"firstKeptEntryId", "first_kept_entry_id"}, {"firstKeptEntryIndex", "first_kept_entry_index"},
		{"tokensBefore", "tokens_before"}, {"details", "details"}, {"fromHook", "from_hook"}})
	if !ok {
		return in.event("openclaw/compaction", in.r.withoutEnvelope())
	}
	return in.anchor("compact", state)
}

// modelChange is an event of a model change; its modelId is the model of
// the assistant messages after it that name none.
func (in *input) modelChange() []source.Output {
	if id, ok := source.StringValue(in.r.member("modelId")); ok && id != "" {
		in.c.st.Model = id
	}
	return in.event("openclaw/model_change", in.r.withoutEnvelope())
}

// custom is an extension's record, out of the model's context: an event
// of it. OpenClaw's model-snapshot records the model of the turn it
// starts (data.modelId), as a model change does.
func (in *input) custom() []source.Output {
	if t, _ := source.StringValue(in.r.member("customType")); t == "model-snapshot" {
		rawjson.ObjectMembers(in.r.member("data"), func(key, value []byte) {
			if string(key) == "modelId" {
				if id, ok := source.StringValue(source.Trim(value)); ok && id != "" {
					in.c.st.Model = id
				}
			}
		})
	}
	return in.event("openclaw/custom", in.r.withoutEnvelope())
}

// customMessage is an extension's message, which enters the model's
// context as a user's: a message, marked synthetic, with its customType
// and display in the meta and its details beside the content.
func (in *input) customMessage() []source.Output {
	var customType string
	var content, details, display []byte
	f := fields{str: map[string]*string{"customType": &customType}, raw: map[string]*[]byte{"content": &content, "details": &details, "display": &display}}
	rest, ok := f.read(in.r.withoutEnvelope())
	text, isContent := in.c.contentOf(content)
	if !ok || !isContent {
		return in.event("openclaw/custom_message", in.r.withoutEnvelope())
	}
	o := rawjson.NewObject().Str("role", "user").Raw("content", text)
	if details != nil {
		o.Raw("details", rawjson.AppendCompact(nil, details))
	}
	withExtra(o, rest)
	meta := in.meta().True("synthetic").StrIf("custom_type", customType)
	if display != nil {
		meta.Raw("display", rawjson.AppendCompact(nil, display))
	}
	return []source.Output{in.entry(tapelog.KindMessage, o.Done(), meta)}
}

// sessionInfo is a title event of a session_info's name, which `tape
// tapes` shows; one without a name is kept as an event.
func (in *input) sessionInfo() []source.Output {
	var name string
	f := fields{str: map[string]*string{"name": &name}}
	rest, ok := f.read(in.r.withoutEnvelope())
	if !ok || name == "" {
		return in.event("openclaw/session_info", in.r.withoutEnvelope())
	}
	data := withExtra(rawjson.NewObject().Str("title", name).Str("from", "session_info"), rest).Done()
	return []source.Output{in.entry(tapelog.KindEvent, source.NamedData("title", data), in.meta())}
}
