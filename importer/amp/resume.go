package amp

import "github.com/tape-dev/tape/importer/source"

// Resume reopens a thread in Amp: amp threads continue <thread id>
// (threads are kept on Amp's server).
func (Source) Resume(s source.Resumable) ([]string, bool) {
	if s.ID == "" {
		return nil, false
	}
	return []string{"amp", "threads", "continue", s.ID}, true
}
