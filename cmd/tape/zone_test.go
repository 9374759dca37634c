package main

import "time"

// The tests read dates in UTC whatever the machine's zone: a source whose
// transcripts write local times without a zone (Aider's) reads them in
// time.Local, and the golden files hold what they make in UTC.
func init() { time.Local = time.UTC }
