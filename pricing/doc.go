// Package pricing owns what tokens cost: a table of per-token prices in
// USD by model, read from LiteLLM's model price list (the list ccusage and
// agentsview price by; MIT licensed, see LICENSE-LiteLLM), the dated
// snapshot of it that tape embeds, the copy a user stores with `tape
// prices update`, and the override file for private or negotiated prices;
// how a model name an agent wrote finds its price; and the cost of token
// counts, with the higher rates some models charge above a context size.
//
// Costs are computed when usage is read, never stored: a newer table
// reprices history. A model with no price has no cost, never a guess.
package pricing
