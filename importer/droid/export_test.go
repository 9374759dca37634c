package droid

// BenchTranscript is benchTranscript, for the import benchmark of the
// package's external tests.
var BenchTranscript = benchTranscript
