package mcp

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP 2025-03-26 has JSON-RPC batches (an array of messages on a line),
// and the SDK reads them; later versions have none, and the SDK ends the
// session at a batch once the client has asked for one of them. So does
// it at a batch with a request id of a batch not yet answered. The input
// lets a batch through only when the SDK will take it, by rules a little
// stricter than the SDK's (it cannot see the SDK's state, only what
// passed both ways), and answers any other batch with an error.

// batchesUntil is the first protocol version without batches.
const batchesUntil = "2025-06-18"

// batchRules is what the input knows of the batches the SDK will take.
type batchRules struct {
	mu sync.Mutex
	// off: an initialize asked for a version without batches (or one the
	// SDK does not speak, for which it answers its latest).
	off bool
	// open are the requests of the batches passed whose answers are not
	// written yet.
	open map[jsonrpc.ID]bool
}

func newBatchRules() *batchRules { return &batchRules{open: map[jsonrpc.ID]bool{}} }

// admit says why a batch the input read as line n would end the session,
// or nil when it will not, and holds its requests as open if so.
func (b *batchRules) admit(msgs []jsonrpc.Message, n int) *rpcError {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.off {
		return invalidRequest(nil, n, "is a batch, and MCP has none since version %s, which this session speaks; send one JSON-RPC message a line", batchesUntil)
	}
	ids := map[jsonrpc.ID]bool{}
	for _, msg := range msgs {
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			continue
		}
		if ids[req.ID] {
			return invalidRequest(nil, n, "is a batch with two requests of id %v; none of the batch was read", req.ID.Raw())
		}
		if b.open[req.ID] {
			return invalidRequest(nil, n, "is a batch with a request of id %v, the id of a request of an earlier batch not yet answered; none of the batch was read", req.ID.Raw())
		}
		ids[req.ID] = true
	}
	for id := range ids {
		b.open[id] = true
	}
	return nil
}

// initialize notes an initialize request the input passed, as the SDK
// negotiates its version: the one asked for if the SDK speaks it, else
// its latest. A version asked for twice, or by a params the SDK may read
// otherwise, counts as one without batches.
func (b *batchRules) initialize(params json.RawMessage) {
	versions := members(params, "protocolVersion")["protocolVersion"]
	var asked string
	batches := len(versions) == 1 && json.Unmarshal(versions[0], &asked) == nil &&
		asked < batchesUntil && slices.Contains(sdk.SupportedProtocolVersions(), asked)
	if !batches {
		b.mu.Lock()
		b.off = true
		b.mu.Unlock()
	}
}

// answered notes the answers of a batch the SDK wrote.
func (b *batchRules) answered(batch []rpcMessage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range batch {
		var raw any
		if json.Unmarshal(m.ID, &raw) != nil {
			continue
		}
		if id, err := jsonrpc.MakeID(raw); err == nil {
			delete(b.open, id)
		}
	}
}
