package mcp

import (
	"errors"

	"github.com/tape-dev/tape/bub"
)

// fitted is a context under a token budget: the context tool's max_tokens.
type fitted struct {
	Messages   []bub.Message
	Dropped    int
	Estimate   int
	MaxTokens  int
	OverBudget bool
}

// fitContext keeps the messages of a context that fit maxTokens (0: all).
//
// TODO(issue 20): bub.FitTokens, which tape context --max-tokens brings,
// fits a context to a budget; until it is here, max_tokens is refused
// rather than ignored.
func fitContext(msgs []bub.Message, maxTokens int) (fitted, error) {
	if maxTokens > 0 {
		return fitted{}, errors.New("max_tokens is not supported by this build of tape yet")
	}
	return fitted{Messages: msgs}, nil
}
