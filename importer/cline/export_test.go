package cline

// BenchTask is benchTask, for the external benchmark of a whole import.
var BenchTask = benchTask
