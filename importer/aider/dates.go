package aider

import (
	"strings"
	"time"
)

// Aider writes its times as the local time of the machine it ran on,
// without a zone: "2025-01-02 15:04:05" (a run's start, Python's
// strftime("%Y-%m-%d %H:%M:%S")) and "2025-01-02 15:04:05.123456" (an
// input's, str(datetime.now())). tape reads them in the local zone of the
// machine that imports (time.Local, TZ), the machine Aider ran on when a
// person imports their own files (decision 0096).
const (
	runLayout   = "2006-01-02 15:04:05"
	inputLayout = "2006-01-02 15:04:05.999999999"
)

// localDate is the RFC 3339 date of a time Aider wrote, as written with
// its zone's offset, and whether it is one.
func localDate(s, layout string) (string, bool) {
	t, err := time.ParseInLocation(layout, strings.TrimSpace(s), time.Local)
	if err != nil {
		return "", false
	}
	return t.Format(time.RFC3339Nano), true
}
