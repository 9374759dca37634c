package web

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"time"

	"github.com/tape-dev/tape/internal/wording"
	"github.com/tape-dev/tape/views/usage"
)

// funcs are the templates' functions. Each returns text, which the
// templates escape; none returns template.HTML.
var funcs = template.FuncMap{
	"when":       when,
	"whenTime":   whenTime,
	"num":        num,
	"usd":        usd,
	"noun":       noun,
	"excerpt":    wording.OneLine,
	"outputOf":   newOutput,
	"statusText": http.StatusText,
	"tapeURL":    tapeURL,
	"statusURL":  statusURL,
	"byURL":      byURL,
	"byOptions": func() []string {
		return []string{"day", "week", "month", "block", "tape", "session", "project", "source", "anchor", "model"}
	},
	"chartDays": func() int { return chartDays },
}

// usd is what a group's runs cost (wording.Dollars), or "—" when no run
// of it has a priced model.
func usd(u usage.Row) string {
	if u.PricedRuns == 0 {
		return "—"
	}
	return wording.Dollars(u.CostUSD)
}

// when is an entry's date (RFC 3339) as the pages show it, in UTC to the
// second; a date it cannot read as it is.
func when(date string) string {
	t, err := time.Parse(time.RFC3339Nano, date)
	if err != nil {
		return date
	}
	return whenTime(t)
}

func whenTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// num is a count with its thousands separated.
func num(n any) string {
	switch v := n.(type) {
	case int:
		return wording.Thousands(int64(v))
	case int64:
		return wording.Thousands(v)
	}
	return fmt.Sprint(n)
}

// noun is the noun that goes with n, for a page that writes n itself
// with its thousands marked ({{num}}); wording.Plural writes both.
func noun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// statusURL is the calls page of a status ("" for all), keeping its tape
// and tool.
func statusURL(tape, name, status string) string {
	q := url.Values{}
	for k, v := range map[string]string{"tape": tape, "name": name, "status": status} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if len(q) == 0 {
		return "/calls"
	}
	return "/calls?" + q.Encode()
}

// byURL is the usage page summed by a grouping, of a tape or every one.
func byURL(tape, by string) string {
	q := url.Values{"by": {by}}
	if tape != "" {
		q.Set("tape", tape)
	}
	return "/usage?" + q.Encode()
}
