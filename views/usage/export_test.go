package usage

// SumRuns is sumRuns, for the tests that hold the kept totals to it.
var SumRuns = sumRuns
