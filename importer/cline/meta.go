package cline

import (
	"github.com/tape-dev/tape/importer/source"
	"github.com/tape-dev/tape/internal/rawjson"
)

// The two files of a task that are one object each:
//
//   - task_metadata.json (Cline 3.x; Roo Code and Kilo Code write only its
//     first list): {"files_in_context": [{"path", "record_state",
//     "record_source", "cline_read_date", "cline_edit_date",
//     "user_edit_date"}], "model_usage": [{"ts", "model_id",
//     "model_provider_id", "mode"}], "environment_history": [{"ts",
//     "os_name", "os_version", "os_arch", "host_name", "host_version",
//     "cline_version"}]}, pretty-printed; each list grows, and a file's
//     older records change their record_state;
//   - history_item.json (Roo Code 3.48 and later): the task's entry in its
//     history, {"id", "rootTaskId", "parentTaskId", "number", "ts",
//     "task", "tokensIn", "tokensOut", "cacheWrites", "cacheReads",
//     "totalCost", "size", "workspace", "mode", "apiConfigName", "status",
//     "childIds", ...}, written again at every save with the task's
//     running totals.

// object maps a document that is an object.
func (c *converter) object(in *input, raw []byte) []source.Output {
	ms := source.ObjectOf(raw)
	k := c.kind
	if k == anyKind {
		for _, m := range ms {
			switch string(m.Key) {
			case "files_in_context", "model_usage", "environment_history":
				k = metaKind
			case "task", "parentTaskId", "rootTaskId", "workspace":
				if k == anyKind {
					k = historyKind
				}
			}
		}
	}
	switch k {
	case metaKind:
		return c.metadata(in, ms)
	case historyKind:
		return c.history(in, ms, raw)
	}
	return append(c.start(in, nil), in.event("cline/document", raw))
}

// metadata maps task_metadata.json: each record of its lists an event,
// "cline/file_context", "cline/model_usage", "cline/environment" (the
// record as written), dated by its ts; any other member, or a list of
// another shape, "cline/task_metadata" ({key: value}). A file record's id
// is a sum of it without its record_state, which changes; a model's and
// an environment's, their ts. The first environment names, in the tape's
// first anchor, the agent's version and the editor it ran in.
func (c *converter) metadata(in *input, ms []rawjson.Member) []source.Output {
	envs, _ := rawjson.Lookup(ms, "environment_history")
	var first []rawjson.Member
	rawjson.ArrayItems(envs, func(item []byte) {
		if first == nil {
			first = source.ObjectOf(item)
		}
	})
	if first != nil {
		in.readDate(first)
	}
	out := c.start(in, func(st *rawjson.Object) {
		if v, _ := str(first, "cline_version"); v != "" {
			st.Str("version", v)
		}
		if h, _ := str(first, "host_name"); h != "" {
			st.Str("host", h)
			if v, _ := str(first, "host_version"); v != "" {
				st.Str("host_version", v)
			}
		}
	})
	seen := map[string]int{}
	for _, m := range ms {
		key, value := string(m.Key), source.Trim(m.Value)
		name := metaLists[key]
		if name == "" || len(value) == 0 || value[0] != '[' {
			it := &input{c: c, d: in.d, id: unique(seen, "meta:"+key+":"+source.ShortSum(value)), ms: -1}
			out = append(out, it.event("cline/task_metadata", rawjson.NewObject().Raw(key, rawjson.AppendCompact(nil, value)).Done()))
			continue
		}
		i := 0
		rawjson.ArrayItems(value, func(item []byte) {
			it := &input{c: c, d: in.d, index: i, ms: -1}
			i++
			rec := source.ObjectOf(item)
			switch {
			case key == "files_in_context":
				it.id = "meta:file:" + source.ShortSum(others(rec, "record_state"))
				if rec == nil {
					it.id = "meta:file:" + source.ShortSum(item)
				}
			default:
				ts := it.readDate(rec)
				if ts == "" {
					ts = source.ShortSum(item)
				}
				it.id = "meta:" + key + ":" + ts
			}
			it.id = unique(seen, it.id)
			out = append(out, it.event(name, item))
		})
	}
	return out
}

// metaLists are the lists of task_metadata.json, and the events of their
// records.
var metaLists = map[string]string{"files_in_context": "cline/file_context", "model_usage": "cline/model_usage",
	"environment_history": "cline/environment"}

// history maps history_item.json: the tape's first anchor, whose state
// names the task's parent and root ("parent_session", "root_session"),
// its working directory, mode and provider profile, and keeps the item
// ("history_item"); and the title, its task. Roo Code writes it again at
// every save: what a version adds is counts, which the runs hold, and
// the task's status and children, which the children's anchors say. A
// task whose tape another file started keeps the first version read, as
// an event "cline/history_item".
func (c *converter) history(in *input, ms []rawjson.Member, raw []byte) []source.Output {
	in.cwd, _ = str(ms, "workspace")
	started := c.st.Started
	out := c.start(in, func(st *rawjson.Object) {
		parent, _ := str(ms, "parentTaskId")
		st.StrIf("parent_session", parent)
		if root, _ := str(ms, "rootTaskId"); root != parent && root != c.st.Session.ID {
			st.StrIf("root_session", root)
		}
		if mode, _ := str(ms, "mode"); mode != "" {
			st.Str("mode", mode)
		}
		if profile, _ := str(ms, "apiConfigName"); profile != "" {
			st.Str("api_config", profile)
		}
		st.Raw("history_item", rawjson.AppendCompact(nil, raw))
	})
	in.id = c.st.Session.ID + "/history_item"
	if started {
		out = append(out, in.event("cline/history_item", raw))
	}
	if task, ok := str(ms, "task"); ok && task != "" {
		out = append(out, in.title(task, "history_item"))
	}
	return out
}
