package mirrorfile

// Head is what every mirror's state starts with: the database it mirrors,
// the database's stamp when it was last exported, and whether rows were
// left to settle. Embedded in a source's state, it is state.json's "db",
// "files" and "pending".
type Head struct {
	DB      string `json:"db"`
	Files   Stamp  `json:"files"`
	Pending bool   `json:"pending"` // rows were left to settle: export again, even if nothing was written
}

func (h *Head) head() *Head { return h }

// State is a source's mirror state: a struct embedding a Head.
type State interface{ head() *Head }

// Refresh brings the mirror in dir up to date with the database db, as
// every database source does: nothing while the database and its WAL are
// as the last export left them and nothing waits to settle (the stamp
// file, then the state); else export, given the state with its Head
// set to the database's stamp now (export sets Pending when it leaves
// rows to settle, and may zero Files for a database it lists each time),
// and the state and the stamp saved, in that order.
func Refresh[T any, P interface {
	*T
	State
}](dir, db string, export func(st P) error) error {
	if Unchanged(dir, db) {
		return nil
	}
	st, err := LoadState[T](dir)
	if err != nil {
		return err
	}
	h := P(&st).head()
	stamp := StampOf(db)
	if h.DB == db && h.Files == stamp && !h.Pending {
		return nil
	}
	h.DB, h.Files, h.Pending = db, stamp, false
	if err := export(&st); err != nil {
		return err
	}
	if err := SaveState(dir, st); err != nil {
		return err
	}
	return SaveStamp(dir, h.DB, h.Files, h.Pending)
}
